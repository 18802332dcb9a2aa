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
// requirement the reference passes, under the profile the run judges. Such
// a target proves that the specs do not judge the reference's own choice
// (tools/codemode-conformance's eager_test.go). It is the target
// fake:<Name>, registered by targets/builtin.
type Conforming struct {
	Name string
	// Help says what it does differently, for `list fakes`.
	Help string
	// Serve serves it under profile ("" is v1) on r/w.
	Serve func(ctx context.Context, eng *engine.Engine, profile string, r io.Reader, w io.WriteCloser) error
}

// ConformingVariants lists every conforming variant.
var ConformingVariants = []Conforming{
	{Name: "eager", Help: "conforms: the reference suspending a cell as soon as a nested call is pending and nothing has settled, in exec and in every wait (spec/protocol.md §10, \"MAY suspend earlier\"): one wait per nested call at least, and a wait that returns at once while its call is still pending",
		Serve: func(ctx context.Context, eng *engine.Engine, profile string, r io.Reader, w io.WriteCloser) error {
			return server.Serve(ctx, r, w, server.Options{Engine: eng, Runtime: codemode.Options{Profile: profile, SuspendEagerly: true}})
		}},
}
