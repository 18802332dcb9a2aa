package codemode

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
)

// Feature results across run.update (page 001 "运行和快照生命周期",
// spec/protocol.md §3 "run.update"): catalog replacement, restriction (a
// permission change) and attaching client tools, with a cell parked in wait
// across them (CM-RES-07), and the references the first two clear
// (CM-RES-03). A target that cannot drive run.update skips them as not
// drivable.

// mailbox is a tool whose call blocks until the spec posts a value (or the
// call is canceled): a cell that calls it parks in wait until the spec has
// changed the catalog, and then reads what the spec posted, e.g. a reference
// another cell saved meanwhile.
type mailbox struct{ ch chan string }

func newMailbox() *mailbox { return &mailbox{ch: make(chan string, 1)} }

func (m *mailbox) tool() tools.Tool {
	return tools.Core("mailbox", "Wait until the harness posts a value, then return {value}.", nil,
		func(ctx context.Context, _ json.RawMessage) (any, error) {
			select {
			case v := <-m.ch:
				return map[string]string{"value": v}, nil
			case <-ctx.Done():
				return nil, protocol.ToolError("mailbox: canceled", nil)
			}
		})
}

func (m *mailbox) post(v string) { m.ch <- v }

// parkedProbe is guest code that saves {from: "parked"} and loads it back
// (before: the control that its reference loads at all), parks on the
// mailbox (which delivers, as JSON text, a reference another cell saved
// later), and then reports what its results store still does: load its own
// reference, load the posted one, save anew. Each probe is {ok: value} or
// {refused: true}. References are passed on as the values results.save
// resolved to, whatever their shape.
const parkedProbe = `const probe = async (f) => { try { return {ok: await f()}; } catch (e) { return {refused: true}; } };
const mine = await results.save({from: "parked"});
const before = await probe(() => results.load(refKey(mine)));
const other = JSON.parse((await call("mailbox", {})).value);
return {before, mine: await probe(() => results.load(refKey(mine))), other: await probe(() => results.load(refKey(other))), save: await probe(() => results.save({from: "parked, after"}))};`

// loadProbe is guest code returning {ok: value} or {refused: true} for
// results.load(ref), ref being the JSON text of a reference.
func loadProbe(ref string) string {
	return Guest(fmt.Sprintf(`try { return {ok: await results.load(refKey(%s))}; } catch (e) { return {refused: true}; }`, ref))
}

// hasTool is guest code returning whether ALL_TOOLS lists name: the control
// that a run.update took effect for cells started after it.
func hasTool(name string) string {
	return Guest(fmt.Sprintf(`return listTools().some((t) => t.name === %q);`, name))
}

// parkOn starts parkedProbe on r and expects it waiting on the mailbox.
func parkOn(ctx SpecContext, r *Run) Result {
	w := r.Exec(ctx, Guest(parkedProbe))
	Expect(w).To(BeWaiting(), "the cell must park in wait on the mailbox call (guest code:\n%s)", parkedProbe)
	return w
}

// savedRef runs a new cell of r that saves value and returns the JSON text
// of the reference results.save resolved to (CM-RES-01 judges its shape).
func savedRef(ctx SpecContext, r *Run, value string) string {
	code := fmt.Sprintf(`return await results.save(%s);`, value)
	res := r.Exec(ctx, code)
	Expect(res).To(BeCompleted(), "results.save in a new cell must succeed (guest code: %s)", code)
	ref, err := json.Marshal(res.ValueAny())
	Expect(err).NotTo(HaveOccurred(), "the reference must be JSON: %s", res)
	Expect(res.ValueAny()).NotTo(BeNil(), "results.save must resolve to a reference: %s", res)
	return string(ref)
}

