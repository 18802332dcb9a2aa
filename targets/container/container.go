// Package container runs an implementation packaged as a container image as
// a conformance target, container:<image>, through testcontainers-go: Start
// runs the image, waits until its driver protocol port holds a connection
// open, and gives the host address to speak the protocol on over TCP (the
// same client as a tcp:<host:port> target); Stop stops and removes it.
//
// The image declares its protocol port with EXPOSE (exactly one TCP port,
// unless Options.Port names it) and serves the driver protocol
// (spec/protocol.md) there, one session per connection. Images are never
// pulled by the harness's choice: a missing image is pulled the way Docker
// would, which fails where no registry is reachable.
//
// Testcontainers' reaper (Ryuk) is off unless TESTCONTAINERS_RYUK_DISABLED
// says otherwise: its image cannot be pulled where no registry is reachable.
// Cleanup is explicit instead: every container carries the labels LabelTarget,
// LabelRun (RunID, one value per harness process) and LabelOwner; Stop
// removes it, StopAll removes every one still running, Leftovers lists any
// that survived, and the first Start of a process removes those whose owner
// on this host is gone (a harness killed with SIGKILL).
//
// This package imports nothing of the harness or of the reference, so that a
// binary using it does not link the runtime it tests.
package container

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
	"github.com/testcontainers/testcontainers-go/wait"
)

// Prefix starts a container target spec: "container:<image>", for example
// "container:codemode-reference:local".
const Prefix = "container:"

// Labels put on every container Start runs, to find them again (Leftovers,
// or `docker ps --filter label=org.codemode-conformance.run=<RunID>`).
const (
	LabelTarget = "org.codemode-conformance.target" // the target spec, container:<image>
	LabelRun    = "org.codemode-conformance.run"    // RunID of the harness process
)

// DefaultStartupTimeout bounds how long Start waits for the protocol port
// when Options.StartupTimeout is zero.
const DefaultStartupTimeout = 60 * time.Second

// ErrNoDocker is wrapped by the errors of Available, Start and Leftovers when
// no Docker daemon answers (none installed, not started, or no permission on
// its socket).
var ErrNoDocker = errors.New("no Docker daemon reachable")

// ErrNoImage is wrapped by the error of Start when the image is not present
// on the Docker host (build or pull it first).
var ErrNoImage = errors.New("image not present on the Docker host")

// ErrNoPort is wrapped by the error of Start when the image does not declare
// exactly one TCP port and Options.Port does not name one.
var ErrNoPort = errors.New("no protocol port")

// Options say what to run.
type Options struct {
	// Image is the image reference, for example "codemode-reference:local".
	Image string
	// Port is the container port serving the driver protocol, "7070/tcp";
	// empty means the one TCP port the image EXPOSEs.
	Port string
	// Env is added to the container's environment.
	Env map[string]string
	// Logs receives the container's stdout and stderr as they arrive (nil:
	// not collected).
	Logs io.Writer
	// StartupTimeout bounds the wait for the protocol port (zero:
	// DefaultStartupTimeout).
	StartupTimeout time.Duration
}

// Container is a running target container.
type Container struct {
	ctr   *testcontainers.DockerContainer
	addr  string
	image string
	once  sync.Once
	err   error
}

var (
	setupOnce sync.Once
	hostOnce  sync.Once
	runID     string

	liveMu sync.Mutex
	live   = map[*Container]bool{}
)

// setup turns the reaper off (unless the environment chose) and silences
// testcontainers' own progress log, once per process: errors carry what
// went wrong, and the harness's output stays its own.
func setup() {
	setupOnce.Do(func() {
		if os.Getenv("TESTCONTAINERS_RYUK_DISABLED") == "" {
			os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
		}
		tclog.SetDefault(tclog.NewNoopLogger())
		var b [8]byte
		_, _ = rand.Read(b[:])
		runID = hex.EncodeToString(b[:])
	})
}

// RunID is the value of LabelRun on the containers this process starts: 16
// hex digits, fresh per process.
func RunID() string {
	setup()
	return runID
}

