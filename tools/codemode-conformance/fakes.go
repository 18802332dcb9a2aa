package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/codemode-conformance/codemode/fakes/broken"
	"github.com/codemode-conformance/codemode/reference/server"
	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/targets/container"
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

func variantNames() []string {
	var out []string
	for _, v := range broken.Variants {
		out = append(out, v.Name)
	}
	return out
}

// checkTarget rejects a target spec that cannot name anything, before any
// suite starts.
func checkTarget(t string) error {
	switch {
	case strings.HasPrefix(t, "exec:") && strings.TrimSpace(t[5:]) != "",
		strings.HasPrefix(t, "tcp:") && strings.Contains(t[4:], ":"),
		strings.HasPrefix(t, container.Prefix) && strings.TrimSpace(t[len(container.Prefix):]) != "",
		framework.HasTarget(t), framework.HasResolver(t):
		return nil
	}
	return fmt.Errorf("unknown target %q: want builtin, exec:<command line>, tcp:<host:port>, container:<image>, openclaw:<version> or fake:<variant> (%s)", t, strings.Join(variantNames(), ", "))
}
