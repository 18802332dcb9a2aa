package framework

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

func TestResolversTurnASpecIntoAnExecTarget(t *testing.T) {
	RegisterResolver("testres:", func(_ context.Context, spec string, _ io.Writer) (string, error) {
		if spec == "testres:bad" {
			return "", errors.New("no such version")
		}
		return "echo " + strings.TrimPrefix(spec, "testres:"), nil
	})
	if !HasResolver("testres:1") || HasResolver("exec:true") || !HasResolver("openclaw:2026.7.35") {
		t.Fatal("HasResolver: want testres: and openclaw: resolvable, exec: not")
	}
	got, err := ResolveTarget(context.Background(), "testres:1")
	if err != nil || got != "exec:echo 1" {
		t.Fatalf("ResolveTarget = %q, %v; want exec:echo 1", got, err)
	}
	if got, _ := ResolveTarget(context.Background(), "tcp:127.0.0.1:1"); got != "tcp:127.0.0.1:1" {
		t.Fatalf("a spec without a resolver must stay unchanged, got %q", got)
	}
	if _, err := Connect(context.Background(), "testres:bad"); err == nil || !strings.Contains(err.Error(), `target "testres:bad": no such version`) {
		t.Fatalf("Connect with a failing resolver = %v; want the target and the resolver's error", err)
	}
}

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
