// Package builtin registers the in-process targets, which link the
// reference implementation: "builtin" (the reference runtime) and
// "fake:<variant>" (each deliberately broken variant of fakes/broken, and
// the hostile-strings targets of fakes/hostile).
// Import it for its side effect, next to the suites:
//
//	import _ "github.com/codemode-conformance/codemode/targets/builtin"
//
// The suites themselves never import it, so an implementer's test binary
// does not carry wazero, QuickJS or esbuild unless it asks for builtin.
package builtin

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/codemode-conformance/codemode/fakes/broken"
	"github.com/codemode-conformance/codemode/fakes/hostile"
	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/targets"
)

var (
	engOnce sync.Once
	eng     *engine.Engine
	engErr  error
)

// SharedEngine is the process-wide QuickJS engine of the in-process targets
// (compiled once: compilation is the expensive part).
func SharedEngine() (*engine.Engine, error) {
	engOnce.Do(func() {
		eng, engErr = engine.New(context.Background())
		if engErr != nil {
			// Every cell will fail runtime_unavailable: say why at once.
			fmt.Fprintf(os.Stderr, "codemode-conformance: the embedded reference cannot run, its cells fail closed: %v\n", engErr)
		}
	})
	return eng, engErr
}

// Serve serves the reference runtime on r/w with the shared engine, under
// the profile the run judges (framework.RequestedProfile, default v1), or,
// if the engine cannot be built, a runtime that answers every cell
// runtime_unavailable (fail closed, CM-CFG-07).
func Serve(ctx context.Context, r io.Reader, w io.WriteCloser) error {
	p := framework.RequestedProfile()
	e, err := SharedEngine()
	if err != nil {
		return server.Serve(ctx, r, w, server.Options{Unavailable: true, Runtime: codemode.Options{UnavailableCause: err, Profile: p}})
	}
	return server.Serve(ctx, r, w, server.Options{Engine: e, Runtime: codemode.Options{Profile: p}})
}

// ServeContinuation is Serve with live continuations instead of snapshots
// (codemode.ContinuationSuspender; spec/protocol.md §8, "Targets without
// snapshots"): the reference as a target that does not declare
// snapshot-executor and conforms otherwise.
func ServeContinuation(ctx context.Context, r io.Reader, w io.WriteCloser) error {
	e, err := SharedEngine()
	if err != nil {
		return server.Serve(ctx, r, w, server.Options{Unavailable: true, Runtime: codemode.Options{UnavailableCause: err, Profile: framework.RequestedProfile()}})
	}
	return server.Serve(ctx, r, w, server.Options{Engine: e, Runtime: codemode.Options{Profile: framework.RequestedProfile(), Suspender: codemode.ContinuationSuspender{}, DrainFraction: 1}})
}

func init() {
	targets.Register("builtin:continuation", "the reference keeping live continuations instead of snapshots (no snapshot-executor; spec/protocol.md §8), in process", ServeContinuation)
	targets.Register("builtin", "the reference runtime, in process (default); serves the profile the run judges (run or case --profile; v1 without it)", Serve)
	for _, v := range broken.Variants {
		targets.Register("fake:"+v.Name, v.Defect, func(ctx context.Context, r io.Reader, w io.WriteCloser) error {
			e, err := SharedEngine()
			if err != nil {
				return server.Serve(ctx, r, w, server.Options{Unavailable: true, Runtime: codemode.Options{UnavailableCause: err}})
			}
			return v.Serve(ctx, e, r, w)
		})
	}
	for _, c := range broken.ConformingVariants {
		targets.Register("fake:"+c.Name, c.Help, func(ctx context.Context, r io.Reader, w io.WriteCloser) error {
			p := framework.RequestedProfile()
			if c.Profile != "" {
				p = c.Profile
			}
			e, err := SharedEngine()
			if err != nil {
				return server.Serve(ctx, r, w, server.Options{Unavailable: true, Runtime: codemode.Options{UnavailableCause: err, Profile: p}})
			}
			return c.Serve(ctx, e, p, r, w)
		})
	}
	for _, h := range hostile.Targets {
		targets.Register("fake:"+h.Name, h.Help, func(ctx context.Context, r io.Reader, w io.WriteCloser) error {
			defer w.Close()
			return hostile.Serve(ctx, r, w, h.Modes)
		})
	}
}
