package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/handler"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// crashyTarget is an in-process target that dies (closes its connection)
// right after it has written its first tool.exec answer, or, with
// oversized set, answers tool.exec with a value of 10 KB. execs counts the
// tool.exec requests every instance received.
type crashyTarget struct {
	execs     atomic.Int32
	oversized atomic.Bool
}

func (c *crashyTarget) serve(ctx context.Context, r io.Reader, w io.WriteCloser) error {
	var mu sync.Mutex
	runs := map[string]bool{}
	dying := &dieAfterExec{w: w, dead: make(chan struct{})}
	methods := handler.Map{
		protocol.MethodInitialize: handler.New(func(ctx context.Context, _ protocol.InitializeParams) (protocol.InitializeResult, error) {
			return protocol.InitializeResult{ProtocolVersion: protocol.Version, Implementation: protocol.Peer{Name: "crashy", Version: "0"}}, nil
		}),
		protocol.MethodRunPrepare: handler.New(func(ctx context.Context, p protocol.PrepareParams) (protocol.PrepareResult, error) {
			mu.Lock()
			runs[p.Run] = true
			mu.Unlock()
			return protocol.PrepareResult{Run: p.Run, CodeModeActive: true, Tools: []protocol.ModelTool{}}, nil
		}),
		protocol.MethodToolExec: handler.New(func(ctx context.Context, p protocol.ToolCallParams) (json.RawMessage, error) {
			c.execs.Add(1)
			mu.Lock()
			known := runs[p.Run]
			mu.Unlock()
			if !known {
				return nil, &jrpc2.Error{Code: protocol.ErrUnknownRun, Message: "unknown run " + p.Run}
			}
			if c.oversized.Load() {
				return json.RawMessage(`{"status":"completed","value":"` + strings.Repeat("v", 10000) + `"}`), nil
			}
			return json.RawMessage(`{"status":"completed","value":1}`), nil
		}),
		protocol.MethodRuntimeStats: handler.New(func(ctx context.Context, _ *struct{}) (protocol.Stats, error) { return protocol.Stats{}, nil }),
		protocol.MethodRunEnd:       handler.New(func(ctx context.Context, p protocol.RunParams) (bool, error) { return true, nil }),
		protocol.MethodShutdown:     handler.New(func(ctx context.Context, _ *struct{}) (bool, error) { return true, nil }),
	}
	srv, stop := protocol.NewServer(methods, protocol.NewChannel(r, dying))
	go func() { <-dying.dead; stop() }()
	return srv.Wait()
}

// dieAfterExec closes the connection once an exec answer was written.
type dieAfterExec struct {
	w    io.WriteCloser
	once sync.Once
	dead chan struct{}
}

func (d *dieAfterExec) Write(b []byte) (int, error) {
	n, err := d.w.Write(b)
	if bytes.Contains(b, []byte(`"status":"completed","value":1`)) {
		d.Close()
	}
	return n, err
}

func (d *dieAfterExec) Close() error {
	d.once.Do(func() { d.w.Close(); close(d.dead) })
	return nil
}

// failT records a Ginkgo run's failure instead of failing the Go test: the
// spec under test is meant to fail.
type failT struct{ failed bool }

func (f *failT) Fail() { f.failed = true }

