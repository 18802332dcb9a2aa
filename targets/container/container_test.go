package container_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/targets/container"
	"github.com/codemode-conformance/codemode/targets/container/containertest"
	"github.com/onsi/gomega"
	"github.com/testcontainers/testcontainers-go"
)

// needImages skips where no Docker daemon answers (the container target
// cannot run there; .ci/run starts one when it can) and builds the test
// images otherwise.
func needImages(t *testing.T) containertest.Images {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := container.Available(ctx); err != nil {
		t.Skipf("SKIP container target check: Docker is absent here (%v); install and start Docker (.ci/run does when it can) to run it", err)
	}
	bctx, bcancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer bcancel()
	imgs, err := containertest.Build(bctx)
	if err != nil {
		t.Fatalf("building the test images: %v", err)
	}
	return imgs
}

// noLeftovers fails when a container of this process outlived its Stop.
func noLeftovers(t *testing.T, g *gomega.WithT) {
	t.Helper()
	left, err := container.Leftovers(context.Background())
	g.Expect(err).NotTo(gomega.HaveOccurred(), "listing this run's containers by label %s=%s", container.LabelRun, container.RunID())
	g.Expect(left).To(gomega.BeEmpty(), "no container labelled %s=%s may be left after Stop", container.LabelRun, container.RunID())
}

// The reference image serves the driver protocol over TCP on the address
// Start returns, and Stop removes the container.
func TestStartServesTheProtocolAndStopRemoves(t *testing.T) {
	imgs := needImages(t)
	g := gomega.NewWithT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := container.Start(ctx, container.Options{Image: imgs.Serve})
	g.Expect(err).NotTo(gomega.HaveOccurred(), "starting %s", imgs.Serve)
	defer c.Stop(0)

	conn, err := net.DialTimeout("tcp", c.Addr(), 10*time.Second)
	g.Expect(err).NotTo(gomega.HaveOccurred(), "dialling the published protocol port %s", c.Addr())
	defer conn.Close()
	req := `{"jsonrpc":"2.0","id":1,"method":"` + protocol.MethodInitialize + `","params":{"protocolVersion":"` + protocol.Version + `","harness":{"name":"container_test","version":"0"}}}` + "\n"
	_, err = conn.Write([]byte(req))
	g.Expect(err).NotTo(gomega.HaveOccurred(), "sending initialize")
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	g.Expect(err).NotTo(gomega.HaveOccurred(), "reading the answer to %s", req)
	var resp struct {
		ID     int                       `json:"id"`
		Result protocol.InitializeResult `json:"result"`
		Error  *struct{ Message string } `json:"error"`
	}
	g.Expect(json.Unmarshal(line, &resp)).To(gomega.Succeed(), "the answer must be one JSON-RPC line: %s", line)
	g.Expect(resp.Error).To(gomega.BeNil(), "initialize must succeed: %s", line)
	g.Expect(resp.Result.ProtocolVersion).To(gomega.Equal(protocol.Version), "initialize result: %s", line)

	id := c.ID()
	g.Expect(c.Stop(5*time.Second)).To(gomega.Succeed(), "stopping %s", id)
	g.Expect(c.Stop(5*time.Second)).To(gomega.Succeed(), "a second Stop returns the first one's result")
	noLeftovers(t, g)
}

// A container that exits before its port is ready is reported with its exit
// code and output, and removed.
func TestStartReportsAContainerThatDies(t *testing.T) {
	imgs := needImages(t)
	g := gomega.NewWithT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := container.Start(ctx, container.Options{Image: imgs.Dies, StartupTimeout: time.Minute})
	g.Expect(c).To(gomega.BeNil(), "a container that exits must not start")
	g.Expect(err).To(gomega.MatchError(gomega.ContainSubstring("exit code 2")), "the error must name the exit code")
	// The output kept is its tail (the reference's usage has outgrown it), so
	// the check is on a line near the end of that usage, after the heading.
	g.Expect(err).To(gomega.MatchError(gomega.MatchRegexp(`container output:\n[\s\S]*-stdio\n\s*speak the driver protocol on stdin/stdout`)), "the error must end with the container's output")
	noLeftovers(t, g)
}

