package clitest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
)

// runTimeout bounds one queued run, as wait bounds a run of Conformance.
const runTimeout = 5 * time.Minute

// Queue runs `codemode-conformance run` in the background, at most n runs at
// a time, started in the order they were queued. The runs of the
// broken-variant specs mostly wait on deadlines (a few seconds of wall
// clock, a fraction of a second of CPU each), so a few of them overlap well
// while the specs read their outcomes in order.
//
// A Queue is not tied to a spec node: make it in BeforeSuite (NewQueue
// registers its cleanup there), queue the runs, and Wait for each one in
// the spec that judges it.
type Queue struct {
	ctx    context.Context
	cancel context.CancelFunc
	slots  chan struct{}
	dir    string
	last   chan struct{} // closed when the last queued run has its slot
	n      int
	wg     sync.WaitGroup
}

// Queued is one run of a Queue.
type Queued struct {
	dir            string
	done           chan struct{} // closed when the CLI exited or never started
	code           int
	err            error
	stdout, stderr bytes.Buffer
}

// NewQueue returns a Queue running n CLI runs at a time (n ≥ 1). Its runs are
// killed, and their results directories removed, when the node that made it
// ends (the suite, from BeforeSuite).
func NewQueue(n int) *Queue {
	ginkgo.GinkgoHelper()
	dir, err := os.MkdirTemp("", "clitest-queue-*")
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "making the queue's results directory")
	ctx, cancel := context.WithCancel(context.Background())
	last := make(chan struct{})
	close(last)
	q := &Queue{ctx: ctx, cancel: cancel, slots: make(chan struct{}, max(n, 1)), dir: dir, last: last}
	ginkgo.DeferCleanup(func() {
		q.cancel()
		q.wg.Wait()
		os.RemoveAll(q.dir)
	})
	return q
}

// Start queues `codemode-conformance run` with args (NO_COLOR set, into a
// fresh results directory) and returns at once.
func (q *Queue) Start(args ...string) *Queued {
	ginkgo.GinkgoHelper()
	q.n++
	r := &Queued{dir: filepath.Join(q.dir, fmt.Sprint(q.n)), done: make(chan struct{})}
	gomega.Expect(os.Mkdir(r.dir, 0o755)).To(gomega.Succeed(), "making a results directory")
	prev, mine := q.last, make(chan struct{})
	q.last = mine
	q.wg.Add(1)
	go func() {
		defer q.wg.Done()
		defer close(r.done)
		// The run before this one takes its slot first: runs start in order.
		select {
		case <-prev:
		case <-q.ctx.Done():
		}
		select {
		case q.slots <- struct{}{}:
			close(mine)
		case <-q.ctx.Done():
			close(mine)
			r.err = q.ctx.Err()
			return
		}
		defer func() { <-q.slots }()
		ctx, cancel := context.WithTimeout(q.ctx, runTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, CLI, append([]string{"run", "--results-dir", r.dir}, args...)...)
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		cmd.Stdout, cmd.Stderr = &r.stdout, &r.stderr
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case ctx.Err() != nil:
			r.err = fmt.Errorf("the CLI did not exit within %v: %w", runTimeout, ctx.Err())
		case err == nil:
		case errors.As(err, &exit):
			r.code = exit.ExitCode()
		default:
			r.err = err
		}
	}()
	return r
}

// Wait waits for the run and returns what Conformance returns for it; its
// output goes to the GinkgoWriter, as Conformance's does.
func (r *Queued) Wait() Outcome {
	ginkgo.GinkgoHelper()
	gomega.Eventually(r.done).WithTimeout(20*time.Minute).Should(gomega.BeClosed(), "the queued run must end")
	ginkgo.GinkgoWriter.Write(r.stdout.Bytes())
	ginkgo.GinkgoWriter.Write(r.stderr.Bytes())
	gomega.Expect(r.err).NotTo(gomega.HaveOccurred(), "running %s", CLI)
	return readReports(Outcome{Code: r.code, Stdout: r.stdout.String(), Stderr: r.stderr.String(), Dir: r.dir})
}

// WillRun reports whether this suite run selects a spec of full text text
// (its containers' texts and its own, space-separated) in the suite of
// description suite (as given to RunSpecs), by the focus and
// skip regexps and label filter Ginkgo was given, for a spec that carries
// no labels and no programmatic focus. It answers false when it cannot tell
// (file filters, or a parallel Ginkgo run that shares specs between
// processes): such a spec then runs what it judges itself.
func WillRun(description, text string) bool {
	suite, _ := ginkgo.GinkgoConfiguration()
	if len(suite.FocusFiles) > 0 || len(suite.SkipFiles) > 0 || suite.ParallelTotal > 1 {
		return false
	}
	text = description + " " + text
	if suite.LabelFilter != "" {
		f, err := types.ParseLabelFilter(suite.LabelFilter)
		if err != nil || !f(nil) {
			return false
		}
	}
	if len(suite.FocusStrings) > 0 {
		re, err := regexp.Compile(strings.Join(suite.FocusStrings, "|"))
		if err != nil || !re.MatchString(text) {
			return false
		}
	}
	if len(suite.SkipStrings) > 0 {
		re, err := regexp.Compile(strings.Join(suite.SkipStrings, "|"))
		if err != nil || re.MatchString(text) {
			return false
		}
	}
	return true
}