// A target that crashes between two calls of one spec makes that spec an
// error (and so does a target that sends an answer over the harness's
// maximum message size) (the target's fault), never a failure of its requirement: the harness
// must not reconnect in the middle of the spec and send the next call to a
// fresh target that never knew the run (issue 11, D4: CM-EXEC-09 failed with
// "-32001 unknown run").
func TestCrashBetweenTwoCallsIsAnError(t *testing.T) {
	target := &crashyTarget{}
	UseTargets(func(_ context.Context, spec string, _ OpenOptions) (Endpoint, error) {
		return Endpoint{Serve: target.serve}, nil
	})
	defer UseTargets(execOnly)
	Configure(Config{Target: "crashy"})
	defer Configure(Config{})

	var reports []ginkgo.SpecReport
	var execsInFirst int32
	ginkgo.ReportAfterEach(func(r ginkgo.SpecReport) {
		reports = append(reports, r)
		if len(reports) == 1 {
			execsInFirst = target.execs.Load()
		}
	})
	Describe("codemode", "a target that crashes between calls", func() {
		It("CM-EXEC-09", "two calls with a crash between them", func(ctx SpecContext) {
			r := NewRun(ctx, RunOptions{CodeMode: true})
			gomega.Expect(string(r.Exec(ctx, "return 1").Status)).To(gomega.Equal("completed"), "the first exec is answered")
			gomega.Eventually(func() bool {
				tgtMu.Lock()
				defer tgtMu.Unlock()
				return tgt != nil && tgt.Alive()
			}).Should(gomega.BeFalse(), "the target closes its connection after the first answer")
			r.Exec(ctx, "return 2")
		})
		It("CM-EXEC-01", "an answer over the harness's maximum message size", func(ctx SpecContext) {
			target.oversized.Store(true)
			old := MaxMessageBytes
			MaxMessageBytes = 4096 // read by the connection T() opens now (the last spec's target died)
			defer func() { MaxMessageBytes = old }()
			r := NewRun(ctx, RunOptions{CodeMode: true})
			r.Exec(ctx, "return 'v'.repeat(10000)")
		})
		// targetAlive reports whether the spec's current target still serves.
		targetAlive := func() bool {
			tgtMu.Lock()
			defer tgtMu.Unlock()
			return tgt != nil && tgt.Alive()
		}
		// A loss after the cell was answered, outside HangFailsDuring,
		// blocks the spec by LossBlockedBy's requirement (CM-LIM-02 names
		// CM-SEC-04); a loss while a cell inside it runs is a failure.
		It("CM-LIM-02", "a target lost after its answer, outside the hang window", func(ctx SpecContext) {
			target.oversized.Store(false)
			LossBlockedBy("CM-SEC-04")
			r := NewRun(ctx, RunOptions{CodeMode: true})
			HangFailsDuring(func() {
				gomega.Expect(string(r.Exec(ctx, "return 1").Status)).To(gomega.Equal("completed"), "the first exec is answered")
			})
			gomega.Eventually(targetAlive).Should(gomega.BeFalse(), "the target closes its connection after the first answer")
			NewRun(ctx, RunOptions{CodeMode: true})
		})
		It("CM-LIM-02", "a target lost while a cell inside the hang window runs", func(ctx SpecContext) {
			LossBlockedBy("CM-SEC-04")
			r := NewRun(ctx, RunOptions{CodeMode: true})
			HangFailsDuring(func() {
				gomega.Expect(string(r.Exec(ctx, "return 1").Status)).To(gomega.Equal("completed"), "the first exec is answered")
				gomega.Eventually(targetAlive).Should(gomega.BeFalse(), "the target closes its connection after the first answer")
				r.Exec(ctx, "return 2")
			})
		})
	})
	gomega.RegisterFailHandler(ginkgo.Fail)
	Define()
	ft := &failT{}
	ginkgo.RunSpecs(ft, "crash between calls")

	g := gomega.NewWithT(t)
	g.Expect(reports).To(gomega.HaveLen(4), "every spec ran")
	rep := reports[0]
	g.Expect(rep.Failed()).To(gomega.BeTrue(), "the spec cannot pass: its target died")
	var entry string
	for _, e := range rep.ReportEntries {
		if e.Name == HarnessErrorEntry {
			entry = e.StringRepresentation()
		}
	}
	g.Expect(entry).To(gomega.ContainSubstring("the target died during this spec"),
		"the spec is charged as an error (target crashed), not a failure of CM-EXEC-09; failure: %s", rep.FailureMessage())
	g.Expect(rep.FailureMessage()).NotTo(gomega.ContainSubstring("unknown run"), "the second call must not reach a fresh target")
	g.Expect(execsInFirst).To(gomega.Equal(int32(1)), "only the first exec reached a target: the harness did not reconnect mid-spec")
	g.Expect(strings.Contains(rep.FailureMessage(), "lost earlier in this spec")).To(gomega.BeTrue(), "the failure says the target was lost: %s", rep.FailureMessage())

	// An oversized answer is an error of the spec (a fault of the target),
	// with its size and the bound.
	rep = reports[1]
	g.Expect(rep.Failed()).To(gomega.BeTrue(), "the spec cannot pass: its target sent an oversized answer")
	entry = ""
	for _, e := range rep.ReportEntries {
		if e.Name == HarnessErrorEntry {
			entry = e.StringRepresentation()
		}
	}
	g.Expect(entry).To(gomega.MatchRegexp(`target fault: it sent a response of \d+ bytes, over the harness's maximum message size of 4096 bytes`),
		"the spec is an error naming the size; failure: %s", rep.FailureMessage())

	rep = reports[2]
	b, ok := isBlocked(rep)
	g.Expect(ok).To(gomega.BeTrue(), "a target lost after its answer, outside HangFailsDuring, blocks the spec: %s %s", rep.State, rep.FailureMessage())
	g.Expect(b.By).To(gomega.Equal("CM-SEC-04"), "blocked by the requirement LossBlockedBy named")
	g.Expect(b.Message).To(gomega.ContainSubstring("the target was lost after a cell of this spec was answered"), "the block says why")
	g.Expect(rep.Failed()).To(gomega.BeFalse(), "not a failure of CM-LIM-02: %s", rep.FailureMessage())

	rep = reports[3]
	_, ok = isBlocked(rep)
	g.Expect(ok).To(gomega.BeFalse(), "a loss inside HangFailsDuring is not blocked")
	g.Expect(rep.Failed()).To(gomega.BeTrue(), "a loss while a cell inside HangFailsDuring runs fails the spec")
	entry = ""
	for _, e := range rep.ReportEntries {
		if e.Name == HarnessErrorEntry {
			entry = e.StringRepresentation()
		}
	}
	g.Expect(entry).To(gomega.BeEmpty(), "a failure of its requirement, not a harness error: %s", rep.FailureMessage())
}
