package framework

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// The framework's own tests cannot import package targets (it imports the
// framework), so they install this opener for exec: command lines only.
func init() { UseTargets(execOnly) }

func execOnly(_ context.Context, spec string) (Endpoint, error) {
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
	closed := 0
	UseTargets(func(context.Context, string) (Endpoint, error) {
		return Endpoint{Command: "exit 3", Close: func() error { closed++; return nil }}, nil
	})
	defer UseTargets(execOnly)
	if _, err := Connect(context.Background(), "x"); err == nil || closed != 1 {
		t.Fatalf("a target that exits at once: err %v, Close ran %d times; want an error and Close once", err, closed)
	}
}
