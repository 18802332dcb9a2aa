package trajectory

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// TestTrajectoryAnswerBounded: calls with ids and inputs at their bounds
// (and a direct-call id over them) never make a run.trajectory answer
// outgrow the 16 MiB message bound: the trajectory stops recording and says
// truncated (findings 4 and 5 of the adversarial pass).
func TestTrajectoryAnswerBounded(t *testing.T) {
	var tr Log
	id := strings.Repeat("i", MaxCallIDBytes)
	input, _ := json.Marshal(map[string]string{"pad": strings.Repeat("x", MaxInput-20)})
	for i := 0; i < MaxCalls; i++ {
		tr.Add(protocol.TrajectoryCall{ToolCallID: fmt.Sprint(i, id), ParentToolCallID: id, AssistantResponseID: id, Tool: "exec", Input: input, Status: "running"})
	}
	tr.Add(protocol.TrajectoryCall{ToolCallID: strings.Repeat("x", 1<<20), Tool: "direct"})
	for i := 0; i < MaxCalls; i++ {
		_ = tr.AddEntry(protocol.StoreEntry{Type: "openclaw.code-mode-store", ToolCallID: id, Sets: map[string]json.RawMessage{"k": json.RawMessage(fmt.Sprintf("%q", strings.Repeat("v", 2000)))}, Deletes: []string{}})
	}
	res := tr.Snapshot("r")
	b, _ := json.Marshal(res)
	if len(b) > 16<<20 || !res.Truncated {
		t.Fatalf("run.trajectory answer: %d bytes, truncated %v; want at most 16 MiB and truncated", len(b), res.Truncated)
	}
	for _, c := range res.Calls {
		if len(c.ToolCallID) > MaxCallIDBytes+200 {
			t.Fatalf("a call id of %d bytes was kept", len(c.ToolCallID))
		}
	}
}
