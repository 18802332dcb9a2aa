package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/onsi/gomega"
)

// testEngine is one engine for a test, closed at its end.
func testEngine(t testing.TB) *engine.Engine {
	t.Helper()
	eng, err := engine.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	return eng
}

// sessionRuntime is one session's runtime on eng with run "r" prepared
// (codeMode is its tools.codeMode), sharing adm with the other sessions.
func sessionRuntime(t testing.TB, eng *engine.Engine, inv Invoker, opts Options, codeMode string) *Runtime {
	t.Helper()
	rt := New(eng, inv, opts)
	t.Cleanup(rt.Close)
	res := rt.Prepare(protocol.PrepareParams{Run: "r", RunContext: protocol.RunContext{AgentID: "a", SessionID: "s", SessionKey: "k", SenderID: "x", Channel: "c"},
		CodeMode: json.RawMessage(codeMode), Tools: []protocol.ToolSpec{{Name: "echo", Description: "echo", Source: protocol.SourceOpenClaw, Owner: "core"}}})
	if !res.CodeModeActive {
		t.Fatalf("prepare: %+v", res)
	}
	return rt
}

func execIn(t testing.TB, rt *Runtime, code string) result.Result {
	t.Helper()
	in, _ := json.Marshal(map[string]string{"code": code})
	res, err := rt.Exec(context.Background(), "r", "call", in)
	if err != nil {
		t.Fatalf("exec %q: %v", code, err)
	}
	return res
}

func waitIn(t testing.TB, rt *Runtime, runID string) result.Result {
	t.Helper()
	in, _ := json.Marshal(map[string]string{"runId": runID})
	res, err := rt.Wait(context.Background(), "r", "wait", in)
	if err != nil {
		t.Fatalf("wait %s: %v", runID, err)
	}
	return res
}

// The suspended-run limit is one count for the whole process: two sessions
// share it, the suspension over it fails with CM-RUN-05's text and a code,
// runtime.stats of either session reports both, and a resumed cell frees
// its place (CM-RUN-05, issue 11).
func TestSuspendedRunLimitIsPerProcess(t *testing.T) {
	g := gomega.NewWithT(t)
	eng := testEngine(t)
	adm := NewAdmission(Limits{MaxSuspendedRuns: 2})
	a := sessionRuntime(t, eng, echoInvoker{}, Options{Admission: adm}, `{"enabled":true}`)
	b := sessionRuntime(t, eng, echoInvoker{}, Options{Admission: adm}, `{"enabled":true}`)
	const park = `await yield_control("park"); return 7;`
	wa, wb := execIn(t, a, park), execIn(t, b, park)
	g.Expect(wa.Status).To(gomega.Equal(result.StatusWaiting), "session a's first suspension: %+v", wa)
	g.Expect(wb.Status).To(gomega.Equal(result.StatusWaiting), "session b's first suspension: %+v", wb)
	over := execIn(t, a, park)
	g.Expect(over.Status).To(gomega.Equal(result.StatusFailed), "a third suspension in the process must fail: %+v", over)
	g.Expect(over.Code).To(gomega.Equal(result.CodeSnapshotLimitExceeded), "the refused suspension must carry a code: %+v", over)
	g.Expect(over.Error).To(gomega.ContainSubstring("too many suspended code mode runs"), "CM-RUN-05's text: %+v", over)
	for name, rt := range map[string]*Runtime{"a": a, "b": b} {
		st := rt.Stats()
		g.Expect(st.SuspendedRuns).To(gomega.Equal(2), "session %s's runtime.stats must count the process's suspended runs: %+v", name, st)
		g.Expect(st.Snapshots).To(gomega.Equal(2), "session %s's runtime.stats must count the process's snapshots: %+v", name, st)
	}
	done := waitIn(t, b, wb.RunID)
	g.Expect(done.Status).To(gomega.Equal(result.StatusCompleted), "wait resumes b's cell: %+v", done)
	again := execIn(t, a, park)
	g.Expect(again.Status).To(gomega.Equal(result.StatusWaiting), "the resumed cell's place is free again: %+v", again)
	b.Close()
	g.Expect(a.Stats().SuspendedRuns).To(gomega.Equal(2), "a closed session leaves the process's count: %+v", a.Stats())
	a.Abort("r")
	g.Expect(a.Stats().SuspendedRuns).To(gomega.Equal(0), "run.abort frees both of a's suspended runs")
	g.Expect(adm.suspended).To(gomega.Equal(0), "the process count is back to zero")
}

