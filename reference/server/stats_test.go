package server

import (
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/onsi/gomega"
)

// runtime.stats reports the run slots of the process: with one slot and two
// spinning cells, one VM executes guest code and the other waits for the
// slot; once both cells ended at their deadline, neither.
func TestStatsReportRunSlots(t *testing.T) {
	g := gomega.NewWithT(t)
	engine.SetMaxRunning(1)
	t.Cleanup(func() { engine.SetMaxRunning(0) })
	s := newLineSession(t)
	var invokes []map[string]any
	s.call(1, "initialize", map[string]any{"protocolVersion": "1"}, &invokes)
	for i, run := range []string{"S1", "S2"} {
		r := s.call(10+i, "run.prepare", map[string]any{"run": run, "agentId": "a", "sessionId": "s", "sessionKey": "k", "senderId": "x", "channel": "c",
			"codeMode": map[string]any{"enabled": true, "timeoutMs": 3000},
			"tools":    []any{map[string]any{"name": "unused", "description": "never called", "source": "openclaw", "owner": "core"}}}, &invokes)
		g.Expect(r["result"]).To(gomega.HaveKeyWithValue("codeModeActive", true), "run.prepare %s: %v", run, r)
	}
	for i, run := range []string{"S1", "S2"} {
		s.send(map[string]any{"jsonrpc": "2.0", "id": 20 + i, "method": "tool.exec", "params": map[string]any{"run": run, "toolCallId": "c" + run, "input": map[string]any{"code": `for (;;) {}`}}})
	}
	// stats sends runtime.stats and returns its result; the answers of the
	// two cells may arrive on the way.
	id, ended := 100, 0
	stats := func() map[string]any {
		id++
		s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "runtime.stats"})
		for m := range s.lines {
			switch m["id"] {
			case float64(id):
				res, _ := m["result"].(map[string]any)
				return res
			case float64(20), float64(21):
				ended++
			}
		}
		t.Fatal("the target closed the session")
		return nil
	}
	g.Eventually(stats).WithTimeout(2*time.Second).WithPolling(10*time.Millisecond).Should(gomega.And(
		gomega.HaveKeyWithValue("runningVMs", 1.0), gomega.HaveKeyWithValue("waitingVMs", 1.0)),
		"with one run slot and two spinning cells, one VM runs and one waits")
	g.Eventually(func() int { stats(); return ended }).WithTimeout(10*time.Second).WithPolling(50*time.Millisecond).Should(gomega.Equal(2), "both cells end at their deadline")
	g.Expect(stats()).NotTo(gomega.Or(gomega.HaveKey("runningVMs"), gomega.HaveKey("waitingVMs")), "no VM runs or waits once the cells ended (0 is left out)")
}
