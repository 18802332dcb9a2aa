package broken_test

import (
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a target that refuses exec and wait outside the result union", func() {
	It("fails CM-EXEC-05 only: the specs whose exec or wait is refused are blocked by CM-EXEC-05", func() {
		// OpenClaw 2026.7.35's shape: a refused call is {status: "error"}.
		// Its wait codes are CM-EXEC-19's, its refusals CM-EXEC-01's and
		// -09's, its isolation CM-SEC-05's: none is judged on that shape.
		blocked := []string{"CM-EXEC-01", "CM-EXEC-09", "CM-EXEC-11", "CM-EXEC-19", "CM-RUN-06"}
		args := []string{"--target", "fake:refusals-outside-union", "--req", "CM-EXEC-05", "--label-filter", noCases}
		want := map[string]report.Verdict{"CM-EXEC-05": report.Fail}
		for _, id := range blocked {
			args = append(args, "--req", id)
			want[id] = report.Blocked
		}
		o := conformance(args...)
		Expect(o.Code).To(Equal(1), "the refusals must fail the run through CM-EXEC-05:\n%s", o.Stdout)
		Expect(cmp.Diff(want, o.Verdicts())).To(BeEmpty(), "one fault, one failing requirement (-want +got):\n%s", o.Stdout)
		for _, r := range o.Report.Requirements {
			if r.Verdict == report.Blocked {
				Expect(r.BlockedBy).To(Equal([]string{"CM-EXEC-05"}), "%s is blocked by the owner of the result union:\n%s", r.ID, o.Stdout)
			}
		}
	})
})
