package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/tools/report"
)

// Options configure one bench.
type Options struct {
	// Targets are --target values (builtin, exec:…, tcp:…, or any
	// registered name); ratios are to the first.
	Targets []string
	// Cells to run, in table order (StandardCells by default).
	Cells []Cell
	// Rounds of timed executions, interleaved across targets (default 3).
	Rounds int
	// Warmup is the untimed, checked executions of each cell per target
	// before the rounds (default 0: none). Cells timed once per round (the
	// loop, push and JSON cells: seconds each, where start-up effects are
	// noise) are not warmed up, which keeps a bench within minutes.
	Warmup int
	// MemoryLimitBytes, when > 0, is set as memoryLimitBytes in every
	// cell's tools.codeMode; 0 leaves the target's default (64 MiB).
	MemoryLimitBytes int64
	// Progress receives one line per step (nil: discarded).
	Progress io.Writer
}

// TimeoutMs is the tools.codeMode timeoutMs of every cell that does not set
// its own.
const TimeoutMs = 60000

// CodeMode is the tools.codeMode value of c's runs:
// {"enabled":true,"timeoutMs":60000} (or the cell's own timeoutMs), plus
// memoryLimitBytes when set.
func (o Options) CodeMode(c Cell) json.RawMessage {
	m := map[string]any{"enabled": true, "timeoutMs": TimeoutMs}
	if c.TimeoutMs > 0 {
		m["timeoutMs"] = c.TimeoutMs
	}
	if o.MemoryLimitBytes > 0 {
		m["memoryLimitBytes"] = o.MemoryLimitBytes
	}
	b, _ := json.Marshal(m)
	return b
}

// cellState is one cell on one target while the bench runs.
type cellState struct {
	m    *Measurement
	runs []*benchRun
}

