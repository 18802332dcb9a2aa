package broken

import (
	"context"
	"io"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
)

// Conforming is a variant of the reference that behaves differently from it
// where the contract leaves a choice open, and conforms: it must pass every
// requirement the reference passes, under the profile it serves. Such
// a target proves that the specs do not judge the reference's own choice
// (tools/codemode-conformance's eager_test.go). It is the target
// fake:<Name>, registered by targets/builtin.
type Conforming struct {
	Name string
	// Help says what it does differently, for `list fakes`.
	Help string
	// Profile, when set, is the one profile it conforms to and serves,
	// whatever the run asks (a run judging another one gets a target
	// error: the target declares this profile); "" serves the one the run
	// judges.
	Profile string
	// Serve serves it under profile ("" is v1) on r/w.
	Serve func(ctx context.Context, eng *engine.Engine, profile string, r io.Reader, w io.WriteCloser) error
}

// ConformingVariants lists every conforming variant.
var ConformingVariants = []Conforming{
	// v1 only: 000 lets a cell suspend at every call (OpenClaw 2026.7.35
	// does), but 001's bridge queue requires fast calls, queued ones
	// included, to complete within the same exec (CM-NEST-15), which a
	// target suspending at every pending call does not do.
	{Name: "eager", Profile: "v1", Help: "conforms under v1: the reference suspending a cell as soon as a tools.call is pending and nothing has settled, in exec and in every wait (spec/protocol.md §10, \"MAY suspend earlier\"; bridge calls still drain, CM-EXEC-15): a wait per call at least, and a wait that returns at once while its call is still pending",
		Serve: func(ctx context.Context, eng *engine.Engine, profile string, r io.Reader, w io.WriteCloser) error {
			return server.Serve(ctx, r, w, server.Options{Engine: eng, Runtime: codemode.Options{Profile: profile, SuspendEagerly: true}})
		}},
}
