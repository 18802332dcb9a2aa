package server

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/creachadair/jrpc2"
)

// TestTrajectoryViews: run.trajectory's activity and replay views (§4.2)
// are served under v2 (nested-activity) and refused with -32602 under v1,
// as is an unknown view under either; view calls works under both.
func TestTrajectoryViews(t *testing.T) {
	for _, c := range []struct {
		profile, view string
		wantErr       bool
	}{
		{"v1", "", false}, {"v1", protocol.TrajectoryViewCalls, false},
		{"v1", protocol.TrajectoryViewActivity, true}, {"v1", protocol.TrajectoryViewReplay, true},
		{"v2", protocol.TrajectoryViewActivity, false}, {"v2", protocol.TrajectoryViewReplay, false},
		{"v2", "transcript", true},
	} {
		hr, tw := io.Pipe()
		tr, hw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- Serve(context.Background(), tr, tw, Options{Unavailable: true, Runtime: codemode.Options{Profile: c.profile}})
		}()
		cl := protocol.NewClient(protocol.NewChannel(hr, hw), nil, nil, nil)
		ctx := context.Background()
		prep := protocol.PrepareParams{Run: "r", RunContext: protocol.RunContext{AgentID: "a", SessionID: "s", SessionKey: "k", SenderID: "u", Channel: "c"}, Tools: []protocol.ToolSpec{}}
		if err := cl.CallResult(ctx, protocol.MethodRunPrepare, prep, new(protocol.PrepareResult)); err != nil {
			t.Fatalf("run.prepare: %v", err)
		}
		var res protocol.TrajectoryResult
		err := cl.CallResult(ctx, protocol.MethodRunTrajectory, protocol.TrajectoryParams{Run: "r", View: c.view}, &res)
		var je *jrpc2.Error
		switch {
		case c.wantErr && (!errors.As(err, &je) || je.Code != jrpc2.InvalidParams):
			t.Errorf("profile %s, view %q: got %v, want -32602", c.profile, c.view, err)
		case !c.wantErr && err != nil:
			t.Errorf("profile %s, view %q: %v", c.profile, c.view, err)
		case !c.wantErr && (res.Run != "r" || res.Calls == nil):
			t.Errorf("profile %s, view %q: got %+v, want the run and a non-null calls", c.profile, c.view, res)
		}
		cl.Close()
		hw.Close()
		<-done
	}
}
