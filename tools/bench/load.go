package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/codemode-conformance/codemode/suites/framework"
)

// LoadOptions configure a load and capacity bench of the reference
// (LoadRun, `codemode-conformance bench-load`). These are measurements,
// not tests: nothing here passes or fails on a number.
type LoadOptions struct {
	// Reference is the codemode-reference binary, started with serve
	// --stdio and serve --listen.
	Reference string
	// Concurrency lists the numbers of concurrent runs of the throughput
	// points (default 1, 16, 64, 256).
	Concurrency []int
	// Duration is how long each throughput point runs (default 10 s).
	Duration time.Duration
	// Conns is the number of TCP connections of the tcp points (default 8).
	Conns int
	// Suspended is the number of runs suspended at once for the RSS figure
	// (default 64: CM-RUN-05's per-process cap).
	Suspended int
	// Busy is the number of spinning cells behind which runtime.stats is
	// timed (default 256).
	Busy int
	// Progress receives one line per step (nil: discarded).
	Progress io.Writer
}

// LoadReport is bench-load.json.
type LoadReport struct {
	Harness   protocol.Peer `json:"harness"`
	Date      time.Time     `json:"date"`
	Machine   Machine       `json:"machine"`
	Reference string        `json:"reference"`
	// Throughput has one point per transport and concurrency.
	Throughput []LoadPoint `json:"throughput"`
	// Suspend is the memory that suspended runs hold.
	Suspend SuspendFigure `json:"suspend"`
	// Control is runtime.stats latency behind busy cells.
	Control ControlFigure `json:"control"`
	// Memory is the peak RSS under a --max-memory budget.
	Memory MemoryFigure `json:"memory"`
}

// LoadPoint is trivial cells (return 1+1) executed back to back by Runs
// concurrent runs for a while.
type LoadPoint struct {
	// Transport is "stdio" (one connection) or "tcp×N" (N connections to
	// one serve --listen process, runs spread evenly).
	Transport string `json:"transport"`
	Runs      int    `json:"runs"`
	// Cells is the number of correct cells; Errors the others (Error is the
	// first one).
	Cells   int     `json:"cells"`
	Errors  int     `json:"errors"`
	Error   string  `json:"error,omitempty"`
	Seconds float64 `json:"seconds"`
	// CellsPerSec is Cells / Seconds; P50Ms and P99Ms are percentiles of
	// one cell's wall time from tool.exec to its result, in milliseconds.
	CellsPerSec float64 `json:"cellsPerSec"`
	P50Ms       float64 `json:"p50Ms"`
	P99Ms       float64 `json:"p99Ms"`
	// PeakRSSKB is the server's peak resident set (tcp points only: the
	// bench starts that process itself), in KiB.
	PeakRSSKB int64 `json:"peakRssKB,omitempty"`
}

// SuspendFigure is the resident memory of Runs suspended runs in one
// serve --listen process, over Conns connections.
type SuspendFigure struct {
	Runs  int `json:"runs"`
	Conns int `json:"conns"`
	// Waiting is how many cells did suspend; Resumed how many then
	// completed with the right value after wait.
	Waiting int `json:"waiting"`
	Resumed int `json:"resumed"`
	// RSS before suspending (after one trivial cell per connection) and
	// while all are suspended, in KiB; PerRunKB is their difference per
	// waiting run.
	RSSBeforeKB int64   `json:"rssBeforeKB"`
	RSSHeldKB   int64   `json:"rssHeldKB"`
	PerRunKB    float64 `json:"perRunKB"`
	// SnapshotBytes is runtime.stats snapshotBytes of the serve --listen
	// process while every run is held (the process's figure, read once).
	SnapshotBytes int64  `json:"snapshotBytes"`
	Error         string `json:"error,omitempty"`
}

