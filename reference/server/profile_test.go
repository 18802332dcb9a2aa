package server

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/google/go-cmp/cmp"
)

// TestInitializeDeclaresTheProfile: the declared profile and features come
// from codemode.Options.Profile (protocol.md §3, §9), never a fixed list.
func TestInitializeDeclaresTheProfile(t *testing.T) {
	for _, c := range []struct {
		profile, want string
		has, hasNot   []string
	}{
		{"", "v1", []string{"core", "typescript", "pending-call-limit", "snapshot-executor", "isolation", "fault-injection"}, []string{"javascript-only", "run-lifecycle-messages", "direct-only-tools"}},
		{"v2", "v2", []string{"core", "javascript-only", "run-lifecycle-messages", "direct-only-tools", "snapshot-executor"}, []string{"typescript", "pending-call-limit"}},
	} {
		hr, tw := io.Pipe()
		tr, hw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- Serve(context.Background(), tr, tw, Options{Unavailable: true, Runtime: codemode.Options{Profile: c.profile}})
		}()
		cl := protocol.NewClient(protocol.NewChannel(hr, hw), nil, nil, nil)
		var res protocol.InitializeResult
		if err := cl.CallResult(context.Background(), protocol.MethodInitialize, protocol.InitializeParams{ProtocolVersion: protocol.Version}, &res); err != nil {
			t.Fatalf("profile %q: initialize: %v", c.profile, err)
		}
		cl.Close()
		hw.Close()
		<-done
		if res.Profile != c.want {
			t.Errorf("profile %q: initialize declares profile %q, want %q", c.profile, res.Profile, c.want)
		}
		for _, f := range c.has {
			if !slices.Contains(res.Features, f) {
				t.Errorf("profile %q: features %v lack %s", c.profile, res.Features, f)
			}
		}
		for _, f := range c.hasNot {
			if slices.Contains(res.Features, f) {
				t.Errorf("profile %q: features %v hold %s", c.profile, res.Features, f)
			}
		}
		if err := spec.CheckFeatureSet(res.Profile, res.Features); err != nil {
			t.Errorf("profile %q: the declaration breaks protocol.md §9: %v", c.profile, err)
		}
	}
}

func TestServeRefusesAnUnknownProfile(t *testing.T) {
	_, tw := io.Pipe()
	tr, _ := io.Pipe()
	err := Serve(context.Background(), tr, tw, Options{Unavailable: true, Runtime: codemode.Options{Profile: "v3"}})
	if !errors.Is(err, spec.ErrUnknownProfile) {
		t.Errorf("Serve with profile v3 = %v, want spec.ErrUnknownProfile", err)
	}
}

// TestImplementedAreFeatures: every name of codemode.Implemented is a
// feature of requirements.yaml (a typo would silently never be declared).
func TestImplementedAreFeatures(t *testing.T) {
	if err := spec.CheckFeatures(codemode.Implemented); err != nil {
		t.Error(err)
	}
	if d := cmp.Diff(codemode.Options{}.Features(), codemode.Options{Profile: "v1"}.Features()); d != "" {
		t.Errorf("the default profile is not v1 (-default +v1):\n%s", d)
	}
}
