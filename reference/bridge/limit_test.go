package bridge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/spec/config"
)

// TestBridgeLimit pins the bound of CM-LIM-07: a quarter of memoryLimitBytes,
// in both directions, with the code the guest's rejection carries.
func TestBridgeLimit(t *testing.T) {
	cfg := config.Config{MemoryLimitBytes: 4096}
	at := json.RawMessage(`"` + strings.Repeat("x", 1022) + `"`) // 1024 bytes of JSON: at the bound
	over := json.RawMessage(`"` + strings.Repeat("x", 1023) + `"`)
	if _, bad := CheckInput(1, at, cfg); bad {
		t.Error("an input of exactly the bound was refused")
	}
	if _, bad := oversizedResult(1, at, cfg); bad {
		t.Error("a result of exactly the bound was refused")
	}
	for name, f := range map[string]func() (string, bool){
		"invalid_input":      func() (string, bool) { d, bad := CheckInput(7, over, cfg); return string(d.Error), bad },
		"nested_tool_failed": func() (string, bool) { d, bad := oversizedResult(7, over, cfg); return string(d.Error), bad },
	} {
		e, bad := f()
		if !bad {
			t.Errorf("%s: a value one byte over the bound was let through", name)
			continue
		}
		var got struct{ Name, Code, Message string }
		if err := json.Unmarshal([]byte(e), &got); err != nil || got.Name != "ToolError" || got.Code != name || !strings.Contains(got.Message, "1025 bytes") {
			t.Errorf("%s: rejection %s (err %v), want a ToolError with code %s naming the size", name, e, err, name)
		}
	}
}
