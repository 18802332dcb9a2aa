package main_test

import (
	"github.com/codemode-conformance/codemode/tools/report"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A target that keeps live continuations instead of snapshots and conforms
// otherwise passes the requirements that once worked only for a target that
// suspends the way the reference does (issue 23 item 3; spec/protocol.md §8
// "Targets without snapshots"). v2 does not require snapshot-executor. The
// variants that misreport such a target (fake:phantom-snapshot-events,
// fake:uncounted-continuations) are fakes/broken's.
var _ = Describe("a live-continuation target", func() {
	It("passes CM-RUN-02, CM-TEL-03 and CM-EXEC-08 under v2", func() {
		o := conformance("--target", "builtin:continuation", "--profile", "v2",
			"--req", "CM-RUN-02", "--req", "CM-TEL-03", "--req", "CM-EXEC-08")
		Expect(o.Code).To(Equal(0), "builtin:continuation must pass:\n%s", o.Summary)
		v := o.Verdicts()
		for _, id := range []string{"CM-RUN-02", "CM-TEL-03", "CM-EXEC-08"} {
			Expect(v).To(HaveKeyWithValue(id, report.Pass), "%s under v2 on builtin:continuation:\n%s", id, o.Summary)
		}
	})
})
