package targets

import (
	"context"
	"strings"
	"time"

	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/targets/container"
)

// containerGrace is how long a container: target gets to exit after its
// stop signal once it answered shutdown; an abandoned one is killed at once.
const containerGrace = 5 * time.Second

// openContainer starts a container:<image> target (targets/container) with
// the canary in its environment and its output as the target's logs; the
// harness speaks the protocol to its published port over TCP. Close stops
// and removes the container.
func openContainer(ctx context.Context, spec string, o framework.OpenOptions) (framework.Endpoint, error) {
	c, err := container.Start(ctx, container.Options{
		Image: strings.TrimPrefix(spec, container.Prefix),
		Env:   map[string]string{framework.CanaryEnv: o.Canary},
		Logs:  o.Logs,
	})
	if err != nil {
		return framework.Endpoint{}, err
	}
	return framework.Endpoint{Address: c.Addr(), Canary: o.Canary, Close: func(graceful bool) error {
		if graceful {
			return c.Stop(containerGrace)
		}
		return c.Stop(0)
	}}, nil
}
