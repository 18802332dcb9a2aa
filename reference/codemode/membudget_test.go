package codemode

import (
	"testing"
	"time"

	"github.com/onsi/gomega"

	"github.com/codemode-conformance/codemode/spec/result"
)

// --max-memory: the memoryLimitBytes of live VMs are summed over the
// process; a cell whose VM would push the sum past the budget waits within
// its timeoutMs, then fails runtime_unavailable naming the budget, and one
// larger than the whole budget fails at once (issue 28 N13).
func TestMemoryBudgetRefusesAVMThatWouldExceedIt(t *testing.T) {
	g := gomega.NewWithT(t)
	eng := testEngine(t)
	const mib = 1 << 20
	adm := NewAdmission(Limits{MaxMemoryBytes: 96 * mib})
	busy := sessionRuntime(t, eng, echoInvoker{}, Options{Admission: adm}, `{"enabled":true,"timeoutMs":30000,"memoryLimitBytes":67108864}`)
	other := sessionRuntime(t, eng, echoInvoker{}, Options{Admission: adm}, `{"enabled":true,"timeoutMs":300,"memoryLimitBytes":67108864}`)
	small := sessionRuntime(t, eng, echoInvoker{}, Options{Admission: adm}, `{"enabled":true,"timeoutMs":5000,"memoryLimitBytes":16777216}`)
	huge := sessionRuntime(t, eng, echoInvoker{}, Options{Admission: adm}, `{"enabled":true,"timeoutMs":5000,"memoryLimitBytes":134217728}`)

	spun := make(chan result.Result, 1)
	go func() { spun <- execIn(t, busy, `for (;;) {}`) }()
	g.Eventually(adm.Reserved).WithTimeout(10*time.Second).Should(gomega.Equal(int64(64*mib)), "the spinning cell books its 64 MiB")

	res := execIn(t, other, `return 1`)
	g.Expect(res.Status).To(gomega.Equal(result.StatusFailed), "64 + 64 MiB exceed the 96 MiB budget: %+v", res)
	g.Expect(res.Code).To(gomega.Equal(result.CodeRuntimeUnavailable), "a cell refused for the memory budget: %+v", res)
	g.Expect(res.Error).To(gomega.And(gomega.ContainSubstring("--max-memory"), gomega.ContainSubstring("100663296")), "the error names the budget and its size: %+v", res)

	res = execIn(t, small, `return 1`)
	g.Expect(res.Status).To(gomega.Equal(result.StatusCompleted), "64 + 16 MiB fit in 96 MiB: %+v", res)

	start := time.Now()
	res = execIn(t, huge, `return 1`)
	g.Expect(res.Code).To(gomega.Equal(result.CodeRuntimeUnavailable), "128 MiB can never fit in 96 MiB: %+v", res)
	g.Expect(res.Error).To(gomega.ContainSubstring("larger than the whole budget"), "the error says it can never fit: %+v", res)
	g.Expect(time.Since(start)).To(gomega.BeNumerically("<", 2*time.Second), "a VM larger than the budget is refused at once, not after timeoutMs (5 s)")

	g.Expect(busy.Abort("r")).To(gomega.BeTrue(), "abort the spinning cell")
	g.Eventually(spun).WithTimeout(10*time.Second).Should(gomega.Receive(), "the aborted cell ends")
	g.Expect(adm.Reserved()).To(gomega.Equal(int64(0)), "no memory is booked after the cells ended")
	res = execIn(t, other, `return 1`)
	g.Expect(res.Status).To(gomega.Equal(result.StatusCompleted), "with the budget free, the other cell runs: %+v", res)
	g.Expect(adm.Reserved()).To(gomega.Equal(int64(0)), "a completed cell gives its memory back")
}
