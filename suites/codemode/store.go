package codemode

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Features results and session-store (page 001, spec/protocol.md §5.7 and
// §12.11): results.save/load/delete and store/load. The specs are skipped,
// naming the feature, on targets that do not declare them (the v1 profile).

var storeSeq atomic.Int64

// sessionRun prepares a run of session sid continuing branch (nil session:
// no bound session).
func sessionRun(ctx SpecContext, sid string, session *protocol.Session, codeMode any) *Run {
	return NewRun(ctx, RunOptions{CodeMode: codeMode, Tools: tools.Standard(), Session: session,
		Context: protocol.RunContext{AgentID: "store", SessionID: sid, SessionKey: "agent:store:" + sid}})
}

// freshSession returns a session id no other spec uses.
func freshSession() string {
	return fmt.Sprintf("store-%d-%d", time.Now().UnixNano()%1e9, storeSeq.Add(1))
}

// loadOf is guest code returning load(key), or "<absent>" for undefined.
func loadOf(key string) string {
	return fmt.Sprintf(`const v = await load(%q); return v === undefined ? "<absent>" : v;`, key)
}

// savedReference is what a completed results.save resolved to, as a
// JavaScript literal for a later cell: 001 says only that save returns a
// reference ("引用"), so any non-null JSON value is one (a string for the
// reference, a descriptor {id, …} for OpenClaw 2026.9.6); cells hand it to
// load and delete through the dialect's refKey.
func savedReference(saved Result) string {
	ginkgo.GinkgoHelper()
	Expect(saved.ValueAny()).NotTo(BeNil(), "results.save must resolve to a reference: %s", saved)
	return string(saved.Value)
}

var _ = Describe("codemode", "results store", func() {
	It("CM-RES-01", "results.save keeps normalised JSON across cells, beyond the output budget, and load returns a detached copy", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxOutputBytes": 1024}), Tools: tools.Standard()})
		save := `const ref = await results.save({s: "x".repeat(4000), n: [1, 2, 3], u: undefined}); return ref;`
		saved := r.Exec(ctx, save)
		Expect(saved).To(BeCompleted(), "results.save of a 4000-byte value must succeed under maxOutputBytes 1024 (the store is independent of the output budget)")
		ref := savedReference(saved)
		load := Guest(fmt.Sprintf(`const a = await results.load(refKey(%s)); a.n.push(4); a.s = "changed"; const b = await results.load(refKey(%[1]s));
return {len: b.s.length, n: b.n, keys: Object.keys(b).sort()};`, ref))
		Expect(r.Exec(ctx, load)).To(CompleteWith(map[string]any{"len": 4000, "n": []any{1, 2, 3}, "keys": []any{"n", "s"}}),
			"a later cell (a new VM) must load the saved value as normalised JSON (undefined members dropped), and each load must be a detached copy")
	})

	It("CM-RES-02", "at most 64 entries and min(memoryLimitBytes, maxSnapshotBytes) bytes; a refused save keeps the entries and a delete frees capacity", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		entries := Guest(`const refs = []; for (let i = 0; i < 64; i++) refs.push(await results.save({i}));
let refused = "no"; try { await results.save({i: 64}); } catch (e) { refused = "yes"; }
const first = await results.load(refKey(refs[0]));
await results.delete(refKey(refs[63]));
const again = await results.save({i: 65});
return {distinct: new Set(refs.map((r) => JSON.stringify(refKey(r)))).size, refused, first, back: await results.load(refKey(again))};`)
		Expect(r.Exec(ctx, entries)).To(CompleteWith(map[string]any{"distinct": 64, "refused": "yes", "first": map[string]any{"i": 0}, "back": map[string]any{"i": 65}}),
			"64 saves must succeed with distinct references, the 65th must be refused with a catchable error, the first entry must stay loadable, and a delete must make room")

		b := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxSnapshotBytes": 4096}), Tools: tools.Standard()})
		bytes := Guest(`const a = await results.save("a".repeat(3000));
let refused = "no"; try { await results.save("b".repeat(2000)); } catch (e) { refused = "yes"; }
const kept = (await results.load(refKey(a))).length;
await results.delete(refKey(a));
const b = await results.save("b".repeat(2000));
return {refused, kept, b: (await results.load(refKey(b))).length};`)
		Expect(b.Exec(ctx, bytes)).To(CompleteWith(map[string]any{"refused": "yes", "kept": 3000, "b": 2000}),
			"with maxSnapshotBytes 4096 a save past 4096 encoded bytes must be refused, the saved entry kept, and deleting it must free its bytes")
	})

	It("CM-RES-03", "saved references expire with the reply (run) and do not survive a restart", func(ctx SpecContext) {
		sid := freshSession()
		a := sessionRun(ctx, sid, nil, true)
		saved := a.Exec(ctx, `return await results.save({kept: true});`)
		Expect(saved).To(BeCompleted(), "results.save must succeed")
		probe := Guest(fmt.Sprintf(`try { await results.load(refKey(%s)); return "loaded"; } catch (e) { return "refused"; }`, savedReference(saved)))
		Expect(a.Exec(ctx, probe)).To(CompleteWith("loaded"), "the reference must load within its own run")
		a.End(ctx)
		b := sessionRun(ctx, sid, nil, true)
		Expect(b.Exec(ctx, probe)).To(CompleteWith("refused"), "a reference saved in an ended run (an earlier reply) of the same session must not load")

		c := sessionRun(ctx, sid, nil, true)
		Expect(c.Exec(ctx, `return await results.save({kept: true});`)).To(BeCompleted(), "results.save must succeed")
		RestartTarget()
		d := sessionRun(ctx, sid, nil, true)
		Expect(d.Exec(ctx, probe)).To(CompleteWith("refused"), "a reference must not survive a restart of the target")
	})
})

