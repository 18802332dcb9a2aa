package main_test

import (
	"github.com/codemode-conformance/codemode/tools/report"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// eagerV1 are the requirements whose specs follow waiting cells with wait
// (Follow, FollowAs, the corpus's Drive with case bridge-sequential-storm.js
// of CM-NEST-04, the abuse suite's settle, agent turns through Run.Settle),
// or once counted on a cell ending within exec or after a few waits:
// each once gave a target that suspends at every pending call a false
// verdict (issue 23 item 5).
var eagerV1 = []string{"CM-PROT-05", "CM-NEST-03", "CM-NEST-04", "CM-CAT-05", "CM-E2E-06", "CM-E2E-08", "CM-E2E-09",
	"CM-RUN-01", "CM-RUN-02", "CM-EXEC-08", "CM-EXEC-11", "CM-EXEC-18", "CM-NEST-07", "CM-NEST-10", "CM-GUEST-13", "CM-TEL-01"}

// A target may suspend at any point while a nested call is pending
// (spec/protocol.md §10): fake:eager suspends as soon as a tools.call is in
// flight, in exec and in every wait, and answers a wait at once while its
// call is still pending. It conforms, so every wait-following spec must
// pass against it: wait loops are bounded by time, not by a count of waits
// (framework.WaitLoop), and the fake model of an agent turn waits for a
// pending call to return before it calls wait again (Run.Settle). It is a
// v1 target: 001's bridge queue requires fast calls to complete within the
// exec (CM-NEST-15), which a target suspending at every call does not do.
var _ = Describe("a target that suspends at every pending nested call (fake:eager)", func() {
	It("passes every wait-following requirement under v1", func() {
		args := []string{"--target", "fake:eager"}
		for _, id := range eagerV1 {
			args = append(args, "--req", id)
		}
		o := conformance(args...)
		Expect(o.Code).To(Equal(0), "fake:eager must pass:\n%s", o.Summary)
		v := o.Verdicts()
		for _, id := range eagerV1 {
			Expect(v).To(HaveKeyWithValue(id, report.Pass), "%s under v1 on fake:eager:\n%s", id, o.Summary)
		}
	})
})
