package codemode

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/onsi/gomega"
)

// An expired snapshot is deleted on a timer, without any further request:
// an idle session does not keep up to 64 snapshots in memory until its next
// stats, exec or wait (issue 11; CM-RUN-02, CM-RUN-03).
func TestExpiredSnapshotsAreSweptWithoutARequest(t *testing.T) {
	g := gomega.NewWithT(t)
	eng := testEngine(t)
	adm := NewAdmission(Limits{})
	// The clock stands still while the cells park (a slow machine must not
	// expire the first before the last is parked) and moves on after.
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()) }
	rt := sessionRuntime(t, eng, echoInvoker{}, Options{Admission: adm, Now: now}, `{"enabled":true,"snapshotTtlSeconds":1}`)
	held := func() (cells int, heap uint64) {
		rt.mu.Lock() // read the cells directly: Stats would sweep
		cells = len(rt.cells)
		rt.mu.Unlock()
		// Twice: what earlier tests of the process left to finalizers
		// (closed engines, instances) is freed only by the second.
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return cells, m.HeapAlloc
	}
	_, base := held()
	const code = `const pad = new Uint8Array(8 << 20).fill(1); await yield_control("idle"); return pad[0];`
	for range 3 {
		if w := execIn(t, rt, code); w.Status != result.StatusWaiting {
			t.Fatalf("exec: %+v, want waiting", w)
		}
	}
	cells, heap := held()
	g.Expect(cells).To(gomega.Equal(3), "three cells wait in snapshots")
	g.Expect(heap).To(gomega.BeNumerically(">", base+20<<20), "three 8 MiB snapshots are on the heap")
	clock.Add(int64(2 * time.Second)) // past snapshotTtlSeconds
	g.Eventually(func() int { c, _ := held(); return c }).WithTimeout(5*time.Second).WithPolling(100*time.Millisecond).
		Should(gomega.Equal(0), "the expired cells must be deleted within about snapshotTtlSeconds (1 s) with no request")
	g.Eventually(func() uint64 { _, h := held(); return h }).WithTimeout(5*time.Second).
		Should(gomega.BeNumerically("<", base+8<<20), "the snapshots' memory must be released")
	g.Expect(adm.suspended).To(gomega.Equal(0), "the process's suspended-run count is back to zero")
}
