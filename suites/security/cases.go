package security

import (
	"embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/suites/evidence"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/suites/security/corpus"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

// caseFiles is the hostile-case corpus (issue 11): one hostile cell per
// file, its expected outcome in the file's front matter (package corpus).
//
//go:embed cases/*.js
var caseFiles embed.FS

// casesDir is where the case files were at build time: each spec's code
// location is its case file (reports and CONFORMANCE.md point there, not
// at this loop).
var casesDir = func() string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "cases")
}()

// cases are loaded when the package initialises: a case that does not
// parse stops every suite binary at once, naming the file.
var cases = func() []corpus.Case {
	cs, err := corpus.Load(caseFiles, "cases")
	if err != nil {
		panic(err)
	}
	return cs
}()

// Each case is a spec of its first requirement (skipped, as every spec is,
// when the target lacks that requirement's feature; the other requirements
// only label it, and its outcome must hold with or without their features),
// labelled req:<ID> for every
// requirement it names, case:<file> and class:<fault class>. After the
// cell, the spec proves the target recovered: a trivial cell in a fresh run
// completes, and runtime.stats' live VMs, stored snapshots and suspended
// runs return to their level before the case.
var _ = Describe("security", "hostile-case corpus", func() {
	for _, c := range cases {
		labels := []string{"case:" + c.File, "class:" + c.Class}
		for _, id := range c.Requirements[1:] {
			labels = append(labels, evidence.LabelRequirement+id)
		}
		args := []any{ginkgo.Label(labels...), HangIsFailure, types.CodeLocation{FileName: filepath.Join(casesDir, c.File), LineNumber: 1}}
		if c.Class == "dos" {
			// Its verdict depends on the CPU it gets before a deadline
			// (a memory fill racing timeoutMs): alone under run --procs.
			args = append(args, Serial)
		}
		It(c.Requirements[0], fmt.Sprintf("case %s: %s", c.File, c.Description), func(ctx SpecContext) { runCase(ctx, c) }, args...)
	}
})

func runCase(ctx SpecContext, c corpus.Case) {
	base, statsErr := T().Stats(ctx)
	r := NewRun(ctx, RunOptions{CodeMode: c.CodeMode(), Tools: c.Fixtures(), Policy: c.Policy()})
	res, steps := r.RunToCompletion(ctx, Guest(c.Code))
	want := c.ExpectFor(Profile())
	Expect(want.CheckRaw(res.Raw)).To(BeEmpty(), "case %s: %s\nrequirements %v, class %s\nexpected under %s: %s\nactual %s\n%s",
		c.File, c.Description, c.Requirements, c.Class, Profile(), want, res, caseRequest(r, c, steps))
	if c.WatchesLateCalls() {
		Expect(corpus.MadeLate(r.Tools.Calls())).To(BeEmpty(),
			"case %s: a call the guest made after the cell's value was determined (input member late) reached the harness\n%s", c.File, caseRequest(r, c, steps))
		Consistently(r.InvokesAfterEnd).WithTimeout(corpus.QuietFor).Should(BeEmpty(),
			"case %s: a tool.invoke of the cell arrived after the answer that ended it (%s)\n%s", c.File, res.Status, caseRequest(r, c, steps))
	}
	r.End(ctx)

	after := NewRun(ctx, RunOptions{CodeMode: true, Tools: []tools.Tool{tools.Echo()}})
	Expect(after.Exec(ctx, corpus.TrivialCell)).To(CompleteWith(42), "case %s: the target must still serve a trivial cell in a fresh run after the case", c.File)
	after.End(ctx)
	if statsErr != nil {
		ginkgo.AddReportEntry("runtime.stats", fmt.Sprintf("not compared: runtime.stats failed before the case: %v", statsErr))
		return
	}
	Eventually(func(g Gomega) string {
		now, err := T().Stats(ctx)
		g.Expect(err).NotTo(HaveOccurred(), "runtime.stats after the case")
		return corpus.AboveBaseline(base, now)
	}).WithContext(ctx).WithTimeout(corpus.BaselineWithin).WithPolling(50*time.Millisecond).Should(BeEmpty(),
		"case %s: live VMs, stored snapshots and suspended runs must return to their level before the case once its run ended", c.File)
}

// caseRequest describes what the harness sent for a case, for failure
// messages: run.prepare's code mode config, tools and policy, then each
// exec/wait with its toolCallId.
func caseRequest(r *Run, c corpus.Case, steps []Result) string {
	cm, _ := json.Marshal(c.CodeMode())
	var b strings.Builder
	fmt.Fprintf(&b, "request: run.prepare {run: %s, codeMode: %s, tools: %v, policy: %+v}", r.ID, cm, c.Tools, c.Policy())
	for i, s := range steps {
		m := "tool.exec {code: <guest code>}"
		if i > 0 {
			m = "tool.wait {runId: " + steps[i-1].RunID + "}"
		}
		fmt.Fprintf(&b, "\n  %s (toolCallId %s) → %s", m, s.ToolCallID, s.Status)
	}
	return b.String()
}
