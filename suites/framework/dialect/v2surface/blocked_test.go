package v2surface_test

import (
	"strings"
	"testing"

	_ "github.com/codemode-conformance/codemode/suites/codemode" // CM-CAT-02, CM-CAT-04, CM-CAT-06, CM-CAT-07, CM-GUEST-12, CM-TEL-01
	_ "github.com/codemode-conformance/codemode/suites/e2e"      // CM-E2E-03..05, CM-E2E-08/09
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/suites/framework/dialect/v2surface"
	_ "github.com/codemode-conformance/codemode/suites/security" // CM-EXEC-16, CM-ACT-05, CM-SEC-05
	"github.com/codemode-conformance/codemode/targets"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// Under v2, a target that declares no tools-api and whose cells have neither
// 000's tools/ALL_TOOLS nor 001's catalog: the core and isolation specs that
// only reach tools through the guest dialect (agent.turn cells too) are
// blocked by CM-TS-06 (the owner of the catalog handles), never failed
// (outside verdict audit F1b).
func TestSpecsWithoutAnyCatalogSurfaceAreBlocked(t *testing.T) {
	targets.Register("test:v2-no-catalog-surface", "the v2 reference without tools-api and without catalog in its cells", v2surface.Serve(true))
	framework.Configure(framework.Config{Target: "test:v2-no-catalog-surface", Profile: "v2"})
	reports := map[string]ginkgo.SpecReport{}
	ginkgo.ReportAfterEach(func(r ginkgo.SpecReport) { reports[r.LeafNodeText] = r })
	gomega.RegisterFailHandler(ginkgo.Fail)
	framework.Define()
	cfg, rep := ginkgo.GinkgoConfiguration()
	cfg.FocusStrings = []string{`\bCM-(EXEC-16|ACT-05|SEC-05|CAT-0[2467]|GUEST-12|TEL-01|E2E-0[34589]) `}
	cfg.LabelFilter = "!/^case:/"
	ginkgo.RunSpecs(&recordT{}, "v2 without any catalog surface", cfg, rep)

	g := gomega.NewWithT(t)
	want := map[string]bool{"CM-EXEC-16": false, "CM-ACT-05": false, "CM-SEC-05": false,
		"CM-CAT-02": false, "CM-CAT-04": false, "CM-CAT-06": false, "CM-CAT-07": false, "CM-GUEST-12": false, "CM-TEL-01": false,
		"CM-E2E-03": false, "CM-E2E-04": false, "CM-E2E-05": false, "CM-E2E-08": false, "CM-E2E-09": false}
	for name, r := range reports {
		f := strings.Fields(name)
		if _, ok := want[f[0]]; !ok || f[1] == "case" { // corpus cases (label case:) are left out
			continue
		}
		id := f[0]
		want[id] = true
		b := blockedEntry(r)
		t.Logf("%s: blocked by %q: %s", name, b.By, b.Message)
		g.Expect(r.Failed()).To(gomega.BeFalse(), "%s: a spec that only relies on the dialect must not fail: %s", name, r.FailureMessage())
		g.Expect(b.By).To(gomega.Equal("CM-TS-06"), "%s must be blocked by CM-TS-06, the owner of the catalog handles: %s", name, r.FailureMessage())
	}
	for id, ran := range want {
		g.Expect(ran).To(gomega.BeTrue(), "no spec of %s ran", id)
	}
}

// blockedEntry is a spec report's Blocked entry (zero if none).
func blockedEntry(r ginkgo.SpecReport) evidence.Blocked {
	for _, e := range r.ReportEntries {
		if e.Name == evidence.BlockedEntry {
			var b evidence.Blocked
			if evidence.Decode(e.Value, &b) == nil {
				return b
			}
		}
	}
	return evidence.Blocked{}
}

// recordT keeps Ginkgo's verdict of the inner run to itself (a blocked
// spec is a skip).
type recordT struct{ failed bool }

func (r *recordT) Fail() { r.failed = true }
