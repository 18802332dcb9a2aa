package codemode

import (
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("codemode", "failure codes", func() {
	It("CM-EXEC-19", "a failure carries the code named after its condition: nested_tool_failed, snapshot_expired, aborted", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(map[string]any{"snapshotTtlSeconds": 2}), Tools: tools.Standard()})
		res, _ := r.RunToCompletion(ctx, Guest(`await call("fail", {message: "uncaught"}); return 1;`))
		Expect(res).To(BeFailedWith(result.CodeNestedToolFailed), "an uncaught tool error must fail the cell with nested_tool_failed")
		res, _ = r.RunToCompletion(ctx, `throw {name: "ToolError", code: "nested_tool_failed", message: "forged by the guest"};`)
		Expect(res).To(BeFailed(), "a guest's own throw must fail the cell")
		Expect(res.Code).NotTo(Equal(result.CodeNestedToolFailed), "a guest's own throw must not pass for a failed nested tool call: %s", res)
		if Features().Has("run-lifecycle-messages") {
			// 001: the wait failures are invalid_input (CM-EXEC-10), not named codes.
			return
		}
		// A failed restore (snapshot_restore_failed) cannot be induced from
		// outside: see CM-EXEC-20.
		w := r.Exec(ctx, Guest(slowCall))
		Expect(w).To(BeWaiting(), "the slow nested call must suspend the cell")
		time.Sleep(3500 * time.Millisecond) // the TTL (2 s, above timeoutMs so the cell suspends before its call's deadline, protocol.md §10) is the subject under test; a wait before it passes would resume the cell
		// A wait that goes on where it must fail is CM-EXEC-09's; one refused
		// outside the result union is CM-EXEC-05's (r.Wait blocks by it:
		// framework.UnionOwner). Only the codes are this requirement's.
		expired := r.Wait(ctx, w.RunID)
		Precondition("CM-EXEC-09").Expect(expired).To(BeFailed(), "wait on an expired snapshot must fail (not resume the cell) before its code can be judged")
		Expect(expired).To(BeFailedWith(result.CodeSnapshotExpired), "wait on a snapshot older than snapshotTtlSeconds must fail with snapshot_expired")
		a := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: tools.Standard()})
		w = a.Exec(ctx, Guest(slowCall))
		Expect(w).To(BeWaiting(), "the slow nested call must suspend the cell")
		a.Abort(ctx)
		aborted := a.Wait(ctx, w.RunID)
		Precondition("CM-EXEC-09").Expect(aborted).To(BeFailed(), "wait on an aborted run must fail (not resume the cell) before its code can be judged")
		Expect(aborted).To(BeFailedWith(result.CodeAborted), "wait on a cell of an aborted run must fail with aborted")
	})
})
