package framework

import (
	"testing"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// TestPrepareOwner: a refused run.prepare is charged to the config
// requirement that owns it (verdict audit A1).
func TestPrepareOwner(t *testing.T) {
	inv := &protocol.Failure{Code: "invalid_config"}
	for _, c := range []struct {
		cm   any
		f    *protocol.Failure
		want string
	}{
		{map[string]any{"enabled": true, "languages": []string{"javascript"}}, inv, "CM-CFG-06"},
		{map[string]any{"enabled": true, "maxPendingToolCalls": "many"}, inv, "CM-CFG-05"},
		{true, inv, "CM-CFG-06"},
		{true, &protocol.Failure{Code: "runtime_unavailable"}, "CM-CFG-07"},
	} {
		if got := prepareOwner(c.cm, c.f); got != c.want {
			t.Errorf("prepareOwner(%v, %v) = %s, want %s", c.cm, c.f, got, c.want)
		}
	}
}
