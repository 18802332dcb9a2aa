package framework

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/onsi/ginkgo/v2"
)

// registered is one suite's top-level container, kept until Define turns it
// into Ginkgo nodes (csi-sanity style: the same specs run under go test and in
// the conformance CLI).
type registered struct {
	suite, text string
	body        func()
}

var (
	regMu    sync.Mutex
	registry []registered
	defined  bool
)

// Describe registers a container of specs for suite ("abuse", "codemode", "e2e",
// "limits", "mcp", "namespaces", "security"). Use it from a package-level var: `var _ = framework.Describe(...)`.
func Describe(suite, text string, body func()) bool {
	regMu.Lock()
	defer regMu.Unlock()
	registry = append(registry, registered{suite: suite, text: text, body: body})
	return true
}

// Define turns every registered container into Ginkgo nodes and adds the
// suite-level target connection. Call it once, before RunSpecs.
func Define() {
	regMu.Lock()
	defer regMu.Unlock()
	if defined {
		return
	}
	defined = true
	sort.SliceStable(registry, func(i, j int) bool { return registry[i].suite < registry[j].suite })
	ginkgo.BeforeSuite(func(ctx ginkgo.SpecContext) { connectTarget(ctx) }, ginkgo.NodeTimeout(Timeouts.Initialize+10e9))
	ginkgo.AfterSuite(func() { disconnectTarget(); afterLastSpec() })
	for _, r := range registry {
		r := r
		ginkgo.Describe(r.text, ginkgo.Label(evidence.LabelSuite+r.suite), func() {
			definingSuite = r.suite
			defer func() { definingSuite = "" }()
			r.body()
		})
	}
}

// It declares a spec for one requirement. The spec text is prefixed with the
// ID and labelled req:<ID>, feature:<feature>, level:<must|should> and
// area:<AREA>; it is skipped, with a reason naming the feature and the
// requirement, when the target does not declare an optional feature; a
// required one it does not declare runs, or, for a feature the harness
// drives through its own surface, fails once and blocks the rest
// (absentFeature). An unknown ID
// panics at tree construction, so a typo can never produce an unlabelled spec.
func It(id, text string, body func(ctx ginkgo.SpecContext), args ...any) bool {
	req, ok := spec.Lookup(id)
	if !ok {
		panic(fmt.Sprintf("framework.It: unknown requirement id %q", id))
	}
	registerRequirement(req.Feature, id)
	labels := ginkgo.Label(evidence.LabelRequirement+id, evidence.LabelFeature+req.Feature, evidence.LabelLevel+strings.ToLower(req.Level), evidence.LabelArea+req.Area)
	recordLabels(id, labels, args)
	hangFails := false
	for i := 0; i < len(args); i++ {
		if _, ok := args[i].(hangIsFailure); ok {
			hangFails = true
			args = append(args[:i:i], args[i+1:]...)
			i--
		}
	}
	limit := specTimeout(args)
	wrapped := func(ctx ginkgo.SpecContext) {
		if worker != nil {
			claimSpec() // run --procs: a spec another process runs is skipped here (worker.go)
		}
		if why := notDrivableFeature(req.Feature); why != "" {
			ginkgo.Skip(fmt.Sprintf("%s%s (requirement %s)", protocol.NotDrivablePrefix, why, id))
		}
		if !req.AppliesTo(Profile()) {
			ginkgo.Skip(fmt.Sprintf("requirement %s is judged under profile %s only, not %s, which this run judges (its text is that page's alone; spec/requirements.yaml profiles:)", id, strings.Join(req.Profiles, ", "), Profile()))
		}
		var undriven func(context.Context)
		if !Features().Has(req.Feature) {
			// A skip, a block, nil (the spec runs), or the feature's one
			// failing verdict (required.go).
			undriven = absentFeature(req)
		}
		if why := notDrivable("", id); why != "" {
			ginkgo.Skip(fmt.Sprintf("%s%s (requirement %s)", protocol.NotDrivablePrefix, why, id))
		}
		beginSpec(hangFails, limit)
		// Registered first, so they run last: after the runs' own cleanups
		// (run.end), whose answers may still bring refused invokes; the
		// failure's evidence once the verdict is in.
		ginkgo.DeferCleanup(attachFailure)
		ginkgo.DeferCleanup(endSpec)
		if undriven != nil {
			undriven(ctx)
			return
		}
		body(ctx)
	}
	all := append([]any{labels, wrapped, ginkgo.Offset(1)}, args...)
	if !hasTimeout(args) {
		all = append(all, ginkgo.SpecTimeout(limit))
	}
	return ginkgo.It(id+" "+text, all...)
}

