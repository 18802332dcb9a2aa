package broken

import (
	"context"
	"io"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
)

// The false passes of issue 23 item 4: each variant passed the spec of its
// requirement before that spec was narrowed to its own property and made to
// check it.
func init() {
	Variants = append(Variants,
		Variant{Name: "complete-undelivered", Breaks: "CM-EXEC-06", Spec: "completed only once no guest work is pending",
			Defect: "a cell whose value is determined completes once the harness answered its nested calls, without delivering the answers: the guest's continuations of those calls never run",
			Serve:  withDefectsV1(codemode.Defects{CompleteUndelivered: true})},
		Variant{Name: "never-settled-timeout", Breaks: "CM-EXEC-07",
			Defect: "a cell whose promise can never settle (no host work pending) is not detected: it runs out timeoutMs and fails with timeout",
			Serve:  withDefectsV1(codemode.Defects{NeverSettledTimeout: true})},
	)
}

// withDefectsV1 serves the reference under v1 with the defects d.
func withDefectsV1(d codemode.Defects) serveFunc {
	return func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
		return server.Serve(ctx, r, w, server.Options{Engine: eng, Runtime: codemode.Options{Defects: d}})
	}
}
