package framework

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/codemode-conformance/codemode/targets/container"
)

// containerGrace is how long a container target gets to exit after its stop
// signal once it answered shutdown; an abandoned one is killed at once.
const containerGrace = 5 * time.Second

// connectContainer starts a container:<image> target (targets/container)
// and connects to its protocol port over TCP, as for a tcp: target. Closing
// the target closes the connection, then stops and removes the container;
// the container's output is the target's stderr, and its environment holds
// CanaryEnv as an exec: target's does.
func connectContainer(ctx context.Context, t *Target, spec string) (io.Reader, io.WriteCloser, error) {
	t.stderr = &syncBuffer{}
	canary, err := newCanary()
	if err != nil {
		return nil, nil, err
	}
	c, err := container.Start(ctx, container.Options{
		Image: strings.TrimPrefix(spec, container.Prefix),
		Env:   map[string]string{CanaryEnv: canary},
		Logs:  t.stderr,
	})
	if err != nil {
		return nil, nil, err
	}
	if stopping.Load() { // KillTargets ran while it started
		return nil, nil, errors.Join(ErrStopping, c.Stop(0))
	}
	conn, err := net.DialTimeout("tcp", c.Addr(), 10*time.Second)
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("protocol port %s: %w", c.Addr(), err), c.Stop(0))
	}
	t.canary = canary
	t.closer = func(graceful bool) error {
		cerr := conn.Close()
		if errors.Is(cerr, net.ErrClosed) { // the client closed it after shutdown
			cerr = nil
		}
		grace := time.Duration(0)
		if graceful {
			grace = containerGrace
		}
		return errors.Join(c.Stop(grace), cerr)
	}
	return conn, conn, nil
}
