package codemode

import (
	"encoding/json"
	"fmt"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/google/go-cmp/cmp"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Feature untrusted-content (page 001 "嵌套工具执行", "运行和快照生命周期",
// "会话存储持久性"; spec/protocol.md §4.3): the fake tool fetch_page is
// declared network-controlled (resultContentSource "network") in
// run.prepare. What it returns and throws is wrapped by the tool itself, as
// OpenClaw's web tools wrap what they fetch; code mode must hand that to the
// guest and into the cell's result untouched, and mark every result of a
// cell that saw network content (networkContent: true, which the model
// receives wrapped as untrusted). Specs never assert that a result is
// unmarked: a target may mark more than this (OpenClaw also marks a cell
// that read a non-openclaw tool's metadata).

// fetchURL is the page the specs fetch.
const fetchURL = "https://weather.example/oslo"

// fetchCall is guest code (inside Guest) setting page to fetch_page's page.
var fetchCall = fmt.Sprintf(`const page = (await call("fetch_page", {url: %q})).page;`, fetchURL)

// fetchErrorWrapper is the wrapper fetch_page's error carries, as the harness
// expects to find it.
func fetchErrorWrapper() protocol.Untrusted {
	u, ok := protocol.FindUntrusted(tools.FetchError(fetchURL))
	Expect(ok).To(BeTrue(), "harness fault: fetch_page's error is not a wrapper")
	return u
}

// expectWrapperIn fails unless text holds want, the wrapper of fetch_page's
// error, intact: the same marker id, source and sanitised content.
func expectWrapperIn(text string, want protocol.Untrusted, what string, res Result) {
	got, ok := protocol.FindUntrusted(text)
	Expect(ok).To(BeTrue(), "%s must hold fetch_page's untrusted-content wrapper intact (its warning, markers with id %s, Source and sanitised text), but it is %q\n%s", what, want.ID, text, res)
	Expect(cmp.Diff(want, got)).To(BeEmpty(), "%s: the wrapper of the network-controlled tool's error (-want +got) must reach it unchanged, never unwrapped or re-sanitised\n%s", what, res)
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, err := json.Marshal(s)
	Expect(err).NotTo(HaveOccurred(), "harness fault: marshalling a string")
	return string(b)
}

// rawEntries are transcript entries as run.prepare's session.transcript
// takes them.
func rawEntries(entries []protocol.StoreEntry) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(entries))
	for _, e := range entries {
		b, err := json.Marshal(e)
		Expect(err).NotTo(HaveOccurred(), "harness fault: marshalling a transcript entry")
		out = append(out, b)
	}
	return out
}

// expectMarked fails unless res carries networkContent: true.
func expectMarked(res Result, why string) {
	Expect(res.NetworkContent).To(BeTrue(), "%s: the result must carry networkContent: true (the model receives it wrapped as untrusted content)\n%s", why, res)
}