// ControlFigure is runtime.stats latency on one stdio connection while Busy
// cells spin in while(true){} (timeoutMs 60000) on it: runtime.stats is
// sent from the moment the cells are sent (every startupPause while fewer
// than Busy are live, then back to back) until 20 answers came with all
// Busy cells live, within the cells' first 45 s (none has reached its
// deadline).
type ControlFigure struct {
	Busy int `json:"busy"`
	// Samples are the latencies in milliseconds and LiveVMsSeen what each
	// answer reported (a target may refuse cells beyond a limit of live
	// VMs, and the cells take a while to start); LiveVMs is the most seen.
	Samples     []float64 `json:"samplesMs"`
	LiveVMsSeen []int     `json:"liveVMsSeen"`
	LiveVMs     int       `json:"liveVMs"`
	// AtBusy is how many samples were taken with all Busy cells live (up
	// to 20); P50Ms and MaxMs are over those (over every sample when
	// none was). StartupMaxMs is the slowest answer while the cells were
	// still starting.
	AtBusy       int     `json:"atBusy"`
	P50Ms        float64 `json:"p50Ms"`
	MaxMs        float64 `json:"maxMs"`
	StartupMaxMs float64 `json:"startupMaxMs"`
	Error        string  `json:"error,omitempty"`
}

// busyTimeoutMs is the timeoutMs of the spinning cells of the control
// figure (the clamp's maximum, CM-CFG-05): far beyond any sane stats
// latency, so that a target whose control requests wait behind cells shows
// it as seconds, and no cell ends while the samples are taken.
const busyTimeoutMs = 60000

// startupPause spaces the control figure's samples while its cells start.
const startupPause = 50 * time.Millisecond

// controlWindow bounds the sampling of the control figure after the cells
// were sent.
const controlWindow = 45 * time.Second

// LoadRun runs the load and capacity bench of o.Reference.
func LoadRun(ctx context.Context, o LoadOptions) *LoadReport {
	if len(o.Concurrency) == 0 {
		o.Concurrency = []int{1, 16, 64, 256}
	}
	if o.Duration <= 0 {
		o.Duration = 10 * time.Second
	}
	if o.Conns <= 0 {
		o.Conns = 8
	}
	if o.Suspended <= 0 {
		o.Suspended = 64
	}
	if o.Busy <= 0 {
		o.Busy = 256
	}
	say := func(f string, a ...any) {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, f+"\n", a...)
		}
	}
	rep := &LoadReport{Harness: protocol.Peer{Name: framework.HarnessName, Version: framework.HarnessVersion},
		Date: time.Now().UTC().Truncate(time.Second), Machine: machine(), Reference: o.Reference}
	for _, n := range o.Concurrency {
		p := throughput(ctx, o, "stdio", n)
		say("stdio   %4d runs: %6.1f cells/s, p50 %.0f ms, p99 %.0f ms, %d errors", n, p.CellsPerSec, p.P50Ms, p.P99Ms, p.Errors)
		rep.Throughput = append(rep.Throughput, p)
		p = throughput(ctx, o, "tcp", n)
		say("tcp×%-3d %4d runs: %6.1f cells/s, p50 %.0f ms, p99 %.0f ms, %d errors, peak RSS %d KiB", o.Conns, n, p.CellsPerSec, p.P50Ms, p.P99Ms, p.Errors, p.PeakRSSKB)
		rep.Throughput = append(rep.Throughput, p)
	}
	rep.Suspend = suspendFigure(ctx, o)
	say("suspended: %d of %d waiting, %d resumed, %.0f KiB RSS per run %s", rep.Suspend.Waiting, rep.Suspend.Runs, rep.Suspend.Resumed, rep.Suspend.PerRunKB, rep.Suspend.Error)
	rep.Control = controlFigure(ctx, o)
	say("runtime.stats behind %d busy cells (liveVMs %d, %d samples at full load): p50 %.1f ms, max %.1f ms; max %.1f ms while they started %s", rep.Control.Busy, rep.Control.LiveVMs, rep.Control.AtBusy, rep.Control.P50Ms, rep.Control.MaxMs, rep.Control.StartupMaxMs, rep.Control.Error)
	rep.Memory = memoryFigure(ctx, o)
	say("--max-memory %d MiB, %d runs of %d MiB × %d rounds: %d completed, %d refused, %d other; peak RSS %d KiB %s", rep.Memory.BudgetBytes>>20, rep.Memory.Runs, rep.Memory.MemoryLimitBytes>>20, rep.Memory.Rounds, rep.Memory.Completed, rep.Memory.Refused, rep.Memory.Other, rep.Memory.PeakRSSKB, rep.Memory.Error)
	rep.Machine.LoadAverageEnd = loadAverage()
	return rep
}

// server is a serve --listen process of the reference.
type server struct {
	cmd  *exec.Cmd
	addr string
	peak atomic.Int64
	stop chan struct{}
}

