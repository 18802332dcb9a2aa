package broken

import (
	"context"
	"io"
	"sync"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
)

// uncapped is the one engine of the process with QuickJS's own BigInt size
// cap (engine.WithoutBigIntCap), made on first use.
var uncapped struct {
	once sync.Once
	eng  *engine.Engine
	err  error
}

// uncappedBigInts serves the reference on an engine whose BigInts reach
// QuickJS-NG's own 2^20 bits, as the reference did before issue 25 item 3:
// one quadratic BigInt operation is then a native call of seconds that no
// deadline stops and that holds up every GC, so every other run of the
// process with it.
func uncappedBigInts(ctx context.Context, _ *engine.Engine, r io.Reader, w io.WriteCloser) error {
	uncapped.once.Do(func() {
		uncapped.eng, uncapped.err = engine.New(context.Background(), engine.WithoutBigIntCap())
	})
	if uncapped.err != nil {
		return uncapped.err
	}
	return server.Serve(ctx, r, w, server.Options{Engine: uncapped.eng})
}
