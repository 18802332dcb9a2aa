package framework

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// The framework's own tests cannot import package targets (it imports the
// framework), so they install this opener for exec: command lines only.
func init() { UseTargets(execOnly) }

func execOnly(_ context.Context, spec string, _ OpenOptions) (Endpoint, error) {
	if cmd, ok := strings.CutPrefix(spec, "exec:"); ok {
		return Endpoint{Command: cmd}, nil
	}
	return Endpoint{}, errors.New("the framework tests know exec: targets only")
}

// The registry's errors name the target; an endpoint's Close runs when the
// connection fails as when it closes.
func TestConnectThroughTheOpener(t *testing.T) {
	withInitializeTimeout(t, time.Second)
	if _, err := Connect(context.Background(), "nope:1"); err == nil || !strings.Contains(err.Error(), `target "nope:1": the framework tests know exec: targets only`) {
		t.Fatalf("Connect with an unknown spec = %v; want the target and the registry's error", err)
	}
	var closed []bool
	var given OpenOptions
	UseTargets(func(_ context.Context, _ string, o OpenOptions) (Endpoint, error) {
		given = o
		return Endpoint{Command: "echo starting >&2; exit 3", Close: func(graceful bool) error { closed = append(closed, graceful); return nil }}, nil
	})
	defer UseTargets(execOnly)
	_, err := Connect(context.Background(), "x")
	if err == nil || len(closed) != 1 {
		t.Fatalf("a target that exits at once: err %v, Close ran %d times; want an error and Close once", err, len(closed))
	}
	if !strings.HasPrefix(given.Canary, "canary-") || given.Logs == nil {
		t.Errorf("the opener must get a fresh canary and a writer for the target's output, got %+v", given)
	}
	if !strings.Contains(err.Error(), "target stderr:\nstarting") {
		t.Errorf("the target's output must be quoted in the error, got %v", err)
	}
}

// KillTargets abandons every target a registry started (Close(false)), once.
func TestKillTargetsAbandonsEndpoints(t *testing.T) {
	var closed []bool
	tg, err := dial("x", Endpoint{Serve: func(ctx context.Context, r io.Reader, w io.WriteCloser) error {
		_, _ = io.Copy(io.Discard, r)
		return w.Close()
	},
		Close: func(graceful bool) error { closed = append(closed, graceful); return nil }}, &syncBuffer{})
	if err != nil {
		t.Fatal(err)
	}
	abandonEndpoints()
	_ = tg.stop(true)
	if len(closed) != 1 || closed[0] {
		t.Errorf("Close calls %v; want one, not graceful", closed)
	}
}
