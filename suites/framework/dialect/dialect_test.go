package dialect

import (
	"strings"
	"testing"
)

// Every profile's dialect renders to one line that defines the helpers the
// suites call, and keeps no comment (a "//" would swallow the rest of the
// line, and with it the cell).
func TestPreludeIsOneLineWithEveryHelper(t *testing.T) {
	for _, p := range Profiles {
		pre := Prelude(p)
		if strings.Contains(pre, "\n") {
			t.Errorf("%s: the rendered dialect spans lines", p)
		}
		if strings.Contains(pre, "//") {
			t.Errorf("%s: the rendered dialect keeps a // comment: %s", p, pre)
		}
		for _, h := range []string{"id", "callValue", "dispatch", "call", "search", "describe", "listTools"} {
			if !strings.Contains(pre, "const "+h+" = ") {
				t.Errorf("%s: the dialect does not define %s", p, h)
			}
		}
	}
}

func TestBlockedBy(t *testing.T) {
	req, what, ok := BlockedBy("Error: codemode-dialect: blocked by CM-TS-06: the cell has no catalog global with catalog.all() (page 001)\n    at call")
	if !ok || req != "CM-TS-06" || !strings.HasPrefix(what, "the cell has no catalog global") {
		t.Errorf("BlockedBy = %q, %q, %v", req, what, ok)
	}
	if _, _, ok := BlockedBy("ReferenceError: tools is not defined"); ok {
		t.Error("a plain ReferenceError is no dialect precondition")
	}
}
