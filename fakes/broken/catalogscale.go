package broken

import (
	"context"
	"io"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
)

// The catalog-in-vm variant: the reference as it was before issue 28 N3,
// copying the run's whole guest catalog into every cell's VM
// (codemode.Defects.CatalogInVM), so VMs and snapshots grow with the
// catalog. CM-CAT-08's 10,000-tool run is accepted, and then its cells
// outgrow the default limits (memory, or maxSnapshotBytes at the
// suspension).
func init() {
	Variants = append(Variants, Variant{Name: "catalog-in-vm", Breaks: "CM-CAT-08",
		Defect: "the run's whole catalog is copied into every cell's VM, so a 10,000-tool catalog is accepted and then its cells or suspensions exceed the default limits",
		Serve: func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
			return server.Serve(ctx, r, w, server.Options{Engine: eng, Runtime: codemode.Options{Defects: codemode.Defects{CatalogInVM: true}}})
		}})
}
