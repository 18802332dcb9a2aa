package broken

import (
	"context"
	"io"
	"runtime"
	"sync"
	"time"

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

// collectEvery is how often the variant's process collects garbage, as a
// host that allocates steadily does.
const collectEvery = 200 * time.Millisecond

// uncappedBigInts serves the reference on an engine whose BigInts reach
// QuickJS-NG's own 2^20 bits, as the reference did before issue 25 item 3:
// one quadratic BigInt operation is then a native call of seconds that no
// deadline stops and that holds up every GC, so every other run of the
// process with it. The process collects every collectEvery: left to the
// pacer, a GC falls inside the native call only when the other runs
// allocate the heap's size meanwhile (about 150 MiB here), which a loaded
// machine often does not, so the spec caught the variant only by luck
// (CI, 2026-12-02).
func uncappedBigInts(ctx context.Context, _ *engine.Engine, r io.Reader, w io.WriteCloser) error {
	uncapped.once.Do(func() {
		uncapped.eng, uncapped.err = engine.New(context.Background(), engine.WithoutBigIntCap())
		go func() {
			for range time.Tick(collectEvery) {
				runtime.GC()
			}
		}()
	})
	if uncapped.err != nil {
		return uncapped.err
	}
	return server.Serve(ctx, r, w, server.Options{Engine: uncapped.eng})
}
