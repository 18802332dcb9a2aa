package targets_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/targets"
	"github.com/codemode-conformance/codemode/targets/container"
	"github.com/codemode-conformance/codemode/targets/container/containertest"
	"github.com/moby/moby/client"
	"github.com/onsi/gomega"
	"github.com/testcontainers/testcontainers-go"
)

// A container:<image> target, opened through the registry, is started,
// spoken to over TCP through the same client as every target, and removed
// when closed: gracefully, or abandoned (Endpoint.Close(false)). Skipped
// where Docker is absent.
func TestContainerTarget(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := container.Available(ctx); err != nil {
		t.Skipf("SKIP container target check: Docker is absent here (%v); install and start Docker (.ci/run does when it can) to run it", err)
	}
	imgs, err := containertest.Build(ctx)
	if err != nil {
		t.Fatalf("building the test images: %v", err)
	}
	g := gomega.NewWithT(t)
	left := func(when string) {
		l, err := container.Leftovers(ctx)
		g.Expect(err).NotTo(gomega.HaveOccurred(), "listing this run's containers")
		g.Expect(l).To(gomega.BeEmpty(), "no container of the run may be left %s", when)
	}
	spec := container.Prefix + imgs.Serve

	tgt, err := framework.Connect(ctx, spec)
	g.Expect(err).NotTo(gomega.HaveOccurred(), "Connect(%s)", spec)
	g.Expect(tgt.Init.ProtocolVersion).To(gomega.Equal(protocol.Version), "initialize over TCP must answer with the protocol version")
	g.Expect(containerEnv(ctx, t)).To(gomega.ContainElement(framework.CanaryEnv+"="+tgt.Canary()), "the container's environment must hold the canary Target.Canary reports")
	var stats protocol.Stats
	g.Expect(tgt.Call(ctx, protocol.MethodRuntimeStats, nil, &stats)).To(gomega.Succeed(), "runtime.stats over TCP")
	g.Expect(tgt.Close()).To(gomega.Succeed(), "closing %s: shutdown, then stop and remove the container", spec)
	left("after Close")

	_, err = framework.Connect(ctx, container.Prefix+imgs.Dies)
	g.Expect(err).To(gomega.MatchError(gomega.ContainSubstring("exit code 2")), "a container that exits before its port is ready: Connect says how it ended")
	left("after a container that died on start")

	ep, err := targets.Open(ctx, spec, framework.OpenOptions{Canary: "canary-test", Logs: io.Discard})
	g.Expect(err).NotTo(gomega.HaveOccurred(), "targets.Open(%s)", spec)
	g.Expect(ep.Close(false)).To(gomega.Succeed(), "abandoning the endpoint (what the harness does to an unresponsive or killed target)")
	left("after the harness abandoned the target")
}

// containerEnv is the environment of the one running container of this run.
func containerEnv(ctx context.Context, t *testing.T) []string {
	t.Helper()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{Filters: make(client.Filters).Add("label", container.LabelRun+"="+container.RunID())})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("want the one running container of this run, got %v (%v)", list.Items, err)
	}
	info, err := cli.ContainerInspect(ctx, list.Items[0].ID, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return info.Container.Config.Env
}