// Run benchmarks o.Cells on every target and returns the report. Targets
// are connected one after the other; each round then runs every cell on
// every target in turn, the starting target rotating per round (A, B; B,
// A; …), so that machine noise hits all targets alike. A cell that is
// incorrect once on a target (during warm-up or any round) is reported as
// failed there and not run again on it.
func Run(ctx context.Context, o Options) *Report {
	if o.Rounds <= 0 {
		o.Rounds = 3
	}
	if o.Cells == nil {
		o.Cells = StandardCells()
	}
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	say := func(f string, a ...any) { fmt.Fprintf(progress, f+"\n", a...) }
	rep := &Report{Harness: protocol.Peer{Name: framework.HarnessName, Version: framework.HarnessVersion},
		Date: time.Now().UTC().Truncate(time.Second), Machine: machine(), Rounds: o.Rounds, Warmup: o.Warmup}
	for _, c := range o.Cells {
		rep.Cells = append(rep.Cells, CellReport{Name: c.Name, Description: c.Description, Code: c.Code(map[string]string{"echo": "ECHO", "slow": "SLOW"}),
			CodeMode: o.CodeMode(c), Expected: json.RawMessage(c.Want), NestedCalls: c.Calls, Unit: c.Unit(), Iterations: c.Iterations, Runs: c.Runs,
			Results: make([]Measurement, len(o.Targets))})
	}

	sessions := make([]*session, len(o.Targets))
	states := make([][]*cellState, len(o.Targets)) // [target][cell]
	for ti, spec := range o.Targets {
		t := Target{Spec: spec, Features: []string{}}
		say("connecting %s", spec)
		s, err := connect(ctx, spec)
		if err != nil {
			t.Error = err.Error()
			say("  %s: %v", spec, err)
		} else {
			sessions[ti] = s
			t.Implementation, t.Features = s.t.Init.Implementation, s.t.Init.Features
			t.Implementation.Name, t.Implementation.Version = report.Clean(t.Implementation.Name), report.Clean(t.Implementation.Version) // the target's strings, for the console and every bench report
			say("  %s: %s %s", spec, t.Implementation.Name, t.Implementation.Version)
		}
		rep.Targets = append(rep.Targets, t)
		for ci, c := range o.Cells {
			rep.Cells[ci].Results[ti] = Measurement{Target: spec, Samples: [][]float64{}, RoundMedians: []float64{}}
			st := &cellState{m: &rep.Cells[ci].Results[ti]} // Results is never reallocated
			states[ti] = append(states[ti], st)
			if err != nil {
				fail(st.m, fmt.Errorf("connecting: %w", err))
				continue
			}
			for range max(c.Runs, 1) {
				r, perr := s.prepare(ctx, o.CodeMode(c))
				if perr != nil {
					fail(st.m, perr)
					break
				}
				st.runs = append(st.runs, r)
			}
		}
	}
	defer func() {
		for ti, s := range sessions {
			if s == nil {
				continue
			}
			for _, st := range states[ti] {
				for _, r := range st.runs {
					s.end(r)
				}
			}
			s.close()
		}
	}()

	// one runs cell ci on target ti once (all its runs for a throughput
	// cell) and returns the sample in the cell's unit.
	one := func(ti, ci int) (float64, int, error) {
		c, st, s := o.Cells[ci], states[ti][ci], sessions[ti]
		if c.Runs <= 1 {
			smp, err := s.runCell(ctx, c, st.runs[0])
			return float64(smp.elapsed.Microseconds()) / 1000, smp.waits, err
		}
		var wg sync.WaitGroup
		errs := make([]error, len(st.runs))
		waits := make([]int, len(st.runs))
		start := time.Now()
		for i, r := range st.runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range c.Iterations {
					smp, err := s.runCell(ctx, c, r)
					waits[i] = max(waits[i], smp.waits)
					if err != nil {
						errs[i] = err
						return
					}
				}
			}()
		}
		wg.Wait()
		el := time.Since(start).Seconds()
		return float64(len(st.runs)*c.Iterations) / el, slices.Max(waits), errors.Join(errs...)
	}

	for w := 0; w < o.Warmup; w++ {
		for ci, c := range o.Cells {
			if c.Iterations == 1 && c.Runs <= 1 {
				continue
			}
			for ti := range o.Targets {
				st := states[ti][ci]
				if st.m.Failure != "" {
					continue
				}
				_, waits, err := one(ti, ci)
				st.m.Waits = max(st.m.Waits, waits)
				if err != nil {
					fail(st.m, err)
					say("warm-up %s on %s: FAIL %s", c.Name, o.Targets[ti], st.m.Detail)
				} else {
					say("warm-up %s on %s: ok", c.Name, o.Targets[ti])
				}
			}
		}
	}

	for round := 0; round < o.Rounds; round++ {
		for ci, c := range o.Cells {
			for k := range o.Targets {
				ti := (round + k) % len(o.Targets)
				st := states[ti][ci]
				if st.m.Failure != "" {
					continue
				}
				n := c.Iterations
				if c.Runs > 1 {
					n = 1
				}
				var xs []float64
				var err error
				for range n {
					var x float64
					var waits int
					x, waits, err = one(ti, ci)
					st.m.Waits = max(st.m.Waits, waits)
					if err != nil {
						break
					}
					xs = append(xs, x)
				}
				if err != nil {
					fail(st.m, err)
					say("round %d/%d %-20s %s: FAIL %s", round+1, o.Rounds, c.Name, o.Targets[ti], st.m.Detail)
					continue
				}
				st.m.Samples = append(st.m.Samples, xs)
				st.m.RoundMedians = append(st.m.RoundMedians, median(xs))
				say("round %d/%d %-20s %s: %.1f %s (median of %d, waits %d)", round+1, o.Rounds, c.Name, o.Targets[ti], median(xs), c.Unit(), len(xs), st.m.Waits)
			}
		}
	}

	rep.Correct = len(o.Targets) > 0
	for ci := range rep.Cells {
		res := rep.Cells[ci].Results
		for ti := range res {
			m := &res[ti]
			m.Correct = m.Failure == ""
			rep.Correct = rep.Correct && m.Correct
			if m.Correct {
				m.Median = median(m.RoundMedians)
			}
			if ti > 0 && m.Correct && res[0].Correct && res[0].Median > 0 {
				m.Ratio = m.Median / res[0].Median
			}
		}
	}
	rep.Machine.LoadAverageEnd = loadAverage()
	return rep
}

// fail marks m incorrect with err and drops its timings: an incorrect cell
// is never timed.
func fail(m *Measurement, err error) {
	var cf *CellFailure
	switch {
	case errors.As(err, &cf):
		m.Failure = cf.Code
	case errors.Is(err, ErrIncorrect):
		m.Failure = "incorrect"
	default:
		m.Failure = "error"
	}
	m.Detail = report.Clean(err.Error()) // quotes what the target sent: for the console and bench.txt (issue 28 N5)
	m.Samples, m.RoundMedians, m.Median, m.Ratio = [][]float64{}, []float64{}, 0, 0
}

func machine() Machine {
	m := Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), LoadAverageStart: loadAverage()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