// Sixty-four concurrent suspensions against a limit of 8 never pass it: the
// place is reserved before the snapshot is taken.
func TestSuspendedRunLimitHoldsUnderConcurrency(t *testing.T) {
	g := gomega.NewWithT(t)
	eng := testEngine(t)
	adm := NewAdmission(Limits{MaxSuspendedRuns: 8})
	rt := sessionRuntime(t, eng, echoInvoker{}, Options{Admission: adm}, `{"enabled":true,"timeoutMs":20000}`)
	results := make(chan result.Result, 64)
	for range 64 {
		go func() { results <- execIn(t, rt, `await yield_control("park"); return 7;`) }()
	}
	waiting := 0
	for range 64 {
		r := <-results
		switch {
		case r.Status == result.StatusWaiting:
			waiting++
		case r.Code != result.CodeSnapshotLimitExceeded:
			t.Errorf("a suspension beyond the limit must fail with snapshot_limit_exceeded: %+v", r)
		}
	}
	g.Expect(waiting).To(gomega.Equal(8), "exactly the limit of suspensions succeeds")
	g.Expect(rt.Stats().SuspendedRuns).To(gomega.Equal(8), "runtime.stats agrees")
}

// The live-VM limit is per process: while one session's cell holds the only
// VM, another session's cell waits for it and gets runtime_unavailable with
// a clear message when its timeoutMs passes first; once the VM is free,
// cells run again.
func TestLiveVMLimitIsPerProcess(t *testing.T) {
	g := gomega.NewWithT(t)
	eng := testEngine(t)
	adm := NewAdmission(Limits{MaxLiveVMs: 1})
	busy := sessionRuntime(t, eng, echoInvoker{}, Options{Admission: adm}, `{"enabled":true,"timeoutMs":30000}`)
	other := sessionRuntime(t, eng, echoInvoker{}, Options{Admission: adm}, `{"enabled":true,"timeoutMs":300}`)
	spun := make(chan result.Result, 1)
	go func() { spun <- execIn(t, busy, `for (;;) {}`) }()
	g.Eventually(func() int { return len(adm.slots) }).WithTimeout(10*time.Second).Should(gomega.Equal(1), "the spinning cell must take the only VM slot")
	g.Eventually(eng.LiveVMs).WithTimeout(10*time.Second).Should(gomega.Equal(1), "the spinning cell's VM must start")
	start := time.Now()
	res := execIn(t, other, `return 1`)
	g.Expect(res.Status).To(gomega.Equal(result.StatusFailed), "no VM is free for the other session's cell: %+v", res)
	g.Expect(res.Code).To(gomega.Equal(result.CodeRuntimeUnavailable), "a cell refused for the live-VM limit: %+v", res)
	g.Expect(res.Error).To(gomega.ContainSubstring("too many live code mode VMs"), "the error must name the limit: %+v", res)
	g.Expect(time.Since(start)).To(gomega.BeNumerically("<", 5*time.Second), "the refusal comes at about timeoutMs (300 ms)")
	g.Expect(busy.Abort("r")).To(gomega.BeTrue(), "abort the spinning cell")
	g.Eventually(spun).WithTimeout(10*time.Second).Should(gomega.Receive(), "the aborted cell ends")
	res = execIn(t, other, `return 1`)
	g.Expect(res.Status).To(gomega.Equal(result.StatusCompleted), "with the VM free, the other session's cell runs: %+v", res)
	g.Expect(len(adm.slots)).To(gomega.Equal(0), "no live-VM slot is held after the cells ended")
}

// BenchmarkSuspendedRunMemory reports the host heap one idle suspended run
// holds (its snapshot and bookkeeping), measured over 32 trivial cells
// parked at once after a forced GC (issue 11: memory per suspended run).
func BenchmarkSuspendedRunMemory(b *testing.B) {
	eng := testEngine(b)
	const n = 32
	var perRun float64
	for b.Loop() {
		b.StopTimer()
		adm := NewAdmission(Limits{MaxSuspendedRuns: n})
		rt := sessionRuntime(b, eng, echoInvoker{}, Options{Admission: adm}, `{"enabled":true}`)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		for i := range n {
			if r := execIn(b, rt, fmt.Sprintf(`await yield_control("park"); return %d;`, i)); r.Status != result.StatusWaiting {
				b.Fatalf("suspension %d: %+v", i, r)
			}
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		perRun = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
		rt.Close()
		b.StartTimer()
	}
	b.ReportMetric(perRun, "heap-bytes/suspended-run")
}