var _ = Describe("codemode", "untrusted content", func() {
	It("CM-NEST-20", "output and errors of network-controlled tools keep their untrusted-content wrapping, as the guest sees them and in the cell's result", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: append(tools.Standard(), tools.Fetch())})
		page := tools.FetchedPage(fetchURL)

		final, _ := r.RunToCompletion(ctx, Guest(fetchCall+` return {page, seen: page === `+jsString(page)+`};`))
		Expect(final).To(CompleteWith(map[string]any{"page": page, "seen": true}),
			"the guest must see fetch_page's page exactly as the tool returned it, its untrusted-content wrapper included, and the cell's value must carry it unchanged %s", EnvelopeNote)
		expectMarked(final, "a cell that called a network-controlled tool")

		want := fetchErrorWrapper()
		caught := Guest(fmt.Sprintf(`try { await call("fetch_page", {url: %q, fail: true}); return "no error"; } catch (e) { return String(e && e.message); }`, fetchURL))
		final, _ = r.RunToCompletion(ctx, caught)
		Expect(final).To(BeCompleted(), "a caught error of a network-controlled tool must leave the cell completed")
		msg, _ := final.ValueAny().(string)
		expectWrapperIn(msg, want, "the error message the guest caught and returned as the cell's value", final)
		expectMarked(final, "a cell that caught a network-controlled tool's error")

		final, _ = r.RunToCompletion(ctx, Guest(fmt.Sprintf(`await call("fetch_page", {url: %q, fail: true}); return "unreachable";`, fetchURL)))
		Expect(final).To(BeFailed(), "an uncaught error of a network-controlled tool must fail the cell")
		expectWrapperIn(final.Error, want, "the failed cell's error", final)
		expectMarked(final, "a cell failed by a network-controlled tool's error")

		w := r.Exec(ctx, Guest(fetchCall+` const s = (await call("slow", {ms: 1500, tag: "late"})); return {page, tag: s.tag};`))
		Expect(w).To(BeWaiting(), "the slow call after the fetch must suspend the cell (timeoutMs 1000)")
		expectMarked(w, "the waiting result of a cell that already saw network content")
		final, _ = r.Follow(ctx, w)
		Expect(final).To(CompleteWith(map[string]any{"page": page, "tag": "late"}),
			"after wait restored the snapshot the page must still be the tool's, wrapper included %s", EnvelopeNote)
		expectMarked(final, "the cell resumed from its snapshot after it saw network content: the mark survives suspension")
	})

	It("CM-RES-08", "loading a saved value that came from network-controlled content makes the receiving cell's result untrusted", func(ctx SpecContext) {
		RequireFeature("untrusted-content", "CM-RES-08 saves the output of a network-controlled tool (run.prepare resultContentSource)")
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: append(tools.Standard(), tools.Fetch())})
		saved, _ := r.RunToCompletion(ctx, Guest(fetchCall+` return await results.save({page});`))
		Expect(saved).To(BeCompleted(), "results.save of a fetched page must succeed")
		ref := savedReference(saved)
		loaded := r.Exec(ctx, Guest(fmt.Sprintf(`const v = await results.load(refKey(%s)); return v.page;`, ref)))
		Expect(loaded).To(CompleteWith(tools.FetchedPage(fetchURL)), "a later cell must load the saved page unchanged, its wrapper included")
		expectMarked(loaded, "a cell that called no network tool but loaded a value saved from network content (its provenance travels with the saved value)")
	})

	It("CM-STO-11", "a value stored from network-controlled content is untrusted when loaded in a later turn", func(ctx SpecContext) {
		RequireFeature("untrusted-content", "CM-STO-11 stores the output of a network-controlled tool (run.prepare resultContentSource)")
		sid, branch := freshSession(), &protocol.Session{Branch: "main"}
		open := func() *Run {
			return NewRun(ctx, RunOptions{CodeMode: true, Tools: append(tools.Standard(), tools.Fetch()), Session: branch,
				Context: protocol.RunContext{AgentID: "store", SessionID: sid, SessionKey: "agent:store:" + sid}})
		}
		first := open()
		stored, _ := first.RunToCompletion(ctx, Guest(fetchCall+` await store("page", page); await store("note", "mine"); return "stored";`))
		Expect(stored).To(CompleteWith("stored"), "a cell that stores a fetched page and completes")
		first.End(ctx)

		page := tools.FetchedPage(fetchURL)
		later := open().Exec(ctx, loadOf("page"))
		Expect(later).To(CompleteWith(page), "a later turn (run) of the same branch must load the stored page unchanged, its wrapper included")
		expectMarked(later, "a cell of a later turn that called no network tool but loaded a value stored from network content")

		if !TrajectoryAvailable() {
			// The later-turn load above is CM-STO-11's text; the restart
			// below only reads its entry through run.trajectory.
			ginkgo.AddReportEntry("not checked", "the load after a restart: the target gives no run.trajectory to take the transcript entry from")
			return
		}
		// The transcript is the persistence (CM-STO-08): the key's provenance
		// must come back with it after a restart.
		r := open()
		Expect(r.Exec(ctx, Guest(fetchCall+` await store("page", page); return 1;`))).To(CompleteWith(1), "a cell that stores a fetched page and completes")
		tr := r.TrajectoryAid(ctx, "CM-STO-11 hands the transcript entry back after a restart")
		Expect(tr.Entries).NotTo(BeEmpty(), "the committing cell must have appended an openclaw.code-mode-store entry (CM-STO-05)")
		last := tr.Entries[len(tr.Entries)-1]
		Expect(last.NetworkContent).To(ContainElement("page"), "the transcript entry must record the key's network provenance (networkContent) %+v", last)
		r.End(ctx)
		RestartTarget()
		replayed := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard(), Session: &protocol.Session{Branch: "main", Transcript: rawEntries(tr.Entries)},
			Context: protocol.RunContext{AgentID: "store", SessionID: sid, SessionKey: "agent:store:" + sid}}).Exec(ctx, loadOf("page"))
		Expect(replayed).To(CompleteWith(page), "after a restart the page must come back from the transcript")
		expectMarked(replayed, "a cell that loaded, after a restart, a value whose transcript entry records network provenance")
	})
})
