package codemode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/codemode-conformance/codemode/reference/bridge"
	"github.com/codemode-conformance/codemode/reference/moduleaccess"
	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/result"
)

// ErrUnknownRun is returned for a run that was never prepared or has ended.
var ErrUnknownRun = fmt.Errorf("unknown run")

// ErrInactive is returned for exec/wait on a run where code mode is not active.
var ErrInactive = fmt.Errorf("code mode is not active for this run")

// parseExecInput applies CM-EXEC-01..03 and returns the code and language.
func parseExecInput(raw json.RawMessage, langs func(string) bool) (code, lang string, fail *result.Result) {
	bad := func(code result.ErrorCode, msg string) (string, string, *result.Result) {
		r := result.Failed(code, msg)
		return "", "", &r
	}
	var in result.ExecInput
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&in); err != nil || len(bytes.TrimSpace(raw)) == 0 || bytes.TrimSpace(raw)[0] != '{' {
		return bad(result.CodeInvalidInput, "exec input must be an object {code?, command?, language?}")
	}
	// encoding/json matches keys case-insensitively; the schema does not.
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(raw, &keys)
	for k := range keys {
		for _, want := range []string{"code", "command", "language"} {
			if k != want && strings.EqualFold(k, want) {
				return bad(result.CodeInvalidInput, fmt.Sprintf("exec input field %q must be spelled %q", k, want))
			}
		}
	}
	c, m := "", ""
	if in.Code != nil {
		c = *in.Code
	}
	if in.Command != nil {
		m = *in.Command
	}
	switch {
	case c == "" && m == "":
		return bad(result.CodeInvalidInput, "exec needs a non-empty code (or its alias command)")
	case c != "" && m != "" && c != m:
		return bad(result.CodeInvalidInput, "exec got both code and command with different values; send code only")
	case c == "" && in.Code != nil && m != "":
		return bad(result.CodeInvalidInput, "exec got an empty code and a non-empty command; send code only")
	case m == "" && in.Command != nil && c != "":
		return bad(result.CodeInvalidInput, "exec got an empty command and a non-empty code; send code only")
	}
	if c == "" {
		c = m
	}
	lang = "javascript"
	if in.Language != nil {
		lang = *in.Language
	}
	if (lang != "javascript" && lang != "typescript") || !langs(lang) {
		return bad(result.CodeUnsupportedLanguage, fmt.Sprintf("language %q is not enabled for code mode", lang))
	}
	return c, lang, nil
}

// Exec runs one exec tool call (CM-EXEC-01..07, CM-EXEC-12..14).
func (rt *Runtime) Exec(ctx context.Context, run, toolCallID string, input json.RawMessage) (result.Result, error) {
	return rt.ExecIn(ctx, run, toolCallID, "", input)
}