// sameHost points testcontainers at localhost when it would guess wrong:
// in a container (/.dockerenv) it takes the Docker daemon for the host's,
// reached through the default gateway, but a daemon started inside this
// container (same hostname) publishes ports here. An explicit
// TESTCONTAINERS_HOST_OVERRIDE or a remote DOCKER_HOST is left alone.
func sameHost(ctx context.Context) {
	hostOnce.Do(func() {
		if _, set := os.LookupEnv("TESTCONTAINERS_HOST_OVERRIDE"); set {
			return
		}
		if h := os.Getenv("DOCKER_HOST"); h != "" && !strings.HasPrefix(h, "unix://") {
			return
		}
		if _, err := os.Stat("/.dockerenv"); err != nil {
			return
		}
		cli, err := testcontainers.NewDockerClientWithOpts(ctx)
		if err != nil {
			return
		}
		defer cli.Close()
		info, err := cli.Info(ctx, client.InfoOptions{})
		if me, herr := os.Hostname(); err == nil && herr == nil && info.Info.Name == me {
			os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "localhost")
		}
	})
}

// Available reports whether a Docker daemon answers, with an error wrapping
// ErrNoDocker when none does.
func Available(ctx context.Context) error {
	setup()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoDocker, err)
	}
	defer cli.Close()
	if _, err := cli.Ping(ctx, client.PingOptions{}); err != nil {
		return fmt.Errorf("%w: %v", ErrNoDocker, err)
	}
	return nil
}

// Start runs o.Image and waits until its protocol port is ready: the port is
// published and a connection to it stays open (a port proxy accepts and
// drops connections while nothing in the container listens yet). A container
// that fails to become ready is removed, and the error says how it ended
// and ends with the tail of its output.
func Start(ctx context.Context, o Options) (*Container, error) {
	setup()
	if strings.TrimSpace(o.Image) == "" {
		return nil, errors.New("container target: empty image name")
	}
	timeout := o.StartupTimeout
	if timeout <= 0 {
		timeout = DefaultStartupTimeout
	}
	sameHost(ctx)
	if err := present(ctx, o.Image); err != nil {
		return nil, fmt.Errorf("container target %s: %w", o.Image, err)
	}
	reapOnce.Do(func() { _, _ = ReapOrphans(ctx) }) // best effort: a failure here is no reason not to start
	ready := &protocolPort{port: o.Port, timeout: timeout}
	opts := []testcontainers.ContainerCustomizer{
		testcontainers.WithLabels(map[string]string{LabelTarget: Prefix + o.Image, LabelRun: runID, LabelOwner: owner()}),
		testcontainers.WithEnv(o.Env),
		testcontainers.WithWaitStrategyAndDeadline(timeout, ready),
	}
	if o.Port != "" {
		opts = append(opts, testcontainers.WithExposedPorts(o.Port))
	}
	if o.Logs != nil {
		opts = append(opts, testcontainers.WithLogConsumers(writerConsumer{o.Logs}))
	}
	ctr, err := testcontainers.Run(ctx, o.Image, opts...)
	if err != nil {
		tail := ""
		if ctr != nil {
			tail = logTail(ctr)
			_ = ctr.Terminate(context.Background(), testcontainers.StopTimeout(0))
		}
		if errors.Is(err, ErrNoPort) {
			return nil, fmt.Errorf("container target %s: %w%s", o.Image, ErrNoPort, tail)
		}
		if derr := Available(ctx); derr != nil {
			return nil, fmt.Errorf("container target %s: %w", o.Image, derr)
		}
		return nil, fmt.Errorf("container target %s: %w%s", o.Image, err, tail)
	}
	c := &Container{ctr: ctr, addr: ready.addr, image: o.Image}
	liveMu.Lock()
	live[c] = true
	liveMu.Unlock()
	return c, nil
}

// present checks that image is on the Docker host, so that Start never
// pulls.
func present(ctx context.Context, image string) error {
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoDocker, err)
	}
	defer cli.Close()
	if _, err := cli.ImageInspect(ctx, image); err != nil {
		if cerrdefs.IsNotFound(err) {
			return fmt.Errorf("%w (build it, for the reference: make container-image; or docker pull it)", ErrNoImage)
		}
		return err
	}
	return nil
}

// Addr is the host:port the protocol port is published on.
func (c *Container) Addr() string { return c.addr }

// ID is the Docker container ID.
func (c *Container) ID() string { return c.ctr.GetContainerID() }