// listen starts the reference on a free port and samples its peak RSS.
func listen(ref string, flags ...string) (*server, error) {
	cmd := exec.Command(ref, append([]string{"serve", "--listen", "127.0.0.1:0"}, flags...)...)
	errs, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, stop: make(chan struct{})}
	sc := bufio.NewScanner(errs)
	for sc.Scan() {
		if _, addr, ok := strings.Cut(sc.Text(), "listening on "); ok {
			s.addr = strings.TrimSpace(addr)
			break
		}
	}
	if s.addr == "" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("%s serve --listen never said where it listens", ref)
	}
	go func() { _, _ = io.Copy(io.Discard, errs) }()
	go func() {
		for {
			if r := rssKB(cmd.Process.Pid); r > s.peak.Load() {
				s.peak.Store(r)
			}
			select {
			case <-s.stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return s, nil
}

func (s *server) close() {
	close(s.stop)
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

// rssKB is the resident set of process pid in KiB (0 if unknown).
func rssKB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// sessions connects to the reference over transport ("stdio": one
// connection to a fresh serve --stdio; "tcp": o.Conns connections to a
// fresh serve --listen, returned too).
func sessions(ctx context.Context, o LoadOptions, transport string) ([]*session, *server, error) {
	if transport == "stdio" {
		s, err := connect(ctx, "exec:"+o.Reference+" serve --stdio")
		if err != nil {
			return nil, nil, err
		}
		return []*session{s}, nil, nil
	}
	srv, err := listen(o.Reference)
	if err != nil {
		return nil, nil, err
	}
	var ss []*session
	for i := 0; i < o.Conns; i++ {
		s, err := connect(ctx, "tcp:"+srv.addr)
		if err != nil {
			closeAll(ss, srv)
			return nil, nil, err
		}
		ss = append(ss, s)
	}
	return ss, srv, nil
}

func closeAll(ss []*session, srv *server) {
	for _, s := range ss {
		s.close()
	}
	if srv != nil {
		srv.close()
	}
}

// prepareAll prepares n runs with codeMode, spread over ss, concurrently.
func prepareAll(ctx context.Context, ss []*session, n int, codeMode json.RawMessage) ([]*benchRun, []*session, error) {
	runs := make([]*benchRun, n)
	owner := make([]*session, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16) // the catalog cells of prepare are not what is measured
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			owner[i] = ss[i%len(ss)]
			runs[i], errs[i] = owner[i].prepare(ctx, codeMode)
		}()
	}
	wg.Wait()
	return runs, owner, errors.Join(errs...)
}

// endAll ends every prepared run.
func endAll(runs []*benchRun, owner []*session) {
	for i, r := range runs {
		if r != nil {
			owner[i].end(r)
		}
	}
}

// throughput is one LoadPoint: n runs execute the trivial cell back to back
// for o.Duration.
func throughput(ctx context.Context, o LoadOptions, transport string, n int) LoadPoint {
	p := LoadPoint{Transport: transport, Runs: n}
	if transport == "tcp" {
		p.Transport = fmt.Sprintf("tcp×%d", o.Conns)
	}
	ss, srv, err := sessions(ctx, o, transport)
	if err != nil {
		p.Error = err.Error()
		return p
	}
	defer closeAll(ss, srv)
	cell := StandardCells()[0] // trivial: return 1+1
	runs, owner, err := prepareAll(ctx, ss, n, Options{}.CodeMode(cell))
	defer endAll(runs, owner)
	if err != nil {
		p.Error = "prepare: " + err.Error()
		return p
	}
	if srv != nil {
		srv.peak.Store(0)
	}
	var mu sync.Mutex
	var lat []float64
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(o.Duration)
	for i, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				smp, err := owner[i].runCell(ctx, cell, r)
				mu.Lock()
				if err != nil {
					p.Errors++
					if p.Error == "" {
						p.Error = err.Error()
					}
				} else {
					lat = append(lat, float64(smp.elapsed.Microseconds())/1000)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	p.Seconds = time.Since(start).Seconds()
	p.Cells = len(lat)
	p.CellsPerSec = float64(p.Cells) / p.Seconds
	p.P50Ms, p.P99Ms = percentile(lat, 0.50), percentile(lat, 0.99)
	if srv != nil {
		p.PeakRSSKB = srv.peak.Load()
	}
	return p
}

// percentile of xs (nearest rank); 0 for none.
func percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[int(q*float64(len(s)-1)+0.5)]
}

// suspendCell suspends with yield_control and returns 7 when resumed.
const suspendCell = `await yield_control("bench-load"); return 7`

// suspendFigure measures the resident memory per suspended run.
func suspendFigure(ctx context.Context, o LoadOptions) SuspendFigure {
	f := SuspendFigure{Runs: o.Suspended, Conns: o.Conns}
	ss, srv, err := sessions(ctx, o, "tcp")
	if err != nil {
		f.Error = err.Error()
		return f
	}
	defer closeAll(ss, srv)
	cm := json.RawMessage(`{"enabled":true,"timeoutMs":60000}`)
	// prepare runs one catalog cell per run: the engine is warm after it.
	runs, owner, err := prepareAll(ctx, ss, o.Suspended, cm)
	defer endAll(runs, owner)
	if err != nil {
		f.Error = "prepare: " + err.Error()
		return f
	}
	f.RSSBeforeKB = rssKB(srv.cmd.Process.Pid)
	ids := make([]string, len(runs))
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in, _ := json.Marshal(map[string]string{"code": suspendCell})
			res, err := owner[i].toolCall(ctx, r, protocol.MethodToolExec, "", in)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				f.Error = err.Error()
			case res.Status != result.StatusWaiting:
				f.Error = "exec: " + describe(res)
			default:
				ids[i] = res.RunID
				f.Waiting++
			}
		}()
	}
	wg.Wait()
	f.RSSHeldKB = rssKB(srv.cmd.Process.Pid)
	if f.Waiting > 0 {
		f.PerRunKB = float64(f.RSSHeldKB-f.RSSBeforeKB) / float64(f.Waiting)
	}
	// runtime.stats is the process's (every connection of the one serve
	// --listen process answers the same sums), so it is read once: summing
	// it per connection counted every snapshot Conns times.
	cctx, cancel := context.WithTimeout(ctx, framework.Timeouts.Call)
	if st, err := ss[0].t.Stats(cctx); err == nil {
		f.SnapshotBytes = st.SnapshotBytes
	}
	cancel()
	for i, r := range runs {
		if ids[i] == "" {
			continue
		}
		in, _ := json.Marshal(map[string]string{"runId": ids[i]})
		res, err := owner[i].toolCall(ctx, r, protocol.MethodToolWait, ids[i], in)
		if err == nil && res.Status == result.StatusCompleted && string(res.Value) == "7" {
			f.Resumed++
		} else if f.Error == "" {
			f.Error = fmt.Sprintf("wait: %v %s", err, describe(res))
		}
	}
	return f
}

