package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/codemode-conformance/codemode/tools/bench"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// benchCmd runs the bench command line and returns its exit status, stdout,
// stderr and the decoded bench.json (nil when none was written).
func benchCmd(args ...string) (int, string, string, *bench.Report) {
	GinkgoHelper()
	out := filepath.Join(GinkgoT().TempDir(), "bench.json")
	var stdout, stderr bytes.Buffer
	code := bench.Command(context.Background(), append(args, "--out", out), &stdout, &stderr)
	b, err := os.ReadFile(out)
	if err != nil {
		return code, stdout.String(), stderr.String(), nil
	}
	var rep bench.Report
	Expect(json.Unmarshal(b, &rep)).To(Succeed(), "bench.json decodes into bench.Report: %s", b)
	return code, stdout.String(), stderr.String(), &rep
}

var _ = Describe("bench", func() {
	It("times correct cells on every target, interleaved, and writes bench.json with samples, medians and ratios", func() {
		code, stdout, stderr, rep := benchCmd("--target", "builtin", "--target", "builtin", "--cells", "trivial,one-call,concurrent-8-runs", "--rounds", "2", "--warmup", "0")
		Expect(code).To(Equal(0), "every cell is correct on the reference; stdout:\n%s\nstderr:\n%s", stdout, stderr)
		Expect(rep).NotTo(BeNil(), "bench.json is written")
		Expect(rep.Correct).To(BeTrue(), "the report says every cell was correct")
		Expect(rep.Rounds).To(Equal(2), "rounds recorded")
		Expect(rep.Machine.CPUs).To(BeNumerically(">", 0), "the machine is described")
		Expect(rep.Targets).To(HaveLen(2), "one entry per --target")
		for _, t := range rep.Targets {
			Expect(t.Implementation.Name).To(Equal("codemode-reference"), "implementation from initialize")
			Expect(t.Implementation.Version).NotTo(BeEmpty(), "implementation version from initialize")
		}
		var names []string
		for _, c := range rep.Cells {
			names = append(names, c.Name)
			if c.Runs > 1 {
				Expect(c.Unit).To(Equal(bench.CellsPerSec), "the throughput cell is in cells/s")
			} else {
				Expect(c.Unit).To(Equal(bench.Millis), "latency cells are in ms")
			}
			Expect(c.CodeMode).To(MatchJSON(`{"enabled":true,"timeoutMs":60000}`), "the standard config")
			Expect(c.Results).To(HaveLen(2), "one measurement per target for %s", c.Name)
			for i, m := range c.Results {
				Expect(m.Correct).To(BeTrue(), "%s on %s is correct: %s", c.Name, m.Target, m.Detail)
				Expect(m.Samples).To(HaveLen(2), "%s: one sample list per round", c.Name)
				for _, s := range m.Samples {
					if c.Runs > 1 {
						Expect(s).To(HaveLen(1), "%s: one throughput sample per round", c.Name)
					} else {
						Expect(s).To(HaveLen(c.Iterations), "%s: one sample per timed execution", c.Name)
					}
				}
				Expect(m.RoundMedians).To(HaveLen(2), "%s: one median per round", c.Name)
				Expect(m.Median).To(BeNumerically(">", 0), "%s: a median", c.Name)
				if i > 0 {
					Expect(m.Ratio).To(BeNumerically("~", m.Median/c.Results[0].Median, 1e-9), "%s: ratio to the first target", c.Name)
				}
			}
		}
		Expect(cmp.Diff([]string{"trivial", "one-call", "concurrent-8-runs"}, names)).To(BeEmpty(), "the selected cells, in table order")
		Expect(rep.Cells[1].NestedCalls).To(Equal(1), "one-call makes one nested call")
		Expect(rep.Cells[1].Code).To(ContainSubstring(`const ECHO = "ECHO"`), "the report shows the code with the catalog ids as placeholders")
		Expect(stdout).To(MatchRegexp(`(?m)^trivial\s+ms\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+0/0$`), "a table line per cell: medians, ratio, waits")
		Expect(stdout).To(ContainSubstring("every cell correct on every target"), "the table's closing line")
		Expect(stderr).To(ContainSubstring("round 2/2 one-call"), "progress lines on stderr")
	})

	It("reports a wrong value as incorrect, never times it, and exits 1", func() {
		code, stdout, _, rep := benchCmd("--target", "builtin", "--target", wrongValue, "--cells", "trivial", "--rounds", "1", "--warmup", "1")
		Expect(code).To(Equal(1), "an incorrect cell fails the bench; stdout:\n%s", stdout)
		Expect(rep.Correct).To(BeFalse(), "the report says so")
		good, bad := rep.Cells[0].Results[0], rep.Cells[0].Results[1]
		Expect(good.Correct).To(BeTrue(), "the reference is correct: %s", good.Detail)
		Expect(good.Median).To(BeNumerically(">", 0), "and timed")
		Expect(bad.Correct).To(BeFalse(), "1+2 is not the trivial cell's value")
		Expect(bad.Failure).To(Equal("wrong value"), "the failure names a wrong value")
		Expect(bad.Detail).To(ContainSubstring("got 3, want 2"), "expected vs actual")
		Expect(bad.Samples).To(BeEmpty(), "an incorrect cell has no samples")
		Expect(bad.Median).To(BeZero(), "and no median")
		Expect(bad.Ratio).To(BeZero(), "and no ratio")
		Expect(stdout).To(MatchRegexp(`(?m)^trivial\s+ms\s+[0-9.]+\s+FAIL wrong value\s+–`), "the table shows FAIL instead of a time")
		Expect(stdout).To(ContainSubstring("INCORRECT"), "and lists what was incorrect")
	})

	It("reports a failed cell with its error code", func() {
		code, stdout, _, rep := benchCmd("--target", "builtin", "--cells", "json-1e5", "--rounds", "1", "--warmup", "0", "--memory-limit-bytes", "1048576")
		Expect(code).To(Equal(1), "a failed cell fails the bench; stdout:\n%s", stdout)
		Expect(rep.Cells[0].CodeMode).To(MatchJSON(`{"enabled":true,"timeoutMs":60000,"memoryLimitBytes":1048576}`), "--memory-limit-bytes reaches tools.codeMode")
		m := rep.Cells[0].Results[0]
		Expect(m.Failure).To(Equal("memory_limit_exceeded"), "1e5 objects do not fit in 1 MiB: %s", m.Detail)
		Expect(stdout).To(ContainSubstring("FAIL memory_limit_exceeded"), "the table shows the code")
	})

	It("prints and records a hostile target's name and failures escaped (issue 28 N5)", func() {
		code, stdout, stderr, rep := benchCmd("--target", "fake:hostile", "--cells", "trivial", "--rounds", "1", "--warmup", "0")
		Expect(code).To(Equal(1), "the hostile fake fails every cell; stdout:\n%s", stdout)
		for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
			Expect(out).NotTo(ContainSubstring("\x1b"), "no raw escape in %s", name)
			Expect(out).NotTo(ContainSubstring("\u202e"), "no raw bidi override in %s", name)
			Expect(out).NotTo(MatchRegexp(`(?m)^Overall: `), "no line of the target's own in %s", name)
		}
		Expect(stdout+stderr).To(ContainSubstring("[name]"), "the name is shown")
		Expect(rep.Targets[0].Implementation.Name).NotTo(ContainSubstring("\n"), "bench.json's name is on one line")
		Expect(rep.Cells[0].Results[0].Detail).To(ContainSubstring("[error]"), "the failure is recorded")
		Expect(rep.Cells[0].Results[0].Detail).NotTo(ContainSubstring("\x1b"), "escaped")
	})

	It("makes the reference suspend in slow-tool-200ms, and shows that cell's own config", func() {
		code, stdout, _, rep := benchCmd("--target", "builtin", "--cells", "trivial,slow-tool-200ms", "--rounds", "1", "--warmup", "0")
		Expect(code).To(Equal(0), "stdout:\n%s", stdout)
		Expect(rep.Cells[1].CodeMode).To(MatchJSON(`{"enabled":true,"timeoutMs":700}`), "the cell's own timeoutMs")
		Expect(rep.Cells[1].Results[0].Waits).To(BeNumerically(">=", 1), "the 200 ms call outlasts the 175 ms drain window, so the cell suspends and needs a wait")
		Expect(stdout).To(ContainSubstring(`tools.codeMode: {"enabled":true,"timeoutMs":60000}; slow-tool-200ms: {"enabled":true,"timeoutMs":700}`), "the table names configs that differ")
	})

	It("reports a target it cannot connect to as failing every cell", func() {
		code, stdout, _, rep := benchCmd("--target", "builtin", "--target", "exec:/nonexistent/codemode-target", "--cells", "trivial", "--rounds", "1", "--warmup", "0")
		Expect(code).To(Equal(1), "stdout:\n%s", stdout)
		Expect(rep.Targets[1].Error).NotTo(BeEmpty(), "the connect error is recorded")
		Expect(rep.Cells[0].Results[1].Failure).To(Equal("error"), "the cell failed on it")
		Expect(rep.Cells[0].Results[0].Correct).To(BeTrue(), "the other target still ran")
	})

	DescribeTable("rejects bad usage with exit 2 and writes nothing",
		func(msg string, args ...string) {
			code, _, stderr, rep := benchCmd(args...)
			Expect(code).To(Equal(2), "usage error")
			Expect(stderr).To(ContainSubstring(msg), "the message says what is wrong")
			Expect(rep).To(BeNil(), "no bench.json")
		},
		Entry("no target", "no --target given"),
		Entry("unknown cell", `unknown cell "nope"`, "--target", "builtin", "--cells", "trivial,nope"),
		Entry("zero rounds", "--rounds must be at least 1", "--target", "builtin", "--rounds", "0"),
		Entry("stray argument", `unexpected argument "builtin"`, "builtin"),
		Entry("unknown flag", "flag provided but not defined: -bogus", "--target", "builtin", "--bogus"),
	)

	It("prints help with every cell on -h and exits 0", func() {
		var stdout, stderr bytes.Buffer
		Expect(bench.Command(context.Background(), []string{"-h"}, &stdout, &stderr)).To(Equal(0), "help is not an error")
		for _, c := range bench.StandardCells() {
			Expect(stdout.String()).To(ContainSubstring(c.Name), "help lists cell %s", c.Name)
		}
		Expect(stdout.String()).To(ContainSubstring("--memory-limit-bytes"), "help lists the flags")
	})
})