// specTimeout is the deadline a spec's decorators set, else Timeouts.Spec.
func specTimeout(args []any) time.Duration {
	for _, a := range args {
		switch t := a.(type) {
		case ginkgo.SpecTimeout:
			return time.Duration(t)
		case ginkgo.NodeTimeout:
			return time.Duration(t)
		}
	}
	return Timeouts.Spec
}

// hasTimeout reports whether a spec's decorators set its own timeout.
func hasTimeout(args []any) bool {
	for _, a := range args {
		switch a.(type) {
		case ginkgo.SpecTimeout, ginkgo.NodeTimeout:
			return true
		}
	}
	return false
}

var (
	// specSeq numbers the specs that ran (It bodies past their feature
	// check); inSpec is set while one runs, deadline is its deadline.
	specSeq atomic.Int64
	inSpec  atomic.Bool
	// hangIsFail is set while a spec declared with HangIsFailure runs;
	// guestRan once that spec sent its first cell (tool.exec, tool.wait or
	// agent.turn): only from then on is a hang or crash the requirement's
	// failure. Before it (initialize, run.prepare) no guest code of the
	// spec ran, so a lost target is an error, as in any other spec.
	hangIsFail atomic.Bool
	guestRan   atomic.Bool
	// hangWindow is set while HangFailsDuring runs its function; lossOwner
	// is the requirement LossBlockedBy named for the running spec.
	hangWindow atomic.Bool
	lossOwner  atomic.Pointer[string]
	deadline   atomic.Int64 // unix nanoseconds
)

// specDeadlinePassed reports whether the running spec is past its deadline
// (a call canceled then was cut by Timeouts.Spec, not by the spec itself).
func specDeadlinePassed() bool {
	d := deadline.Load()
	return inSpec.Load() && d != 0 && time.Now().UnixNano() >= d
}

// WaitFits reports whether one more exec or wait of a run whose time budget
// is timeout (its effective timeoutMs) can be answered, and the spec still
// reach its verdict, before the running spec's deadline: the call's own
// bound (timeout + Timeouts.ToolCallSlack) plus Timeouts.VerdictGrace for
// what follows (run.end, a trivial cell, the alive check). Wait loops
// (Follow, the corpus's Drive) stop when it is false, so a target that
// keeps answering waiting gets a verdict on its still-waiting result,
// never a spec timeout charged as an error (independent-target review rows
// 6–9: 20 waits × timeoutMs 10 s outlasted the 3-minute deadline). Outside a
// spec it is always true.
func WaitFits(timeout time.Duration) bool {
	d := deadline.Load()
	if !inSpec.Load() || d == 0 {
		return true
	}
	return time.Until(time.Unix(0, d)) >= timeout+Timeouts.ToolCallSlack+Timeouts.VerdictGrace
}

// HangIsFailure is an It decorator for requirements whose violation is a
// target that stops answering or dies (CM-LIM-01 "never block the runtime",
// CM-LIM-04 "keeps serving", CM-SEC-04 "fails only its own cell" …): a hang
// or crash during such a spec is a failure of its requirement, not an error
// (the target is still killed and restarted for the next spec).
var HangIsFailure = hangIsFailure{}

type hangIsFailure struct{}

// hangFails reports whether a hang or crash now is the running spec's
// failure: it is declared HangIsFailure and has sent guest code.
func hangFails() bool {
	return inSpec.Load() && (hangIsFail.Load() || hangWindow.Load()) && guestRan.Load()
}