// controlFigure times runtime.stats behind o.Busy spinning cells on one
// stdio connection.
func controlFigure(ctx context.Context, o LoadOptions) ControlFigure {
	f := ControlFigure{Busy: o.Busy}
	ss, _, err := sessions(ctx, o, "stdio")
	if err != nil {
		f.Error = err.Error()
		return f
	}
	defer closeAll(ss, nil)
	s := ss[0]
	cm := json.RawMessage(fmt.Sprintf(`{"enabled":true,"timeoutMs":%d}`, busyTimeoutMs))
	runs, owner, err := prepareAll(ctx, ss, o.Busy, cm)
	defer endAll(runs, owner)
	if err != nil {
		f.Error = "prepare: " + err.Error()
		return f
	}
	var wg sync.WaitGroup
	in, _ := json.Marshal(map[string]string{"code": "while (true) {}"})
	for _, r := range runs {
		// An exec that waits for a handler must not hit the harness's call
		// deadline (the target would be killed mid-figure): give it room.
		r.timeout = 2 * busyTimeoutMs * time.Millisecond
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = s.toolCall(ctx, r, protocol.MethodToolExec, "", in) // ends aborted (or by its deadline)
		}()
	}
	defer func() {
		for _, r := range runs {
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_ = s.call(cctx, protocol.MethodRunAbort, protocol.RunParams{Run: r.id}, nil)
			cancel()
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second): // cells the abort did not stop: stop the target
			s.close()
			<-done
		}
	}()
	stats := func() (protocol.Stats, float64, error) {
		cctx, cancel := context.WithTimeout(ctx, 2*busyTimeoutMs*time.Millisecond)
		defer cancel()
		t := time.Now()
		st, err := s.t.Stats(cctx)
		return st, float64(time.Since(t).Microseconds()) / 1000, err
	}
	start := time.Now()
	var full []float64
	for len(full) < 20 && time.Since(start) < controlWindow {
		st, ms, err := stats()
		if err != nil {
			f.Error = err.Error()
			break
		}
		f.Samples = append(f.Samples, ms)
		f.LiveVMsSeen = append(f.LiveVMsSeen, st.LiveVMs)
		f.LiveVMs = max(f.LiveVMs, st.LiveVMs)
		if st.LiveVMs >= o.Busy {
			full = append(full, ms)
		} else {
			time.Sleep(startupPause) // the cells are still starting
		}
	}
	f.AtBusy = len(full)
	if len(full) == 0 { // a target that never runs Busy cells at once
		full = f.Samples
	}
	f.P50Ms = median(full)
	for _, x := range full {
		f.MaxMs = max(f.MaxMs, x)
	}
	for i, x := range f.Samples {
		if f.LiveVMsSeen[i] < o.Busy {
			f.StartupMaxMs = max(f.StartupMaxMs, x)
		}
	}
	return f
}