// ExecIn is Exec for a call that assistant response responseID carried
// (tool.exec assistantResponseId, "" when none): under nested-activity the
// cell's nested call ids derive from the run, responseID and toolCallID
// (CM-NEST-18, activity.go).
func (rt *Runtime) ExecIn(ctx context.Context, run, toolCallID, responseID string, input json.RawMessage) (result.Result, error) {
	r, ok := rt.run(run)
	if !ok {
		return result.Result{}, ErrUnknownRun
	}
	if !r.active {
		return result.Result{}, ErrInactive
	}
	rt.sweep()
	start := time.Now()
	r.mu.Lock()
	r.execCount++
	r.mu.Unlock()
	c, aborted := rt.newCell(r, [2]string{responseID, toolCallID})
	c.replayID = rt.replayID(r, toolCallID, responseID, input) // activity.go
	s := &step{rt: rt, c: c, parent: toolCallID, start: start, deadline: start.Add(time.Duration(r.cfg.TimeoutMs) * time.Millisecond)}
	if aborted {
		return s.fail(result.Failed(result.CodeAborted, "the run was aborted")), nil
	}
	if bad := rt.opts.refuseTypeScript(input); bad != nil { // CM-TS-04 (javascript-only)
		return s.fail(*bad), nil
	}
	code, lang, bad := parseExecInput(input, r.cfg.Allows)
	if bad != nil {
		return s.fail(*bad), nil
	}
	if blocked := rt.execHook(ctx, r, toolCallID, input, lang); blocked != nil { // CM-NEST-21, hooks.go
		return s.fail(*blocked), nil
	}
	if lang == "typescript" {
		js, lines, fail := transformTypeScript(code)
		if fail != nil {
			return s.fail(*fail), nil
		}
		code, c.ts = js, lines
	}
	if f, found := moduleaccess.Check(code); found {
		return s.fail(result.Failed(result.CodeModuleAccessDenied,
			fmt.Sprintf("module access is denied in code mode: %s on line %d (no import, require or dynamic import)", f.Pattern, f.Line))), nil
	}
	if rt.eng == nil {
		return s.fail(result.Failed(result.CodeRuntimeUnavailable, "the quickjs-wasi runtime is unavailable")), nil
	}
	if err := r.namespaceFailure(); err != nil { // CM-NS-07: before any guest code runs
		return s.fail(result.Failed(result.CodeInternalError, err.Error())), nil
	}
	vctx, cancel := context.WithDeadline(ctx, s.deadline)
	defer cancel()
	// run.abort and run.end cancel the cell: that must stop the boot and the
	// synchronous top level of the cell too, not only what drive runs later.
	stop := context.AfterFunc(c.callCtx, cancel)
	defer stop()
	done := phase(&s.waits.template) // each phase's time, for a timeout's message (waits.go)
	tpl, err := rt.template(vctx, r.cfg.MemoryLimitBytes)
	done()
	if err != nil {
		return s.fail(s.startFailure(vctx, err, result.CodeRuntimeUnavailable, "created")), nil
	}
	done = phase(&s.waits.admission)
	err = s.admitVM(vctx) // admission.go: the process's live-VM limit
	done()
	if err != nil {
		return s.fail(s.startFailure(vctx, err, result.CodeRuntimeUnavailable, "created")), nil
	}
	done = phase(&s.waits.start)
	vm, err := tpl.NewVM(vctx)
	done()
	if err != nil {
		return s.fail(s.startFailure(vctx, err, result.CodeRuntimeUnavailable, "created")), nil
	}
	s.useVM(vm)
	var copied []prelude.Entry
	if s.rt.opts.Defects.CatalogInVM {
		copied = guestEntries(c.surface, c.cat)
	}
	if r, bad := s.bootAndStart(vctx, tpl, prelude.Boot{Index: c.index, CatalogCopy: copied, Handles: c.surface != nil, APIFiles: c.surface.apiFiles(), MaxOutputBytes: r.cfg.MaxOutputBytes,
		SearchDefaultLimit: r.cfg.SearchDefaultLimit, MaxSearchLimit: r.cfg.MaxSearchLimit, Namespaces: r.namespaceDescriptors(), MCP: r.mcpBoot,
		Results: c.results != nil, Store: r.sessions != nil, Timers: s.rt.opts.HasFeature("bridge-queue")}, code); bad {
		return r, nil
	}
	return s.drive(ctx), nil
}

// newCell registers a cell of run r, unless r was aborted: the check and the
// registration happen under rt.mu, which Abort also holds while it sets the
// flag, so an abort racing an exec either sees the cell or stops it here.
func (rt *Runtime) newCell(r *agentRun, origin [2]string) (c *cell, aborted bool) {
	ctx, cancel := context.WithCancel(context.Background())
	c = &cell{id: fmt.Sprintf("cm_%s_%d", time.Now().Format("150405"), rt.seq.Add(1)), run: r, origin: origin, adm: rt.opts.Admission, callCtx: ctx, cancel: cancel,
		state: "running", counts: map[string]int{}, bridged: map[int64]bool{}}
	c.calls = bridge.NewCalls(ctx, rt.opts.bridgeConfig(r.cfg), &r.sched, c.callID)
	rt.mu.Lock()
	r.mu.Lock()
	aborted = r.aborted
	c.results = r.results // the cell binds to the store of now (CM-RES-07)
	c.cat = r.catalog()
	c.surface = r.surface
	c.index = guestIndex(c.surface, c.cat)
	r.mu.Unlock()
	if !aborted {
		rt.cells[c.id] = c
	}
	rt.mu.Unlock()
	if aborted {
		cancel()
	}
	return c, aborted
}

// forget removes a cell that reached a terminal state.
func (rt *Runtime) forget(c *cell, reason string) {
	rt.mu.Lock()
	if rt.cells[c.id] == c {
		delete(rt.cells, c.id)
		rt.markEnded(c.id, reason)
	}
	rt.mu.Unlock()
	c.terminate()
}
