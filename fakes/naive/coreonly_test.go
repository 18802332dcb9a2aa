package naive_test

import (
	"strings"

	"github.com/codemode-conformance/codemode/fakes/naive"
	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/tools/report"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Issue 23 §2 and the verdict audit's F2/F3: a target that simply does not
// declare features profile v1 requires must not get them skipped (the naive
// target without isolation escapes to the host's process), nor failed
// without anything observed. Their specs run and behaviour decides; a
// feature the harness drives only through a surface of its own (agent.turn)
// gets one verdict, not one per requirement.
var _ = Describe("the naive target declaring only core (naive.CoreOnly)", func() {
	It("fails CM-SEC-01, CM-RUN-01 and CM-LIM-05 under v1, each on what it did, and names the missing features at the top", func() {
		o := conformanceOf([]string{naive.CoreOnly}, "--profile", "v1", "--req", "CM-SEC-01", "--req", "CM-RUN-01", "--req", "CM-LIM-05", "--label-filter", noCases)
		// The naive target escapes to the host (fault 1) and makes up its
		// snapshot sizes (fault 3); in its core-only mode it keeps no
		// pending-call limit, so it starts every call of a batch over
		// maxPendingToolCalls. Each failure names that behaviour, not a
		// missing declaration.
		for id, did := range map[string]string{
			"CM-SEC-01": "process",
			"CM-RUN-01": "snapshot",
			"CM-LIM-05": "maxPendingToolCalls",
		} {
			r := o.requirement(id)
			Expect(r.Verdict).To(Equal(report.Fail), "%s under v1 with its feature undeclared: its specs run and the target's behaviour fails them\n%s", id, o.Stdout)
			Expect(r.Specs).NotTo(BeEmpty(), "%s has no spec lines in the report", id)
			var failing []string
			for _, sp := range r.Specs {
				Expect(sp.Verdict).To(BeElementOf(report.Pass, report.Fail), "spec %q of %s ran: want pass or fail, never skip\n%s", sp.Name, id, o.Stdout)
				Expect(sp.Message).NotTo(HavePrefix(framework.NotImplementedPrefix), "spec %q of %s: an undeclared feature with no driver is judged on behaviour", sp.Name, id)
				if sp.Verdict == report.Fail {
					failing = append(failing, sp.Message)
				}
			}
			Expect(failing).To(ContainElement(ContainSubstring(did)), "%s must fail on what the target did (a message naming %q)", id, did)
		}
		Expect(o.Code).To(Equal(1), "a run with failed requirements exits 1\n%s", o.Stdout)
		req := o.Report.Features.Required
		Expect(req).NotTo(BeNil(), "conformance-report.yaml has no features.required")
		Expect(req.Missing).To(ContainElements("isolation", "snapshot-executor", "pending-call-limit"), "features.required.missing")
		// The console names them before the first spec's line.
		first := strings.Index(o.Stdout, "[  1]")
		missing := strings.Index(o.Stdout, "required features missing: profile v1 requires")
		Expect(missing).To(And(BeNumerically(">=", 0), BeNumerically("<", first)), "the console must name the missing required features before the first spec's line:\n%s", o.Stdout)
	})

	It("gets one verdict for the undeclared agent-turn: CM-ACT-09, the lowest id, fails as not implemented or not drivable and the other eight are blocked by it", func() {
		ids := []string{"CM-ACT-09", "CM-CFG-10", "CM-E2E-01", "CM-E2E-02", "CM-E2E-03", "CM-E2E-04", "CM-E2E-05", "CM-E2E-06", "CM-E2E-07"}
		args := []string{"--profile", "v1", "--label-filter", noCases}
		for _, id := range ids {
			args = append(args, "--req", id)
		}
		o := conformanceOf([]string{naive.CoreOnly}, args...)
		failed := 0
		for _, id := range ids {
			r := o.requirement(id)
			Expect(r.Specs).NotTo(BeEmpty(), "%s has no spec lines in the report", id)
			if id == "CM-ACT-09" {
				Expect(r.Verdict).To(Equal(report.Fail), "the lowest agent-turn id carries the feature's one verdict\n%s", o.Stdout)
				for _, sp := range r.Specs {
					// target.mjs answers an unknown method -32601: the probe tells.
					Expect(sp.Message).To(HavePrefix(framework.NotImplementedPrefix+"profile v1 requires feature agent-turn; the target declares no feature agent-turn and does not answer `agent.turn` (-32601"),
						"spec %q of CM-ACT-09 must say the feature is not declared and the method not answered", sp.Name)
				}
			} else {
				Expect(r.Verdict).To(Equal(report.Blocked), "%s: one fault, one verdict: blocked by CM-ACT-09, not failed again\n%s", id, o.Stdout)
				Expect(r.BlockedBy).To(Equal([]string{"CM-ACT-09"}), "%s is blocked by the feature's owner", id)
			}
			if r.Verdict == report.Fail {
				failed++
			}
		}
		Expect(failed).To(Equal(1), "exactly one failure for the one missing feature")
		Expect(o.Report.Features.Required).NotTo(BeNil(), "conformance-report.yaml has no features.required")
		Expect(o.Report.Features.Required.Missing).To(ContainElement("agent-turn"), "features.required.missing")
		Expect(o.Code).To(Equal(1), "a run with a failed requirement exits 1\n%s", o.Stdout)
	})

	It("gives the undeclared agent-turn's one verdict to the lowest selected requirement when the run selects neither CM-ACT-09 nor any lower one", func() {
		o := conformanceOf([]string{naive.CoreOnly}, "--profile", "v1", "--label-filter", noCases, "--req", "CM-E2E-03")
		r := o.requirement("CM-E2E-03")
		Expect(r.Verdict).To(Equal(report.Fail), "the verdict must appear in the run, not a block by CM-ACT-09, which does not run\n%s", o.Stdout)
		for _, sp := range r.Specs {
			Expect(sp.Message).To(HavePrefix(framework.NotImplementedPrefix+"profile v1 requires feature agent-turn"), "spec %q", sp.Name)
		}
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
