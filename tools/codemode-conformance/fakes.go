package main

import (
	"context"
	"io"

	"github.com/codemode-conformance/codemode/fakes/broken"
	"github.com/codemode-conformance/codemode/reference/server"
	"github.com/codemode-conformance/codemode/suites/framework"
)

// The broken reference variants are targets too (fake:<name>), so that anyone
// can watch the suite catch them.
func init() {
	for _, v := range broken.Variants {
		v := v
		framework.RegisterTarget("fake:"+v.Name, func(ctx context.Context, r io.Reader, w io.WriteCloser) error {
			eng, err := framework.SharedEngine()
			if err != nil {
				return server.Serve(ctx, r, w, server.Options{Unavailable: true})
			}
			return v.Serve(ctx, eng, r, w)
		})
	}
}
