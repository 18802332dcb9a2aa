package main_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/codemode-conformance/codemode/fakes/naive"
	"github.com/codemode-conformance/codemode/internal/clitest"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

// run --procs 2 gives the verdicts of a serial run (issue 27 item 3), and two
// full runs of the same target give the same failure messages once ids and
// timings are normalised (issue 23 item 8 and its acceptance line): every
// spec of the catalogue (corpus cases included) against fakes/naive, a
// target with many failures, blocks and skips, once serially and once with
// --procs 2, at the same time. The spec verdicts and normalised messages
// (report.Normalise: ids, timings, go-cmp's random spacing and Gomega's
// layout), requirement verdicts, overall verdict and exit code must be the
// same, and every Serial spec runs in the serial worker. (Two serial runs are compared by
// determinism_test.go on three requirements; this comparison is the
// stronger one: the two runs also order the specs differently.)
var _ = Describe("run --procs", func() {
	It("gives the verdicts and normalised failure messages of a serial run, over every spec against fakes/naive", func() {
		target, err := naive.Target()
		if errors.Is(err, naive.ErrNoNode) {
			if os.Getenv("CI") == "true" {
				Fail("node is not on PATH under CI=true: fakes/naive needs it: " + err.Error())
			}
			Skip("node is not on PATH: fakes/naive needs it")
		}
		Expect(err).NotTo(HaveOccurred(), "the naive target's command line")
		args := []string{"--target", target}
		type verdicts struct {
			Code         int
			Overall      report.Overall
			Requirements map[string]report.Verdict
			Specs        map[string]string
		}
		judge := func(o outcome) verdicts {
			GinkgoHelper()
			v := verdicts{Code: o.Code, Overall: o.Report.Overall, Requirements: map[string]report.Verdict{}, Specs: map[string]string{}}
			for _, r := range o.Report.Requirements {
				v.Requirements[r.ID] = r.Verdict
			}
			data, err := os.ReadFile(filepath.Join(o.Dir, "report.json"))
			Expect(err).NotTo(HaveOccurred(), "the run wrote report.json")
			var reports []types.Report
			Expect(json.Unmarshal(data, &reports)).To(Succeed(), "report.json is Ginkgo's JSON report")
			for _, r := range reports {
				for _, s := range report.Specs(r) {
					Expect(v.Specs).NotTo(HaveKey(s.Text), "each spec is reported once")
					m := report.Normalise(s.Message)
					// A crashed target's stderr is quoted by its last bytes:
					// where that tail starts depends on the lengths of what
					// the target wrote before (Node's GC trace, timings), so
					// only the harness's words before it are compared.
					if i := strings.Index(m, "target stderr:"); i >= 0 {
						m = m[:i] + "target stderr: (not compared)"
					}
					v.Specs[s.Text] = s.State + ": " + m
				}
			}
			return v
		}
		// The two runs overlap (each is about 9 minutes against fakes/naive
		// on 2 loaded cores), so each also runs under the other's load.
		env := append(os.Environ(), "NO_COLOR=1")
		serialRun := clitest.StartConformance(env, args...)
		parallelRun := clitest.StartConformance(env, append(args, "--procs", "2")...)
		serial, parallel := serialRun.WaitUpTo(40*time.Minute), parallelRun.WaitUpTo(40*time.Minute)
		Expect(parallel.Stderr).To(ContainSubstring("2 processes share the specs"), "--procs 2 runs two processes")
		s, p := judge(serial), judge(parallel)
		// Where fakes/naive itself behaves differently from run to run, its
		// evidence differs too: those specs' verdicts are compared, their
		// messages are not. Each entry (a prefix of spec texts) says why;
		// every other difference is the harness's and fails the test.
		targetRaces := map[string]string{
			"CM-LIM-02 case dos-huge-array-fill.js":                            "filling a billion elements, Node either runs out of the V8 heap the naive target caps (fault 5: the process dies, exit 134, with a V8 stack on stderr) or is still filling at the harness's deadline (killed as unresponsive), by the machine's speed",
			"CM-LIM-07 a tool result larger than the guest's memory":           "the naive target suspends a cell whose nested call outlasts timeoutMs/4 of wall time: how long the big result takes to cross decides whether the failing cell reports waitCount 0 or 1",
			"CM-LIM-01 while one run's cell is inside a long native operation": "the naive target runs every cell on its one protocol loop (fault 4), so each long native operation holds up the other run's small cell for as long as the operation takes on this machine: which operation is the first to pass the spec's bound (the fill over 2^32-1 holes, or the eval of a 4 MiB expression after it) depends on the machine's speed",
			"CM-RUN-09 ": "the spinning cell blocks the naive target's protocol loop (fault 4) until its vm timeout; whether the runtime.stats request queued meanwhile is answered before or after the cell's end is recorded (liveVMs 1 or 0) is an ordering of the target's event loop",
		}
		for prefix, why := range targetRaces {
			n := 0
			for text := range s.Specs {
				if strings.HasPrefix(text, prefix) {
					n++
					state := func(m string) string {
						st, _, _ := strings.Cut(m, ": ")
						return st + ": (message not compared: " + why + ")"
					}
					s.Specs[text], p.Specs[text] = state(s.Specs[text]), state(p.Specs[text])
				}
			}
			Expect(n).To(BeNumerically(">", 0), "no spec starts with %q: drop it from targetRaces", prefix)
		}
		// A guest that hangs the naive target's protocol loop while its heap
		// grows (fault 4 and 5: dos-huge-array-fill.js, dos-microtask-flood.js)
		// ends either at the harness's deadline (killed as unresponsive) or by
		// the capped heap (the process dies), whichever comes first on this
		// machine: where either run shows one of them, the verdicts are
		// compared, not the messages.
		stopped := func(m string) bool {
			return strings.Contains(m, "target unresponsive:") || strings.Contains(m, "target process exit status")
		}
		for text, m := range s.Specs {
			if stopped(m) || stopped(p.Specs[text]) {
				state := func(m string) string {
					st, _, _ := strings.Cut(m, ": ")
					return st + ": (message not compared: the target hung or died)"
				}
				s.Specs[text], p.Specs[text] = state(m), state(p.Specs[text])
			}
		}
		// Ginkgo's ParallelProcess says which process ran a spec: 1 (the
		// CLI), 2 (the other parallel worker) or 3 (the serial worker).
		// Which parallel process claims a spec first is a race; that the
		// Serial ones run apart, after the others, is not.
		data, err := os.ReadFile(filepath.Join(parallel.Dir, "report.json"))
		Expect(err).NotTo(HaveOccurred(), "the --procs run wrote report.json")
		var reports []types.Report
		Expect(json.Unmarshal(data, &reports)).To(Succeed(), "report.json is Ginkgo's JSON report")
		serialSpecs := 0
		for _, sr := range reports[0].SpecReports {
			if report.Selected(sr) && sr.IsSerial && sr.State != types.SpecStateSkipped {
				serialSpecs++
				Expect(sr.ParallelProcess).To(Equal(3), "the Serial spec %q runs in the serial worker", sr.FullText())
			}
		}
		Expect(serialSpecs).To(BeNumerically(">", 0), "the comparison covers Serial specs (CM-RUN-05, CM-RUN-09, the dos corpus cases)")
		Expect(s.Code).To(Equal(1), "fakes/naive fails: %s", serial.Stdout)
		Expect(s.Specs).To(HaveLen(serial.Report.Selection.Specs.Selected), "every selected spec is reported")
		failed := 0
		for _, m := range s.Specs {
			if strings.HasPrefix(m, "failed:") {
				failed++
			}
		}
		Expect(failed).To(BeNumerically(">=", 20), "the comparison covers many failure messages (fakes/naive fails CM-SEC-01, CM-RUN-01 and more)")
		Expect(cmp.Diff(s, p)).To(BeEmpty(), "the verdicts or normalised messages of --procs 2 differ from the serial run's (-serial +procs)\n%s", parallel.Stdout)
	})
})
