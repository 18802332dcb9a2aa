package framework

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
)

// specLabels records, by requirement id, the label set of each of its
// specs (suite:, req:, feature:, level:, area: and the spec's own labels),
// filled by It at tree construction, so that a Blocked verdict can say
// whether the owning requirement runs at all (selectedInRun).
var (
	specLabelMu sync.Mutex
	specLabels  = map[string][][]string{}
	// definingSuite is the suite whose container body Ginkgo is building
	// (Define wraps each body): It reads it for the suite: label.
	definingSuite string
	// labelFilter is the run's label filter (a var so the unit tests can
	// set one outside a Ginkgo run).
	labelFilter = ginkgo.GinkgoLabelFilter
)

// recordLabels records the labels of one spec of requirement id: its own
// labels plus those of Ginkgo label decorators among args, under id and
// under every other req: label it carries (a corpus case's further
// requirements).
func recordLabels(id string, own ginkgo.Labels, args []any) {
	ls := append([]string{}, own...)
	if definingSuite != "" {
		ls = append(ls, evidence.LabelSuite+definingSuite)
	}
	for _, a := range args {
		if l, ok := a.(ginkgo.Labels); ok {
			ls = append(ls, l...)
		}
	}
	specLabelMu.Lock()
	defer specLabelMu.Unlock()
	for _, l := range ls {
		if r, ok := strings.CutPrefix(l, evidence.LabelRequirement); ok && r != id {
			specLabels[r] = append(specLabels[r], ls)
		}
	}
	specLabels[id] = append(specLabels[id], ls)
}

// selectedInRun reports whether some spec of requirement id passes the
// run's label filter (--req, --area and --label-filter become one: the CLI's
// Config.Filter). Without a filter, or with one that does not parse, every
// spec is selected. Focus strings are not looked at (the CLI sets none).
func selectedInRun(id string) bool {
	f := labelFilter()
	if f == "" {
		return true
	}
	match, err := types.ParseLabelFilter(f)
	if err != nil {
		return true
	}
	specLabelMu.Lock()
	defer specLabelMu.Unlock()
	return slices.ContainsFunc(specLabels[id], match)
}

// notSelectedNote is what a Blocked message adds when its owner req runs no
// spec in this run: the block is still the verdict (one fault, one
// requirement), but the owner's own verdict is not in the report.
func notSelectedNote(req string) string {
	if selectedInRun(req) {
		return ""
	}
	return fmt.Sprintf(" [%s, which owns this precondition, is not selected in this run (label filter %q), so its own verdict is not in this report: run it (--req %s) to judge the fault]",
		req, labelFilter(), req)
}
