package naive_test

import (
	"strings"

	"github.com/codemode-conformance/codemode/fakes/naive"
	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/tools/report"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Issue 23 §2: a target that simply does not declare the features profile v1
// requires must fail their requirements as not implemented. Before, the naive
// target without isolation got CM-SEC-01 skipped although it escapes to the
// host's process, and the run could end partial with exit 0.
var _ = Describe("the naive target declaring only core (naive.CoreOnly)", func() {
	It("fails CM-SEC-01, CM-RUN-01 and CM-LIM-05 under v1 as not implemented, never skips them, and says so at the top", func() {
		o := conformanceOf([]string{naive.CoreOnly}, "--profile", "v1", "--req", "CM-SEC-01", "--req", "CM-RUN-01", "--req", "CM-LIM-05", "--label-filter", noCases)
		for id, feature := range map[string]string{"CM-SEC-01": "isolation", "CM-RUN-01": "snapshot-executor", "CM-LIM-05": "pending-call-limit"} {
			r := o.requirement(id)
			Expect(r.Verdict).To(Equal(report.Fail), "%s under v1 without %s: want fail (not implemented), not skip\n%s", id, feature, o.Stdout)
			Expect(r.Specs).NotTo(BeEmpty(), "%s has no spec lines in the report", id)
			for _, sp := range r.Specs {
				Expect(sp.Verdict).To(Equal(report.Fail), "spec %q of %s: want fail\n%s", sp.Name, id, o.Stdout)
				Expect(sp.Message).To(HavePrefix(framework.NotImplementedPrefix+"profile v1 requires feature "+feature),
					"spec %q of %s must fail for the missing required feature, naming it", sp.Name, id)
			}
		}
		Expect(o.Code).To(Equal(1), "a run with requirements not implemented exits 1\n%s", o.Stdout)
		req := o.Report.Features.Required
		Expect(req).NotTo(BeNil(), "conformance-report.yaml has no features.required")
		Expect(req.Missing).To(ContainElements("isolation", "snapshot-executor", "pending-call-limit"), "features.required.missing")
		// The console names them before the first spec's line.
		first := strings.Index(o.Stdout, "[  1]")
		missing := strings.Index(o.Stdout, "required features missing: profile v1 requires")
		Expect(missing).To(And(BeNumerically(">=", 0), BeNumerically("<", first)), "the console must name the missing required features before the first spec's line:\n%s", o.Stdout)
	})

	It("skips, visibly, a required feature the user exempts", func() {
		o := conformanceOf([]string{naive.CoreOnly}, "--profile", "v1", "--exempt-features", "isolation", "--req", "CM-SEC-01", "--label-filter", noCases)
		r := o.requirement("CM-SEC-01")
		Expect(r.Verdict).To(Equal(report.Skip), "CM-SEC-01 with isolation exempted by the user: want skip\n%s", o.Stdout)
		for _, sp := range r.Specs {
			Expect(sp.Message).To(ContainSubstring("exempted by the user"), "spec %q: the skip must say the user exempted a required feature", sp.Name)
		}
		Expect(o.Report.Features.Required).NotTo(BeNil(), "conformance-report.yaml has no features.required")
		Expect(o.Report.Features.Required.Exempted).To(Equal([]string{"isolation"}), "features.required.exempted")
		Expect(o.Report.Overall).NotTo(Equal(report.Success), "a run that exempted a required feature is at best partial")
		Expect(o.Report.Reasons).To(ContainElement(ContainSubstring("required features exempted by the user: isolation")), "the reasons name the exemption")
		Expect(o.Stdout).To(ContainSubstring("required features exempted by the user (--exempt-features): isolation"), "the console names the exemption")
	})
})
