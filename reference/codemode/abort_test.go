package codemode

import (
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/onsi/gomega"
)

// run.abort ends a cell whose synchronous top level spins (issue 11's repro:
// the abort used to return at once while the VM ran on until timeoutMs).
func TestAbortStopsSynchronousTopLevel(t *testing.T) {
	g := gomega.NewWithT(t)
	rt, _ := faultsRun(t, `{"enabled":true,"timeoutMs":30000}`)
	done := make(chan result.Result, 1)
	go func() { done <- execCode(t, rt, `for (;;) {}`) }()
	g.Eventually(rt.eng.LiveVMs).WithTimeout(10*time.Second).Should(gomega.Equal(1), "the spinning cell's VM must start")
	g.Expect(rt.Abort("faults")).To(gomega.BeTrue(), "Abort of a prepared run")
	var res result.Result
	// Half of timeoutMs: a cell the abort did not stop ends only at 30 s.
	g.Eventually(done).WithTimeout(15*time.Second).Should(gomega.Receive(&res), "the spinning cell must end after run.abort, not at timeoutMs")
	g.Expect(res.Status).To(gomega.Equal(result.StatusFailed), "status after run.abort: %+v", res)
	g.Expect(res.Code).To(gomega.Equal(result.CodeAborted), "code after run.abort: %+v", res)
}