// WriteJSON writes the report to path, indented.
func (r *LoadReport) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// WriteTable prints the machine and the three figures as tables.
func (r *LoadReport) WriteTable(w io.Writer) {
	m := r.Machine
	fmt.Fprintf(w, "codemode-conformance bench-load %s: %s\n", r.Date.Format(time.RFC3339), r.Reference)
	fmt.Fprintf(w, "machine: %s/%s, %d CPUs %s, %s, load average %s → %s\n\n", m.OS, m.Arch, m.CPUs, m.CPUModel, m.GoVersion, m.LoadAverageStart, m.LoadAverageEnd)
	rows := [][]string{{"transport", "runs", "cells/s", "p50 ms", "p99 ms", "errors", "peak RSS MiB"}}
	for _, p := range r.Throughput {
		rss := "-"
		if p.PeakRSSKB > 0 {
			rss = fmt.Sprintf("%.0f", float64(p.PeakRSSKB)/1024)
		}
		errs := strconv.Itoa(p.Errors)
		if p.Error != "" {
			errs += " (" + cut(firstLine(p.Error)) + ")"
		}
		rows = append(rows, []string{p.Transport, strconv.Itoa(p.Runs), fmt.Sprintf("%.1f", p.CellsPerSec), fmt.Sprintf("%.0f", p.P50Ms), fmt.Sprintf("%.0f", p.P99Ms), errs, rss})
	}
	writeColumns(w, rows)
	s := r.Suspend
	fmt.Fprintf(w, "\nsuspended runs: %d of %d waiting over %d tcp connections, %d resumed correctly; RSS %.1f → %.1f MiB, %.0f KiB per run; snapshotBytes %.0f KiB per run%s\n",
		s.Waiting, s.Runs, s.Conns, s.Resumed, float64(s.RSSBeforeKB)/1024, float64(s.RSSHeldKB)/1024, s.PerRunKB, float64(s.SnapshotBytes)/1024/float64(max(s.Waiting, 1)), errNote(s.Error))
	c := r.Control
	fmt.Fprintf(w, "runtime.stats behind %d busy cells on one stdio connection: p50 %.1f ms, max %.1f ms over %d samples back to back with all of them live; max %.1f ms while they started (%d samples in all, liveVMs seen: %v)%s\n",
		c.Busy, c.P50Ms, c.MaxMs, c.AtBusy, c.StartupMaxMs, len(c.Samples), c.LiveVMsSeen, errNote(c.Error))
	mf := r.Memory
	fmt.Fprintf(w, "memory budget: serve --listen --max-memory %d MiB, %d runs of memoryLimitBytes %d MiB filling 64 MiB each, %d rounds at once: %d completed, %d refused runtime_unavailable, %d other; peak RSS %.0f MiB against the budget's %d MiB%s\n",
		mf.BudgetBytes>>20, mf.Runs, mf.MemoryLimitBytes>>20, mf.Rounds, mf.Completed, mf.Refused, mf.Other, float64(mf.PeakRSSKB)/1024, mf.BudgetBytes>>20, errNote(mf.Error))
}

func errNote(e string) string {
	if e == "" {
		return ""
	}
	return " (error: " + cut(firstLine(e)) + ")"
}
