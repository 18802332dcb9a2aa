package framework

import (
	"context"
	"io"
	"sync"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
)

var (
	engOnce sync.Once
	eng     *engine.Engine
	engErr  error
)

// SharedEngine is the process-wide QuickJS engine used by in-process targets
// (compiled once: compilation is the expensive part).
func SharedEngine() (*engine.Engine, error) {
	engOnce.Do(func() { eng, engErr = engine.New(context.Background()) })
	return eng, engErr
}

func init() {
	// builtin: the reference runtime in process, spoken to through the same
	// protocol codec as every other target.
	RegisterTarget("builtin", func(ctx context.Context, r io.Reader, w io.WriteCloser) error {
		e, err := SharedEngine()
		if err != nil {
			return server.Serve(ctx, r, w, server.Options{Unavailable: true})
		}
		return server.Serve(ctx, r, w, server.Options{Engine: e})
	})
}