// HangFailsDuring runs f with a hang or crash counted as the running spec's
// failure, as HangIsFailure does for a whole spec, for the span of f only:
// for requirements whose violation is a target lost while one cell runs and
// not after it answered (CM-LIM-02: an out-of-memory cell must end with
// memory_limit_exceeded; that the target then keeps serving is CM-SEC-04's).
// Only a cell sent inside f arms it (as HangIsFailure: run.prepare alone
// does not).
func HangFailsDuring(f func()) {
	hangWindow.Store(true)
	defer hangWindow.Store(false)
	f()
}

// LossBlockedBy makes a target lost during the running spec outside a
// hang-is-failure span (HangIsFailure, HangFailsDuring) stop the spec as
// blocked by req when the spec next reaches it (T, run.prepare), instead of
// a harness error: the spec relies on the target surviving what req judges
// (CM-LIM-02 names CM-SEC-04, "the next exec on the same runtime works").
// It holds until the spec ends. An unknown req panics.
func LossBlockedBy(req string) {
	if _, ok := spec.Lookup(req); !ok {
		panic(fmt.Sprintf("framework.LossBlockedBy: unknown requirement id %q", req))
	}
	lossOwner.Store(&req)
}

// blockLoss stops the running spec as blocked by LossBlockedBy's
// requirement when t was lost during it, outside a hang-is-failure span;
// otherwise it returns.
func blockLoss(t *Target, what string) {
	owner := lossOwner.Load()
	if owner == nil || !inSpec.Load() || t.chargedIn.Load() != specSeq.Load() || t.chargedFailing.Load() {
		return
	}
	why := ""
	if w := t.chargedWhy.Load(); w != nil {
		why = ": " + *w
	}
	blocked(*owner, fmt.Sprintf("the target was lost after a cell of this spec was answered, %s%s", what, why), 2)
}

// noteSent records that the running spec sent method; a cell-running
// method arms HangIsFailure (guestRan).
func noteSent(method string) {
	switch method {
	case protocol.MethodToolExec, protocol.MethodToolWait, protocol.MethodAgentTurn:
		guestRan.Store(true)
	}
}

func beginSpec(hangFails bool, limit time.Duration) {
	rendered.take()
	hangIsFail.Store(hangFails)
	guestRan.Store(false)
	hangWindow.Store(false)
	lossOwner.Store(nil)
	specSeq.Add(1)
	deadline.Store(time.Now().Add(limit).UnixNano())
	inSpec.Store(true)
}

// endSpec runs after every spec: it fails the spec for the forged nested
// calls the harness refused while it ran, and charges the spec with a
// target that died or stopped answering during it (the next spec gets a
// fresh target): a crash is never blamed on a later spec.
func endSpec() {
	defer inSpec.Store(false)
	var msgs []string
	if f := refusals.takeFlood(); f != "" {
		msgs = append(msgs, f)
	}
	if why := checkAlive(); why != "" {
		msgs = append(msgs, why)
	}
	if m := refusalFailure(refusals.take()); m != "" {
		msgs = append(msgs, m)
	}
	if len(msgs) > 0 {
		ginkgo.Fail(strings.Join(msgs, "\n"))
	}
}

// afterLastSpec fails the suite for forged nested calls refused after the
// last spec ended (while the target shut down, say): no spec is left to
// charge them to, and the run must still fail.
func afterLastSpec() {
	var msgs []string
	if f := refusals.takeFlood(); f != "" {
		msgs = append(msgs, f)
	}
	if m := refusalFailure(refusals.take()); m != "" {
		msgs = append(msgs, m+"\n(after the last spec ended)")
	}
	if len(msgs) > 0 {
		ginkgo.Fail(strings.Join(msgs, "\n"))
	}
}

// SpecContext is Ginkgo's spec context, re-exported so spec files need only
// this package and Gomega.
type SpecContext = ginkgo.SpecContext
