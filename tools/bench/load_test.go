package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/codemode-conformance/codemode/tools/bench"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

var _ = Describe("bench-load", func() {
	// runtime.stats is the process's: the snapshot bytes per held run must
	// not grow with the connections they are spread over (issue 29 item 4:
	// a sum per connection made them Conns times too high).
	It("reports the same snapshot bytes per suspended run over one connection and over four", func() {
		ref, err := gexec.Build("github.com/codemode-conformance/codemode/reference/cmd/codemode-reference")
		Expect(err).NotTo(HaveOccurred(), "building codemode-reference")
		DeferCleanup(gexec.CleanupBuildArtifacts)
		perRun := func(conns int) float64 {
			f := bench.SuspendFigureOf(context.Background(), bench.LoadOptions{Reference: ref, Conns: conns, Suspended: 4})
			Expect(f.Error).To(BeEmpty())
			Expect(f.Waiting).To(Equal(4))
			return float64(f.SnapshotBytes) / float64(f.Waiting)
		}
		one, four := perRun(1), perRun(4)
		Expect(one).To(BeNumerically(">", 0))
		Expect(four).To(BeNumerically("~", one, one/4), "snapshot bytes per run over 4 connections vs over 1")
	})

	It("measures every point on the reference binary without errors and writes bench-load.json", func() {
		ref, err := gexec.Build("github.com/codemode-conformance/codemode/reference/cmd/codemode-reference")
		Expect(err).NotTo(HaveOccurred(), "building codemode-reference")
		DeferCleanup(gexec.CleanupBuildArtifacts)
		rep := bench.LoadRun(context.Background(), bench.LoadOptions{Reference: ref, Concurrency: []int{1, 3},
			Duration: 500 * time.Millisecond, Conns: 2, Suspended: 3, Busy: 3})
		Expect(rep.Throughput).To(HaveLen(4), "stdio and tcp at each concurrency")
		for _, p := range rep.Throughput {
			Expect(p.Error).To(BeEmpty(), "%s with %d runs: no error", p.Transport, p.Runs)
			Expect(p.Cells).To(BeNumerically(">=", p.Runs), "%s with %d runs: every run completed cells", p.Transport, p.Runs)
			Expect(p.P99Ms).To(BeNumerically(">=", p.P50Ms), "%s: p99 is at least p50", p.Transport)
		}
		Expect(rep.Throughput[1].Transport).To(Equal("tcp×2"))
		Expect(rep.Throughput[1].PeakRSSKB).To(BeNumerically(">", 0), "the tcp server's RSS is sampled")
		s := rep.Suspend
		Expect(s.Error).To(BeEmpty())
		Expect([]int{s.Waiting, s.Resumed}).To(Equal([]int{3, 3}), "every run suspends and resumes with its value")
		Expect(s.SnapshotBytes).To(BeNumerically(">", 0), "runtime.stats reports the held snapshots")
		c := rep.Control
		Expect(c.Error).To(BeEmpty())
		Expect(c.LiveVMs).To(Equal(3), "the busy cells hold live VMs while runtime.stats is timed")
		Expect(c.AtBusy).To(Equal(20), "20 answers are timed with all busy cells live")
		Expect(len(c.Samples)).To(BeNumerically(">=", 20), "the samples include those taken while the cells started")
		Expect(c.LiveVMsSeen).To(HaveLen(len(c.Samples)), "one liveVMs per sample")
		m := rep.Memory
		Expect(m.Error).To(BeEmpty())
		Expect(m.Completed+m.Refused).To(Equal(m.Runs*m.Rounds), "every cell under --max-memory completes or is refused runtime_unavailable: %+v", m)
		Expect(m.Completed).To(BeNumerically(">", 0))
		Expect(m.PeakRSSKB).To(BeNumerically(">", 0), "the budgeted server's RSS is sampled")

		var stdout, stderr bytes.Buffer
		out := filepath.Join(GinkgoT().TempDir(), "bench-load.json")
		code := bench.LoadCommand(context.Background(), []string{"--reference", ref, "--concurrency", "2", "--duration", "300ms",
			"--conns", "2", "--suspended", "2", "--busy", "2", "--out", out}, &stdout, &stderr)
		Expect(code).To(Equal(0), "stderr:\n%s", stderr.String())
		Expect(stdout.String()).To(ContainSubstring("runtime.stats behind 2 busy cells"), "the table names the control figure")
		Expect(stdout.String()).To(ContainSubstring("peak RSS"), "the table names the memory figure")
		Expect(stdout.String()).To(MatchRegexp(`memory budget: serve --listen --max-memory 512 MiB`))
		b, err := os.ReadFile(out)
		Expect(err).NotTo(HaveOccurred())
		var back bench.LoadReport
		Expect(json.Unmarshal(b, &back)).To(Succeed(), "bench-load.json decodes into bench.LoadReport")
		Expect(back.Throughput).To(HaveLen(2))
	})

	It("exits 2 on a usage error", func() {
		var stdout, stderr bytes.Buffer
		Expect(bench.LoadCommand(context.Background(), []string{"--concurrency", "0"}, &stdout, &stderr)).To(Equal(2))
		Expect(stderr.String()).To(ContainSubstring("--concurrency"))
	})
})
