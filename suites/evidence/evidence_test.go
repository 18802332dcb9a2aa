package evidence_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/google/go-cmp/cmp"
	"github.com/onsi/ginkgo/v2/types"
)

// A response is kept byte for byte (no HTML escapes added); one over
// MaxPart keeps its shape with its long strings cut, so readers can still
// decode it.
func TestExchangeKeepsTheTargetsBytesAndBoundsThem(t *testing.T) {
	raw := json.RawMessage(`{"status":"completed","value":"<b>&"}`)
	e := evidence.NewExchange("tool.exec", map[string]any{"input": map[string]any{"code": "return '<b>'"}}, raw, nil)
	if e.Response != string(raw) || !strings.Contains(e.Request, "return '<b>'") || e.Cut {
		t.Errorf("exchange %+v: want the response as sent and the request without escapes", e)
	}
	big := evidence.NewExchange("tool.exec", nil, map[string]any{"status": "failed", "output": strings.Repeat("y", 2*evidence.MaxPart)}, nil)
	var res struct{ Status, Output string }
	if err := json.Unmarshal([]byte(big.Response), &res); err != nil || res.Status != "failed" || !big.Cut || len(big.Response) > evidence.MaxPart {
		t.Errorf("an over-long response must stay JSON under MaxPart with Cut set: cut %t, %d bytes, %v", big.Cut, len(big.Response), err)
	}
	failed := evidence.NewExchange("run.end", map[string]any{"run": "r"}, nil, errors.New("connection closed"))
	if failed.Error != "connection closed" || failed.Response != "" {
		t.Errorf("a protocol error replaces the response: %+v", failed)
	}
}

// People read a transcript as arrows; reports decode it from the entry,
// live or from report.json.
func TestTranscriptStringAndDecode(t *testing.T) {
	tr := evidence.Transcript{Run: "run-1",
		Exchanges:   []evidence.Exchange{evidence.NewExchange("run.end", map[string]any{"run": "run-1"}, json.RawMessage(`{}`), nil)},
		Invocations: []evidence.Invocation{{Tool: "echo", ToolCallID: "n1", Params: `{"tool":"echo"}`}},
		Refused:     []string{"[CM-NEST-01] forged"}}
	want := "→ run.end\n  {\n    \"run\": \"run-1\"\n  }\n← {}\n↺ tool.invoke {\"tool\":\"echo\"}\n⊘ [CM-NEST-01] forged"
	if d := cmp.Diff(want, tr.String()); d != "" {
		t.Errorf("String (-want +got):\n%s", d)
	}
	live := types.WrapEntryValue(tr)
	js, err := json.Marshal(live)
	if err != nil {
		t.Fatal(err)
	}
	var stored types.ReportEntryValue
	if err := json.Unmarshal(js, &stored); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]types.ReportEntryValue{"live": live, "from report.json": stored} {
		var got evidence.Transcript
		if err := evidence.Decode(v, &got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d := cmp.Diff(tr, got); d != "" {
			t.Errorf("%s: decoded transcript (-want +got):\n%s", name, d)
		}
	}
}