// resumed posts v to box, follows the parked cell w (guest code code) to
// its end and returns its value, which must be completed. With mayEnd, a
// cell the update ended instead (failed with code aborted, as OpenClaw's
// agent interrupts code mode programs on a permission change) is accepted:
// ended is then true and the cell used no store at all.
func resumed(ctx SpecContext, r *Run, box *mailbox, w Result, v, code string, mayEnd bool) (value any, ended bool) {
	box.post(v)
	final, _ := r.Follow(ctx, w)
	if mayEnd && final.Status == result.StatusFailed && final.Code == result.CodeAborted {
		return nil, true
	}
	Expect(final).To(BeCompleted(), "the parked cell must complete after the mailbox delivered (guest code:\n%s)", code)
	return JSONNormal(final.ValueAny()), false
}

var refused = map[string]any{"refused": true}

// parkedSaved is the parked cell's own {from: "parked"} as a probe that
// loaded it.
var parkedSaved = map[string]any{"ok": map[string]any{"from": "parked"}}

var _ = Describe("codemode", "results store binding", func() {
	It("CM-RES-07", "a cell parked in wait keeps the results store it started with: across a catalog replacement it never adopts the new store", func(ctx SpecContext) {
		box := newMailbox()
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: append(tools.Standard(), box.tool())})
		w := parkOn(ctx, r)
		r.ReplaceTools(ctx, append(tools.Standard(), box.tool(), tools.Named(protocol.SourcePlugin, "fresh", "fresh", "A tool the replacement catalog adds."))...)
		Expect(r.Exec(ctx, hasTool("fresh"))).To(CompleteWith(true), "a cell started after run.update replaceTools must see the replacement catalog (the control that the replacement happened)")
		other := savedRef(ctx, r, `{from: "replacement"}`)
		got, ended := resumed(ctx, r, box, w, other, parkedProbe, true)
		if ended {
			return // the replacement ended the parked cell: it adopted nothing
		}
		want := map[string]any{"before": parkedSaved, "mine": refused, "other": refused, "save": refused}
		if m, ok := got.(map[string]any); ok {
			if s, ok := m["save"].(map[string]any); ok && s["ok"] != nil {
				// A save that resolved went to the parked cell's own store:
				// allowed only if that is not the replacement store.
				ref, _ := json.Marshal(s["ok"])
				Expect(r.Exec(ctx, loadProbe(string(ref)))).To(CompleteWith(refused),
					"the parked cell's results.save after the replacement resolved to %s: a cell started after the replacement must not load it, or the parked cell adopted the replacement store", ref)
				want["save"] = s
			}
		}
		Expect(cmp.Diff(JSONNormal(want), got)).To(BeEmpty(),
			"after run.update replaceTools the parked cell must not load its own reference (its store was cleared, CM-RES-03) nor the reference %s a new cell saved in the replacement store (it never adopts it), and must not save into it; guest code:\n%s\n(-want +got)", other, parkedProbe)
	})

	It("CM-RES-07", "a cell parked in wait loses its references after a permission change (restriction), and holding a reference grants no tool access", func(ctx SpecContext) {
		box := newMailbox()
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: append(tools.Standard(), box.tool())})
		// The parked cell holds a reference to add's result and add's id; the
		// restriction removes add.
		code := Guest(`const sum = await call("add", {a: 2, b: 3});
const ref = await results.save(sum);
const probe = async (f) => { try { return {ok: await f()}; } catch (e) { return {refused: true}; } };
const before = await probe(() => results.load(refKey(ref)));
const other = JSON.parse((await call("mailbox", {})).value);
return {before, mine: await probe(() => results.load(refKey(ref))), other: await probe(() => results.load(refKey(other))),
  callAdd: await probe(() => dispatch("add", {a: 1, b: 1})), callRef: await probe(() => tools.call(ref, {a: 1, b: 1}))};`)
		w := r.Exec(ctx, code)
		Expect(w).To(BeWaiting(), "the cell must park in wait on the mailbox call (guest code:\n%s)", code)
		Expect(r.Tools.CallsOf("add")).To(HaveLen(1), "the cell called add once before it parked")
		r.RestrictTo(ctx, "echo", "slow", "fail", "big", "mailbox")
		Expect(r.Exec(ctx, hasTool("add"))).To(CompleteWith(false), "a cell started after run.update restrictTo must not see add (the control that the restriction happened)")
		other := savedRef(ctx, r, `{from: "after restriction"}`)
		got, ended := resumed(ctx, r, box, w, other, code, true)
		want := map[string]any{"before": map[string]any{"ok": map[string]any{"sum": 5}}, "mine": refused, "other": refused, "callAdd": refused, "callRef": refused}
		if !ended { // a cell the restriction ended keeps nothing
			Expect(cmp.Diff(JSONNormal(want), got)).To(BeEmpty(),
				"after run.update restrictTo without add the parked cell must lose its reference, must not adopt the new store (reference %s), and neither add's catalog id nor the reference to add's result may call a tool; guest code:\n%s\n(-want +got)", other, code)
		}
		Expect(r.Tools.CallsOf("add")).To(HaveLen(1), "no tool.invoke of add may reach the harness after the restriction removed it: %v", r.Tools.CallsOf("add"))
	})

	It("CM-RES-07", "attaching client tools keeps the results store, for a cell parked in wait and for later cells", func(ctx SpecContext) {
		box := newMailbox()
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: append(tools.Standard(), box.tool())})
		w := parkOn(ctx, r)
		before := savedRef(ctx, r, `{from: "before attach"}`)
		r.AttachClientTools(ctx, tools.Named(protocol.SourceClient, "app", "notes", "A client tool the attach adds."))
		Expect(r.Exec(ctx, hasTool("notes"))).To(CompleteWith(true), "a cell started after run.update attachClientTools must see the client tool (the control that the attach happened)")
		Expect(r.Exec(ctx, loadProbe(before))).To(CompleteWith(map[string]any{"ok": map[string]any{"from": "before attach"}}),
			"a reference saved before attachClientTools must still load in a cell started after it (the same store)")
		other := savedRef(ctx, r, `{from: "after attach"}`)
		got, _ := resumed(ctx, r, box, w, other, parkedProbe, false)
		m, _ := got.(map[string]any)
		Expect(m).NotTo(BeNil(), "the parked cell must return an object: %v", got)
		want := map[string]any{"before": parkedSaved, "mine": parkedSaved, "other": map[string]any{"ok": map[string]any{"from": "after attach"}}, "save": m["save"]}
		Expect(m["save"]).To(HaveKey("ok"), "the parked cell's results.save after attachClientTools must succeed (its store is intact): %v", got)
		Expect(cmp.Diff(JSONNormal(want), got)).To(BeEmpty(),
			"after run.update attachClientTools the parked cell must keep its store: load its own reference and the reference %s a later cell saved; guest code:\n%s\n(-want +got)", other, parkedProbe)
	})
})

