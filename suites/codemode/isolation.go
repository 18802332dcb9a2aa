package codemode

import (
	"context"
	"encoding/json"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

// mutateRealm is a cell that changes globals, built-ins, built-in
// prototypes and the guest API, and mutateBridge one that replaces the two
// built-ins a host's bridge is most likely to use on guest values
// (Promise.prototype.then, Function.prototype.call); cleanRealm reports each
// of them as a fresh context has it, and cleanRealmValue is that report. A
// runtime that boots cells from a shared template, or reuses a context,
// shows the change.
const mutateRealm = `globalThis.leaked = "cell 1";
Object.prototype.polluted = "cell 1";
Array.prototype.push = function () { return -1; };
Array.prototype.includes = () => true;
Array.prototype[Symbol.iterator] = function* () { yield "replaced"; };
JSON.stringify = () => "replaced";
JSON.parse = () => "replaced";
Math.random = () => 0.5;
Math.max = () => -1;
Date.now = () => 0;
String.prototype.toUpperCase = () => "replaced";
RegExp.prototype.exec = () => null;
Object.defineProperty(globalThis, "locked", {value: "cell 1", writable: false, enumerable: true, configurable: false});
Object.freeze(Map.prototype);
delete globalThis.Reflect;
try { Object.setPrototypeOf(globalThis, Object.create(Object.getPrototypeOf(globalThis), {inherited: {value: "cell 1"}})); } catch (e) {}
try { globalThis.text = () => {}; } catch (e) {}
try { tools.call = () => "replaced"; } catch (e) {}
return "mutated";`

const mutateBridge = `Promise.prototype.then = function () { return "replaced"; };
Function.prototype.call = () => "replaced";
return "mutated";`

const cleanRealm = `text("probe");
const echoed = (await call("echo", {m: 1}));
return {
  leaked: typeof leaked,
  polluted: "polluted" in {},
  push: [].push(7),
  includes: [].includes(1),
  iterator: [...[4]][0],
  stringify: JSON.stringify({a: [1, "x"]}),
  parse: JSON.parse("[2]")[0],
  random: Math.random() === 0.5 && Math.random() === 0.5,
  max: Math.max(1, 2),
  dateNow: Date.now() !== 0,
  upper: "a".toUpperCase(),
  exec: (/b/.exec("abc") || {index: -1}).index,
  call: (function () { return this.v; }).call({v: 3}),
  then: Promise.resolve(5).then((x) => x) instanceof Promise,
  locked: Object.getOwnPropertyDescriptor(globalThis, "locked") === undefined,
  mapFrozen: Object.isFrozen(Map.prototype),
  reflect: typeof Reflect,
  inherited: typeof inherited,
  toolsCall: echoed && echoed.m,
};`

var cleanRealmValue = map[string]any{
	"leaked": "undefined", "polluted": false, "push": 1, "includes": false, "iterator": 4,
	"stringify": `{"a":[1,"x"]}`, "parse": 2, "random": false, "max": 2, "dateNow": true,
	"upper": "A", "exec": 1, "call": 3, "then": true, "locked": true, "mapFrozen": false,
	"reflect": "object", "inherited": "undefined", "toolsCall": 1,
}

// randomFour is a cell returning its first four Math.random() values.
const randomFour = `return [Math.random(), Math.random(), Math.random(), Math.random()];`

// clockSkew is how far the target's clock may be from the harness's: they
// share a host for builtin, exec: and container: targets.
const clockSkew = time.Second

// clockTool sleeps ms milliseconds, then returns {now}: the harness's clock
// in Unix milliseconds as it answers.
func clockTool() tools.Tool {
	return tools.Core("clock", "Wait for ms milliseconds, then return the current time {now} in Unix milliseconds.",
		json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer"}},"required":[]}`),
		func(ctx context.Context, in json.RawMessage) (any, error) {
			var v struct{ Ms int }
			_ = json.Unmarshal(in, &v)
			select {
			case <-time.After(time.Duration(v.Ms) * time.Millisecond):
				return map[string]int64{"now": time.Now().UnixMilli()}, nil
			case <-ctx.Done():
				return nil, protocol.ToolError("clock: canceled", nil)
			}
		})
}

var _ = Describe("codemode", "isolation between cells", func() {
	It("CM-EXEC-12", "globals, built-ins and prototypes a cell changes are gone in the next cell of the run and of another run; a waiting cell keeps its own", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: tools.Standard()})
		clean := func(r *Run, where string) {
			res, steps := r.RunToCompletion(ctx, Guest(cleanRealm))
			Expect(res).To(CompleteWith(cleanRealmValue), "%s must start from a fresh context: each key names a global, built-in or prototype an earlier cell changed", where)
			Expect(AllOutput(steps)).To(ContainElement(result.TextOutput("probe")), "%s: text, which the first cell tried to replace, must write output", where)
		}
		Expect(r.Exec(ctx, mutateRealm)).To(CompleteWith("mutated"), "the first cell changes globals, built-ins and prototypes, then completes")
		// Not judged here: whether a host survives its guest replacing what
		// the host may call on guest values is for the security specs.
		_ = r.Exec(ctx, mutateBridge)
		clean(r, "the next cell of the same run")
		clean(NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()}), "a cell of another run")

		// A suspended cell's changes belong to it alone: cells started while
		// it waits start clean, and wait resumes it with its changes.
		w := r.Exec(ctx, Guest(`globalThis.mine = "waiting cell"; Array.prototype.mark = 1;
			await call("slow", {ms: 1500}); return [typeof mine, [].mark];`))
		Expect(w).To(BeWaiting(), "the slow nested call must suspend the cell (timeoutMs 1000)")
		clean(r, "a cell of the same run started while another waits")
		res, _ := r.Follow(ctx, w)
		Expect(res).To(CompleteWith([]any{"string", 1}), "wait must continue the original cell, with the global and prototype it set before suspending")
		res, _ = r.RunToCompletion(ctx, `return [typeof mine, [].mark === undefined];`)
		Expect(res).To(CompleteWith([]any{"undefined", true}), "the next cell must not see what the resumed cell set")
	})

	It("CM-EXEC-12", "Math.random gives a different sequence in every cell, of the same run and of another run", func(ctx SpecContext) {
		four := func(r *Run, which string) []float64 {
			res := r.Exec(ctx, randomFour)
			Expect(res).To(BeCompleted(), "%s: four Math.random() values", which)
			var v []float64
			Expect(json.Unmarshal(res.Value, &v)).To(Succeed(), "%s: the value must be four numbers: %s", which, res)
			Expect(v).To(HaveLen(4), "%s: four numbers: %s", which, res)
			for _, x := range v {
				Expect(x).To(And(BeNumerically(">=", 0), BeNumerically("<", 1)), "%s: Math.random() must be in [0, 1): %s", which, res)
			}
			return v
		}
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		seqs := map[string][]float64{
			"the first cell":                four(r, "the first cell"),
			"the next cell of the same run": four(r, "the next cell of the same run"),
			"a cell of another run":         four(NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()}), "a cell of another run"),
		}
		// No value may repeat across cells: a sequence restarted from a
		// booted template repeats all four, one reseeded by a counter shifts.
		seen := map[float64]string{}
		for which, v := range Sorted(seqs) {
			for _, x := range v {
				Expect(seen).NotTo(HaveKey(x), "%s gave Math.random() value %v, which %s gave too: the sequences must differ between cells and never repeat\nguest code:\n%s\nsequences: %v", which, x, seen[x], randomFour, seqs)
				seen[x] = which
			}
		}
	})

	It("CM-EXEC-12", "Date.now is the current time in a fresh cell and after wait resumes a suspended cell", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: append(tools.Standard(), clockTool())})
		ms := func(t time.Time) float64 { return float64(t.UnixMilli()) }
		within := func(got float64, from, to time.Time, what string, res Result) {
			Expect(got).To(BeNumerically(">=", ms(from.Add(-clockSkew))), "%s must not be before the harness's clock (%d, allowing %s of skew)\n%s", what, from.UnixMilli(), clockSkew, res)
			Expect(got).To(BeNumerically("<=", ms(to.Add(clockSkew))), "%s must not be after the harness's clock (%d, allowing %s of skew)\n%s", what, to.UnixMilli(), clockSkew, res)
		}

		sent := time.Now()
		res := r.Exec(ctx, `return [Date.now(), new Date().getTime()];`)
		answered := time.Now()
		Expect(res).To(BeCompleted(), "a cell reading the clock must complete")
		var now []float64
		Expect(json.Unmarshal(res.Value, &now)).To(Succeed(), "the value must be two numbers: %s", res)
		Expect(now).To(HaveLen(2), "the value must be two numbers: %s", res)
		within(now[0], sent, answered, "Date.now() in a fresh cell", res)
		within(now[1], sent, answered, "new Date().getTime() in a fresh cell", res)

		// The clock tool answers 2.5 s after it was called, with the
		// harness's time: a clock restored with the snapshot is that far
		// behind it.
		sent = time.Now()
		w := r.Exec(ctx, Guest(`const start = Date.now();
			const h = (await call("clock", {ms: 2500}));
			return {start, harness: h.now, resumed: Date.now(), resumedDate: new Date().getTime()};`))
		answered = time.Now()
		Expect(w).To(BeWaiting(), "the 2.5 s nested call must suspend the cell (timeoutMs 1000)")
		res, _ = r.Follow(ctx, w)
		done := time.Now()
		Expect(res).To(BeCompleted(), "the resumed cell must complete")
		var v struct{ Start, Harness, Resumed, ResumedDate float64 }
		Expect(json.Unmarshal(res.Value, &v)).To(Succeed(), "the value must be {start, harness, resumed, resumedDate}: %s", res)
		within(v.Start, sent, answered, "Date.now() before the cell suspended", res)
		within(v.Resumed, time.UnixMilli(int64(v.Harness)), done, "Date.now() after wait resumed the cell", res)
		within(v.ResumedDate, time.UnixMilli(int64(v.Harness)), done, "new Date().getTime() after wait resumed the cell", res)
	})
})
