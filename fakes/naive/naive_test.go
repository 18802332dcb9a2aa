package naive_test

import (
	"fmt"
	"strings"

	"github.com/codemode-conformance/codemode/tools/report"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

// The corpus cases (suites/security/cases) carry req: labels too; these
// specs count the specs of a requirement, so they leave the cases out.
const noCases = "!/^case:/"

var _ = Describe("the harness against the naive Node.js target", func() {
	It("reports its real faults as failures of the right requirements, and passes what it does right", func() {
		o := conformance(
			// Faults: the vm escape, host functions and promises in the guest,
			// a tool.invoke the guest forges through the escape, and
			// snapshots that do not exist.
			"--req", "CM-SEC-01", "--req", "CM-SEC-02", "--req", "CM-GUEST-05", "--req", "CM-SEC-05",
			"--req", "CM-RUN-01", "--req", "CM-EXEC-08",
			// Controls: what the naive target does right.
			"--req", "CM-GUEST-07", "--req", "CM-NEST-01", "--req", "CM-EXEC-01")
		// Each entry: the verdict the naive target earns, and why.
		var problems []string
		want := func(id string, ok bool, why string) {
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: got %q; %s", id, o.requirement(id).Verdict, why))
			}
		}
		pass := func(id string) bool { return o.requirement(id).Verdict == report.Pass }
		fail := func(id string) bool { return o.requirement(id).Verdict == report.Fail }
		for _, id := range []string{"CM-GUEST-07", "CM-NEST-01", "CM-EXEC-01"} {
			want(id, pass(id), "want pass: the naive target does this right (a false fail otherwise)")
		}
		// A fail must be for the fault, not for something else (a probe the
		// target refused to run proves nothing about the escape).
		failFor := func(id string, because ...string) bool {
			if !fail(id) {
				return false
			}
			for _, sp := range o.requirement(id).Specs {
				if sp.Verdict != report.Fail || strings.Contains(sp.Message, "module_access_denied") || strings.Contains(sp.Message, "run to completion") {
					continue
				}
				for _, b := range because {
					if strings.Contains(sp.Message, b) {
						return true
					}
				}
			}
			return false
		}
		want("CM-SEC-01", failFor("CM-SEC-01", "realm", "escape"),
			"want fail, for the escape: this.constructor.constructor(\"return process\")() returns the host's process (a false pass otherwise)")
		want("CM-SEC-02", failFor("CM-SEC-02", "realm", "Function"),
			"want fail, for host values: tools.call(…).constructor.constructor and text.constructor are the host's Function (a false pass otherwise)")
		for _, id := range []string{"CM-GUEST-05", "CM-SEC-05"} {
			want(id, failFor(id, "tool.invoke"),
				"want fail, for a forged call: through the escape the guest writes its own tool.invoke for a tool the run's policy denies, which the harness must refuse (a false pass otherwise)")
		}
		for _, id := range []string{"CM-RUN-01", "CM-EXEC-08"} {
			want(id, failFor(id, "snapshot") || o.selfReported(id),
				"want fail, for the snapshot, or a verdict marked self-reported: a waiting cell is a live promise and runtime.stats is made up (a false pass otherwise)")
		}
		Expect(problems).To(BeEmpty(), "verdicts on the naive target:\n%s\n\n%s", strings.Join(problems, "\n"), o.Stdout)
		Expect(o.Code).To(Equal(1), "a run with failing requirements exits 1")
	})

	It("charges a target that hangs to the spec that hung it, and the specs after it run on a fresh target", func() {
		// CM-LIM-01's spinning guests (promise jobs, a loop after an await)
		// run on the naive target's protocol loop: the target stops reading
		// its input for good. The other requirements are ones the naive
		// target passes: CM-LIM-03 runs after CM-LIM-01 in the same container
		// whatever the container order.
		o := conformance("--req", "CM-LIM-01", "--req", "CM-LIM-03", "--req", "CM-LIM-05", "--req", "CM-EXEC-02", "--req", "CM-GUEST-07", "--req", "CM-SEC-03", "--label-filter", noCases)
		Expect(o.requirement("CM-LIM-01").Verdict).To(Equal(report.Fail),
			"CM-LIM-01 hung the target, which that requirement forbids: a failure of that spec (HangIsFailure), not of a later one\n%s", o.Stdout)
		// From the first CM-LIM-01 spec on (the spinning guests hang the
		// target there), every spec of another requirement must run on a
		// fresh target; CM-LIM-01's other specs are judged by HangIsFailure.
		start := -1
		for i, s := range o.specs {
			if strings.HasPrefix(s.LeafNodeText, "CM-LIM-01 ") {
				start = i
				break
			}
		}
		Expect(start).To(BeNumerically(">=", 0), "CM-LIM-01 is not in report.json:\n%s", o.specLines())
		var after []types.SpecReport
		for _, s := range o.specs[start+1:] {
			if !strings.HasPrefix(s.LeafNodeText, "CM-LIM-01 ") {
				after = append(after, s)
			}
		}
		Expect(after).NotTo(BeEmpty(), "no spec ran after CM-LIM-01, so nothing shows that the next specs are not blamed:\n%s", o.specLines())
		passed := 0
		for _, s := range after {
			Expect(s.State).NotTo(BeElementOf(types.SpecStatePanicked, types.SpecStateAborted, types.SpecStateInterrupted, types.SpecStateTimedout),
				"%q ran after the target hung in CM-LIM-01: it must not inherit the hang\n%s", s.LeafNodeText, o.specLines())
			Expect(s.Failure.Message).NotTo(Or(ContainSubstring("failed at the protocol level"), ContainSubstring("deadline exceeded"), ContainSubstring("reconnect")),
				"%q ran after the target hung in CM-LIM-01 and failed talking to it: the hang was charged to a later spec\n%s", s.LeafNodeText, o.specLines())
			if s.State == types.SpecStatePassed {
				passed++
			}
		}
		for _, id := range []string{"CM-LIM-03", "CM-LIM-05", "CM-EXEC-02", "CM-GUEST-07", "CM-SEC-03"} {
			Expect(o.requirement(id).Verdict).NotTo(Equal(report.Error), "%s ran on the target after or before the hang and must not be an error\n%s", id, o.Stdout)
		}
		Expect(passed).To(BeNumerically(">", 0), "no spec after CM-LIM-01 passed: the target was not respawned\n%s", o.specLines())
	})
})