// Stop stops the container, giving it grace to exit after the image's stop
// signal before it is killed (0: killed at once), and removes it. Later
// calls return the first call's error.
func (c *Container) Stop(grace time.Duration) error {
	c.once.Do(func() {
		liveMu.Lock()
		delete(live, c)
		liveMu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), grace+30*time.Second)
		defer cancel()
		if err := c.ctr.Terminate(ctx, testcontainers.StopTimeout(grace)); err != nil {
			c.err = fmt.Errorf("container target %s: stop %s: %w", c.image, shortID(c.ID()), err)
		}
	})
	return c.err
}

// StopAll kills and removes every container this process started and has
// not stopped yet, all at once: for a harness stopping on a signal.
func StopAll() {
	liveMu.Lock()
	list := make([]*Container, 0, len(live))
	for c := range live {
		list = append(list, c)
	}
	liveMu.Unlock()
	var wg sync.WaitGroup
	for _, c := range list {
		wg.Add(1)
		go func() { defer wg.Done(); _ = c.Stop(0) }()
	}
	wg.Wait()
}

// Leftovers lists the containers, running or not, that carry this process's
// RunID: after every target was stopped it is empty. Each entry is the
// short container ID, its image and its state.
func Leftovers(ctx context.Context) ([]string, error) {
	setup()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDocker, err)
	}
	defer cli.Close()
	res, err := cli.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", LabelRun+"="+runID),
	})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range res.Items {
		out = append(out, fmt.Sprintf("%s %s %s", shortID(s.ID), s.Image, s.State))
	}
	slices.Sort(out)
	return out, nil
}

// protocolPort is the wait strategy: the protocol port is published and a
// connection to it is held open. It records the address it reached.
type protocolPort struct {
	port    string
	timeout time.Duration
	addr    string
}

func (p *protocolPort) Timeout() *time.Duration { return &p.timeout }

func (p *protocolPort) String() string {
	return fmt.Sprintf("protocol port %s to hold a connection open", p.port)
}

// heldOpen is how long a probe connection must stay open to count: a port
// proxy with nothing behind it closes the connection at once.
const heldOpen = 200 * time.Millisecond

func (p *protocolPort) WaitUntilReady(ctx context.Context, t wait.StrategyTarget) error {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	port := p.port
	if port == "" {
		info, err := t.Inspect(ctx)
		if err != nil {
			return err
		}
		var tcp []string
		for e := range info.Config.ExposedPorts {
			if e.Proto() == "tcp" {
				tcp = append(tcp, e.String())
			}
		}
		if len(tcp) != 1 {
			slices.Sort(tcp)
			return fmt.Errorf("%w: the image exposes %d TCP ports %v; it must EXPOSE exactly one, the driver protocol port", ErrNoPort, len(tcp), tcp)
		}
		port = tcp[0]
	}
	p.port = port
	host, err := t.Host(ctx)
	if err != nil {
		return err
	}
	last := errors.New("not tried")
	for {
		if st, err := t.State(ctx); err == nil && !st.Running {
			return fmt.Errorf("the container stopped before its protocol port %s was ready (status %s, exit code %d)", port, st.Status, st.ExitCode)
		}
		if mapped, err := t.MappedPort(ctx, port); err != nil {
			last = err
		} else {
			addr := net.JoinHostPort(host, mapped.Port())
			if last = probe(ctx, addr); last == nil {
				p.addr = addr
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("protocol port %s not ready within %s: %v", port, p.timeout, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// probe connects to addr and checks that the connection stays open for
// heldOpen: the target waits for the harness to speak first, so it sends
// nothing.
func probe(ctx context.Context, addr string) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(heldOpen))
	var b [1]byte
	_, err = conn.Read(b[:])
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return nil // held open, silent
	}
	if err == nil {
		return nil // it spoke first: something listens
	}
	return fmt.Errorf("%s closed the connection at once (%v)", addr, err)
}

// writerConsumer copies container output to a writer.
type writerConsumer struct{ w io.Writer }

func (c writerConsumer) Accept(l testcontainers.Log) { _, _ = c.w.Write(l.Content) }

// logTail is the end of a container's output, for an error message.
func logTail(ctr *testcontainers.DockerContainer) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rc, err := ctr.Logs(ctx)
	if err != nil {
		return ""
	}
	defer rc.Close()
	b, _ := io.ReadAll(io.LimitReader(rc, 1<<20))
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	if len(b) == 0 {
		return ""
	}
	return "\ncontainer output:\n" + string(b)
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