var _ = Describe("codemode", "results store lifetime", func() {
	It("CM-RES-03", "saved references are cleared on catalog replacement and on restriction", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		a := savedRef(ctx, r, `{n: 1}`)
		Expect(r.Exec(ctx, loadProbe(a))).To(CompleteWith(map[string]any{"ok": map[string]any{"n": 1}}), "the reference must load before the replacement (the control)")
		r.ReplaceTools(ctx, append(tools.Standard(), tools.Named(protocol.SourcePlugin, "fresh", "fresh", "A tool the replacement adds."))...)
		Expect(r.Exec(ctx, loadProbe(a))).To(CompleteWith(refused), "after run.update replaceTools a reference saved before it must not load")
		b := savedRef(ctx, r, `{n: 2}`)
		Expect(r.Exec(ctx, loadProbe(b))).To(CompleteWith(map[string]any{"ok": map[string]any{"n": 2}}), "the replacement's results store must work (the control)")
		r.RestrictTo(ctx, "echo", "slow", "fail", "big", "fresh")
		Expect(r.Exec(ctx, loadProbe(b))).To(CompleteWith(refused), "after run.update restrictTo removed add, a reference saved before it must not load")
		c := savedRef(ctx, r, `{n: 3}`)
		Expect(r.Exec(ctx, loadProbe(c))).To(CompleteWith(map[string]any{"ok": map[string]any{"n": 3}}), "the results store after the restriction must work (the control)")
	})
})
