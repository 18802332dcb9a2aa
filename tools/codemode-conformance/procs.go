package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
)

// workerEnv makes a child process of run --procs a worker: its value is
// the JSON of a framework.Worker. The worker runs the same command line,
// writes its Ginkgo report to <Dir>/report-<Index>.json and no reports of
// its own; its output goes to <Dir>/worker-<Index>.log.
const workerEnv = "CODEMODE_CONFORMANCE_WORKER"

// procs is --procs: how many processes share the specs.
var procs int

// workerFromEnv returns the worker this process is, if workerEnv is set.
func workerFromEnv() (framework.Worker, bool) {
	v := os.Getenv(workerEnv)
	if v == "" {
		return framework.Worker{}, false
	}
	var w framework.Worker
	if err := json.Unmarshal([]byte(v), &w); err != nil || w.Dir == "" {
		fmt.Fprintf(os.Stderr, "codemode-conformance: bad $%s %q\n", workerEnv, v)
		os.Exit(2)
	}
	return w, true
}

// runWorker runs this worker's share of the specs and writes its report.
func runWorker(w framework.Worker, sc types.SuiteConfig, rc types.ReporterConfig) int {
	ginkgo.ReportAfterSuite("worker report", func(r types.Report) {
		for i := range r.SpecReports {
			r.SpecReports[i].ParallelProcess = w.Index + 1 // Ginkgo's field: which process ran it (this one is 1)
		}
		b, err := json.Marshal(r)
		if err == nil {
			err = os.WriteFile(reportFile(w.Dir, w.Index), b, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "codemode-conformance worker:", err)
		}
	})
	inWorker = true
	stop := watchSignals()
	ginkgo.RunSpecs(&fakeT{}, "codemode conformance", sc, rc)
	stop()
	return 0
}

func reportFile(dir string, i int) string {
	return filepath.Join(dir, "report-"+strconv.Itoa(i)+".json")
}

// pool is the other processes of a run --procs N: workers 1..N-1 share the
// parallel specs with this process (worker 0) from the start; worker N runs
// the Serial specs once all of them ended.
type pool struct {
	dir  string
	n    int
	mu   sync.Mutex
	cmds map[int]*exec.Cmd
	wg   sync.WaitGroup
}

func newPool(n int) (*pool, error) {
	dir, err := os.MkdirTemp("", "codemode-conformance-procs-")
	if err != nil {
		return nil, err
	}
	return &pool{dir: dir, n: n, cmds: map[int]*exec.Cmd{}}, nil
}

// start launches worker i: this command line again, with workerEnv set.
func (p *pool) start(i int, serial bool) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	env, _ := json.Marshal(framework.Worker{Dir: p.dir, Index: i, Serial: serial})
	log, err := os.Create(filepath.Join(p.dir, fmt.Sprintf("worker-%d.log", i)))
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Env = append(os.Environ(), workerEnv+"="+string(env))
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return err
	}
	p.mu.Lock()
	p.cmds[i] = cmd
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		_ = cmd.Wait()
		log.Close()
	}()
	return nil
}

// startParallel launches workers 1..n-1.
func (p *pool) startParallel() error {
	for i := 1; i < p.n; i++ {
		if err := p.start(i, false); err != nil {
			return fmt.Errorf("starting worker %d: %w", i, err)
		}
	}
	return nil
}

// signal passes a stop signal on to every running worker.
func (p *pool) signal(s os.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.cmds {
		if c.ProcessState == nil {
			_ = c.Process.Signal(s)
		}
	}
}

// finish waits for the parallel workers, runs the serial worker when own
// (this process's report) skipped a Serial spec for it, and returns the
// run's report: own with each spec another worker ran replaced by that
// worker's report of it (mergeReports).
func (p *pool) finish(own types.Report) types.Report {
	p.wg.Wait()
	workers := p.n
	if needsSerial(own) && signaled() == nil {
		if err := p.start(p.n, true); err != nil {
			fmt.Fprintf(os.Stderr, "codemode-conformance: starting the serial worker: %v\n", err)
		}
		p.wg.Wait()
		workers++
	}
	var others []types.Report
	var lost []string
	lostWorkers := map[int]bool{}
	for i := 1; i < workers; i++ {
		b, err := os.ReadFile(reportFile(p.dir, i))
		var r types.Report
		if err == nil {
			err = json.Unmarshal(b, &r)
		}
		if err != nil {
			lostWorkers[i] = true
			lost = append(lost, fmt.Sprintf("worker %d of --procs %d ended without its report (%v); its output:\n%s", i, p.n, err, tail(filepath.Join(p.dir, fmt.Sprintf("worker-%d.log", i)))))
			continue
		}
		others = append(others, r)
	}
	m := mergeReports(own, others)
	if len(lostWorkers) > 0 {
		serial := 0 // the serial worker's index, when it ran
		if workers > p.n {
			serial = p.n
		}
		m = markLost(m, readClaims(p.dir), lostWorkers, serial, p.n)
	}
	for _, why := range lost {
		m.SuiteSucceeded = false
		m.SpecReports = append(m.SpecReports, types.SpecReport{LeafNodeType: types.NodeTypeAfterSuite, State: types.SpecStateFailed,
			Failure: types.Failure{Message: why}, StartTime: m.EndTime, EndTime: m.EndTime})
	}
	// The lost workers' log tails are in the suite errors: nothing of the
	// run stays in $TMPDIR.
	os.RemoveAll(p.dir)
	return m
}