var _ = Describe("StandardCells", func() {
	It("expects the values JavaScript computes", func() {
		want := map[string]string{}
		for _, c := range bench.StandardCells() {
			want[c.Name] = c.Want
		}
		// loop-1e7: sum of i % 7 over 1e7 iterations, 1428571 full cycles of 0..6 plus 0+1+2.
		Expect(want["loop-1e7"]).To(Equal(strconv.Itoa(1428571*21+3)), "loop-1e7")
		// json-1e5: the length of the JSON Go writes for the same array.
		type obj struct {
			I int    `json:"i"`
			S string `json:"s"`
		}
		a := make([]obj, 1e5)
		for i := range a {
			a[i] = obj{i, "abc"}
		}
		b, err := json.Marshal(a)
		Expect(err).NotTo(HaveOccurred())
		Expect(want["json-1e5"]).To(Equal(strconv.Itoa(len(b))), "json-1e5")
		Expect(want["trivial"]).To(Equal("2"), "trivial")
	})

	It("names every cell once, in the issue's order", func() {
		var names []string
		for _, c := range bench.StandardCells() {
			names = append(names, c.Name)
		}
		Expect(strings.Join(names, " ")).To(Equal("trivial loop-1e7 push-1e6 json-1e5 one-call seq-10-calls parallel-100-calls slow-tool-200ms concurrent-8-runs"))
	})
})