var _ = Describe("codemode", "session store", func() {
	It("CM-STO-01", "store and load work across a suspension within a cell", func(ctx SpecContext) {
		r := sessionRun(ctx, freshSession(), &protocol.Session{Branch: "main"}, suspendable(nil))
		code := Guest(`await store("k", {a: 1}); const before = await load("k");
const s = await call("slow", {ms: 1500, tag: "late"}); return {before, after: await load("k")};`)
		w := r.Exec(ctx, code)
		Expect(w).To(BeWaiting(), "the slow nested call must suspend the cell")
		final, _ := r.Follow(ctx, w)
		Expect(final).To(CompleteWith(map[string]any{"before": map[string]any{"a": 1}, "after": map[string]any{"a": 1}}),
			"load must see the cell's own store() before and after the suspension")
	})

	It("CM-STO-02", "only a completed cell commits: failed, timed-out, aborted and expired cells commit nothing", func(ctx SpecContext) {
		sid, branch := freshSession(), &protocol.Session{Branch: "main"}
		r := sessionRun(ctx, sid, branch, suspendable(nil))
		Expect(r.Exec(ctx, `await store("failed", 1); throw new Error("boom");`)).To(BeFailed(), "a cell that throws must fail")
		Expect(r.Exec(ctx, `await store("timedout", 1); while (true) {}`)).To(BeFailed(), "a cell that loops past timeoutMs must fail")

		e := sessionRun(ctx, sid, branch, suspendable(map[string]any{"snapshotTtlSeconds": 2}))
		w := e.Exec(ctx, Guest(`await store("expired", 1); `+slowCall))
		Expect(w).To(BeWaiting(), "the slow nested call must suspend the cell")
		time.Sleep(3500 * time.Millisecond) // the TTL (2 s, above timeoutMs: protocol.md §10) is the subject under test; a wait before it passes would resume the cell
		Expect(e.Wait(ctx, w.RunID)).To(BeFailed(), "an expired cell must not resume")

		x := sessionRun(ctx, sid, branch, suspendable(nil))
		w = x.Exec(ctx, Guest(`await store("aborted", 1); `+slowCall))
		Expect(w).To(BeWaiting(), "the slow nested call must suspend the cell")
		x.Abort(ctx)

		later := sessionRun(ctx, sid, branch, true)
		for _, k := range []string{"failed", "timedout", "expired", "aborted"} {
			Expect(later.Exec(ctx, loadOf(k))).To(CompleteWith("<absent>"), "a later run of the same branch must not see what the %s cell stored", k)
		}
		Expect(later.Exec(ctx, `await store("done", 7); return 1;`)).To(CompleteWith(1), "a cell that stores and completes")
		Expect(later.Exec(ctx, loadOf("done"))).To(CompleteWith(7), "a completed cell's store() must be committed and visible to the next cell (the control)")
	})

	It("CM-STO-03", "committed values are visible to later cells of the same branch only, never to another branch or session", func(ctx SpecContext) {
		sid := freshSession()
		a := sessionRun(ctx, sid, &protocol.Session{Branch: "b1"}, true)
		Expect(a.Exec(ctx, `await store("k", "v1"); return 1;`)).To(CompleteWith(1), "a cell that stores and completes")
		Expect(a.Exec(ctx, loadOf("k"))).To(CompleteWith("v1"), "a later cell of the same run must see the committed value")
		Expect(sessionRun(ctx, sid, &protocol.Session{Branch: "b1"}, true).Exec(ctx, loadOf("k"))).To(CompleteWith("v1"),
			"a later run of the same session branch must see the committed value")
		Expect(sessionRun(ctx, sid, &protocol.Session{Branch: "b2"}, true).Exec(ctx, loadOf("k"))).To(CompleteWith("<absent>"),
			"another branch of the same session must not see the value")
		Expect(sessionRun(ctx, freshSession(), &protocol.Session{Branch: "b1"}, true).Exec(ctx, loadOf("k"))).To(CompleteWith("<absent>"),
			"another session with a branch of the same name must not see the value")
	})

	It("CM-STO-04", "store and load are unavailable without a bound session and in headless execution", func(ctx SpecContext) {
		probe := `const out = []; for (const f of [() => store("k", 1), () => load("k")]) { try { await f(); out.push("ran"); } catch (e) { out.push("refused"); } } return out;`
		Expect(sessionRun(ctx, freshSession(), nil, true).Exec(ctx, probe)).To(CompleteWith([]any{"refused", "refused"}),
			"without a bound session store and load must reject with a catchable error")
		Expect(sessionRun(ctx, freshSession(), &protocol.Session{Branch: "main", Headless: true}, true).Exec(ctx, probe)).To(CompleteWith([]any{"refused", "refused"}),
			"in headless (restart-safe) execution store and load must reject with a catchable error")
		Expect(sessionRun(ctx, freshSession(), &protocol.Session{Branch: "main"}, true).Exec(ctx, probe)).To(CompleteWith([]any{"ran", "ran"}),
			"with a bound session branch store and load must work (the control)")
	})
	It("CM-STO-07", "within a cell load sees the cell's own sets and deletes over the committed values", func(ctx SpecContext) {
		r := sessionRun(ctx, freshSession(), &protocol.Session{Branch: "main"}, true)
		Expect(r.Exec(ctx, `await store("a", "committed"); await store("b", "committed"); return 1;`)).To(CompleteWith(1), "a cell that stores and completes")
		code := `await store("a", "mine"); await store("b", undefined); await store("c", 3);
const seen = {a: await load("a"), b: (await load("b")) === undefined ? "<absent>" : "present", c: await load("c")};
throw new Error(JSON.stringify(seen));`
		res := r.Exec(ctx, code)
		Expect(res).To(BeFailed(), "the cell throws its observations so that it commits nothing")
		Expect(res.Error).To(ContainSubstring(`{"a":"mine","b":"<absent>","c":3}`), "load must see the cell's own set over the committed a, its own delete of the committed b, and its own new c: %s", res)
		Expect(r.Exec(ctx, `return {a: await load("a"), b: await load("b")};`)).To(CompleteWith(map[string]any{"a": "committed", "b": "committed"}),
			"the failed cell's sets and deletes must not reach the committed values")
	})

	It("CM-STO-10", "store and load fail when the session's live leaf is on another branch", func(ctx SpecContext) {
		sid := freshSession()
		probe := `const out = []; for (const f of [() => store("k", 1), () => load("k")]) { try { await f(); out.push("ran"); } catch (e) { out.push("refused"); } } return out;`
		a := sessionRun(ctx, sid, &protocol.Session{Branch: "b1"}, true)
		Expect(a.Exec(ctx, probe)).To(CompleteWith([]any{"ran", "ran"}), "while b1 is the live leaf its run's store and load must work (the control)")
		b := sessionRun(ctx, sid, &protocol.Session{Branch: "b2"}, true)
		Expect(a.Exec(ctx, probe)).To(CompleteWith([]any{"refused", "refused"}),
			"after a run of branch b2 of the same session was prepared, b2 is the live leaf: the b1 run's store and load must reject")
		Expect(b.Exec(ctx, probe)).To(CompleteWith([]any{"ran", "ran"}), "the run of the live leaf b2 must store and load")
	})
})