// readClaims maps the claim files of the run's claim directory dir to the
// index of the worker that wrote each (framework.ClaimName).
func readClaims(dir string) map[string]int {
	out := map[string]int{}
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if i, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			out[e.Name()] = i
		}
	}
	return out
}

// lostPrefix starts the error of a spec whose worker ended without its report.
const lostPrefix = "lost with worker"

// markLost turns every spec of m still skipped as claimed elsewhere (or not
// reached) after the merge, which a worker of lost had claimed (claims: claim file name to
// worker), or a Serial one when serial (the serial worker's index, 0: it
// did not run) is lost, into an error "lost with worker N": the spec was
// taken (or due) but no report of it came back, so it is neither a skip nor
// a verdict on the target. n is --procs.
func markLost(m types.Report, claims map[string]int, lost map[int]bool, serial, n int) types.Report {
	seen := map[string]int{}
	for i, s := range m.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt {
			continue
		}
		// Every It is counted, a deselected one too (this report cannot
		// tell it from one this process never reached): spec names are
		// unique (tools/conformance-md fails otherwise), so n is 1.
		loc, text := s.LeafNodeLocation.String(), s.FullText()
		seen[loc+"\x00"+text]++
		if s.State != types.SpecStateSkipped || !(claimedElsewhere(s) || s.Failure.Message == "") {
			continue // judged, or skipped for a reason of its own
		}
		w, ok := claims[framework.ClaimName(loc, text, seen[loc+"\x00"+text])]
		switch {
		case ok && lost[w]:
		case !ok && s.IsSerial && serial > 0 && lost[serial]:
			w = serial
		default:
			continue
		}
		why := fmt.Sprintf("%s %d of --procs %d: the process that had taken this spec ended without its report (killed or crashed; its output is in the run's suite errors), so the spec has no verdict", lostPrefix, w, n)
		if !ok {
			why = fmt.Sprintf("%s %d of --procs %d: the serial worker ended without its report before it took this spec, so the spec has no verdict", lostPrefix, w, n)
		}
		s.State = types.SpecStateFailed
		s.Failure = types.Failure{Message: why}
		s.ReportEntries = append(s.ReportEntries, types.ReportEntry{Name: report.HarnessErrorEntry, Value: types.WrapEntryValue(why),
			Visibility: types.ReportEntryVisibilityFailureOrVerbose, Time: m.EndTime})
		m.SpecReports[i] = s
		m.SuiteSucceeded = false
	}
	return m
}

// tail is the end of a worker's log, for the suite error of a lost worker.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// needsSerial: r skipped a Serial spec for the serial worker.
func needsSerial(r types.Report) bool {
	for _, s := range r.SpecReports {
		if s.IsSerial && claimedElsewhere(s) {
			return true
		}
	}
	return false
}

func claimedElsewhere(s types.SpecReport) bool {
	return s.State == types.SpecStateSkipped && s.Failure.Message == framework.ClaimedElsewhere
}

// mergeReports is own, in its order, with every spec own skipped as
// claimed elsewhere taken from the worker that ran it (the same text,
// location and occurrence), every failed suite-level node of the others
// added (a worker's BeforeSuite or AfterSuite, e.g. an AfterLastSpec
// defect), and the suite a success only when every worker's was.
func mergeReports(own types.Report, others []types.Report) types.Report {
	ran := map[string]types.SpecReport{}
	for _, o := range others {
		seen := map[string]int{}
		for _, s := range o.SpecReports {
			k := specKey(s, seen)
			if s.LeafNodeType == types.NodeTypeIt && !claimedElsewhere(s) {
				ran[k] = s
			}
		}
		if !o.SuiteSucceeded {
			own.SuiteSucceeded = false
		}
		own.SpecialSuiteFailureReasons = append(own.SpecialSuiteFailureReasons, o.SpecialSuiteFailureReasons...)
	}
	seen := map[string]int{}
	out := make([]types.SpecReport, 0, len(own.SpecReports))
	for _, s := range own.SpecReports {
		k := specKey(s, seen)
		// A spec this process skipped for another, or never reached (the
		// run was stopped), is taken from the worker that ran it.
		if claimedElsewhere(s) || s.State == types.SpecStateSkipped && s.Failure.Message == "" {
			if r, ok := ran[k]; ok && (claimedElsewhere(s) || report.Selected(r)) {
				s = r
			}
		}
		out = append(out, s)
	}
	for _, o := range others {
		for _, s := range o.SpecReports {
			if s.LeafNodeType.Is(types.NodeTypesForSuiteLevelNodes) && s.State.Is(types.SpecStateFailureStates) {
				s.Failure.Message = "(another process of --procs) " + s.Failure.Message
				out = append(out, s)
			}
		}
	}
	own.SpecReports = out
	own.EndTime = time.Now()
	own.RunTime = own.EndTime.Sub(own.StartTime)
	return own
}

// specKey names a spec report across workers: its node type, location and
// text, and how many before it in the report had those (seen counts).
func specKey(s types.SpecReport, seen map[string]int) string {
	k := strings.Join([]string{s.LeafNodeType.String(), s.LeafNodeLocation.String(), s.FullText()}, "\x00")
	seen[k]++
	return k + "\x00" + strconv.Itoa(seen[k])
}
