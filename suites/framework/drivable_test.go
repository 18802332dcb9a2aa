package framework

import (
	"testing"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

func TestNotDrivableMatchesSurfaceOrRequirement(t *testing.T) {
	tgtMu.Lock()
	old := lastInit
	lastInit = protocol.InitializeResult{NotDrivable: []protocol.NotDrivable{
		{Surface: protocol.SurfaceStats, Reason: "no counters"},
		{Requirement: "CM-RUN-05", Reason: "no cap"},
	}}
	tgtMu.Unlock()
	defer func() { tgtMu.Lock(); lastInit = old; tgtMu.Unlock() }()
	for _, c := range []struct{ surface, id, want string }{
		{protocol.SurfaceStats, "", "runtime.stats: no counters"},
		{"", "CM-RUN-05", "CM-RUN-05: no cap"},
		{protocol.SurfacePolicy, "CM-RUN-01", ""},
	} {
		if got := notDrivable(c.surface, c.id); got != c.want {
			t.Errorf("notDrivable(%q, %q) = %q, want %q", c.surface, c.id, got, c.want)
		}
	}
}