// An image that does not say which port speaks the protocol is refused with
// ErrNoPort, and its container removed.
func TestStartNeedsOneExposedPort(t *testing.T) {
	imgs := needImages(t)
	g := gomega.NewWithT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := container.Start(ctx, container.Options{Image: imgs.NoPort})
	g.Expect(errors.Is(err, container.ErrNoPort)).To(gomega.BeTrue(), "want ErrNoPort for an image without EXPOSE, got %v", err)
	noLeftovers(t, g)

	c, err := container.Start(ctx, container.Options{Image: imgs.NoPort, Port: "7070/tcp"})
	g.Expect(err).NotTo(gomega.HaveOccurred(), "Options.Port names the port the image does not expose")
	c.Stop(0)
	noLeftovers(t, g)
}

// StopAll (the harness stopping on a signal) kills and removes every
// container still running.
func TestStopAll(t *testing.T) {
	imgs := needImages(t)
	g := gomega.NewWithT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for range 2 {
		_, err := container.Start(ctx, container.Options{Image: imgs.Serve})
		g.Expect(err).NotTo(gomega.HaveOccurred(), "starting %s", imgs.Serve)
	}
	left, err := container.Leftovers(ctx)
	g.Expect(err).NotTo(gomega.HaveOccurred())
	g.Expect(left).To(gomega.HaveLen(2), "both containers carry the run label before StopAll")
	container.StopAll()
	noLeftovers(t, g)
}

// A missing image is an error naming it, not a pull, and nothing is left.
func TestStartMissingImage(t *testing.T) {
	needImages(t)
	g := gomega.NewWithT(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := container.Start(ctx, container.Options{Image: "codemode-reference:no-such-tag"})
	g.Expect(errors.Is(err, container.ErrNoImage)).To(gomega.BeTrue(), "want ErrNoImage for an image that is not there (never a pull), got %v", err)
	g.Expect(err).To(gomega.MatchError(gomega.ContainSubstring("codemode-reference:no-such-tag")), "the error must name the image")
	noLeftovers(t, g)
}

// ReapOrphans removes what a harness killed with SIGKILL left behind (its
// owner process is gone), and nothing of a live harness.
func TestReapOrphans(t *testing.T) {
	imgs := needImages(t)
	g := gomega.NewWithT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dead := exec.Command("true")
	g.Expect(dead.Run()).To(gomega.Succeed())
	host, _ := os.Hostname()
	run := func(ownerPID int) *testcontainers.DockerContainer {
		c, err := testcontainers.Run(ctx, imgs.Serve, testcontainers.WithLabels(map[string]string{
			container.LabelRun: container.RunID(), container.LabelOwner: fmt.Sprintf("%s/%d", host, ownerPID),
		}))
		g.Expect(err).NotTo(gomega.HaveOccurred(), "starting a container owned by pid %d", ownerPID)
		return c
	}
	orphan := run(dead.Process.Pid)
	alive := run(os.Getppid()) // a live process that is not this one
	defer alive.Terminate(context.Background(), testcontainers.StopTimeout(0))

	removed, err := container.ReapOrphans(ctx)
	g.Expect(err).NotTo(gomega.HaveOccurred())
	g.Expect(removed).To(gomega.ConsistOf(orphan.GetContainerID()[:12]), "only the container whose owner is gone is removed")
	left, err := container.Leftovers(ctx)
	g.Expect(err).NotTo(gomega.HaveOccurred())
	g.Expect(left).To(gomega.ConsistOf(gomega.HavePrefix(alive.GetContainerID()[:12])), "the container of a live owner stays")
	g.Expect(alive.Terminate(ctx, testcontainers.StopTimeout(0))).To(gomega.Succeed())
	noLeftovers(t, g)
}
