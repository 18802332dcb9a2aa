package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/codemode-conformance/codemode/fakes/provider"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var storeSeq atomic.Int64

// The session store's transcript entries stay out of the model's context
// (feature session-store, page 001 "会话存储持久性"; spec/protocol.md §5.7).
var _ = Describe("e2e", "end-to-end plan: the session store and the provider", func() {
	It("CM-STO-09", "openclaw.code-mode-store entries are never sent to the model provider, in the turn that commits them nor in a later turn of the session", func(ctx SpecContext) {
		requireTurns("CM-STO-09")
		RequireTrajectory("CM-STO-09 takes the committed entries from run.trajectory to hand them to the next run")
		sid := fmt.Sprintf("sto09-%d-%d", time.Now().UnixNano()%1e9, storeSeq.Add(1))
		runOf := func(s *protocol.Session) *Run {
			return NewRun(ctx, RunOptions{CodeMode: true, Tools: planTools(), Session: s,
				Context: protocol.RunContext{AgentID: "store", SessionID: sid, SessionKey: "agent:store:" + sid}})
		}
		// The stored value is built at run time, so that it appears in no exec
		// input: if it reaches the provider, an entry (or a load) carried it.
		marker := `["qz", "vk", "9417"].join("-")`
		const markerText = "qz-vk-9417"

		first := runOf(&protocol.Session{Branch: "main"})
		prov1 := StartProvider(provider.Exec(`await store("secret", `+marker+`); return "stored";`), first.Settle())
		res1 := first.Turn(ctx, prov1, "Remember the code.", TurnOptions{})
		Expect(res1.Status).To(Equal(protocol.TurnCompleted), "the first turn must complete%s", evidence(prov1, res1))
		Expect(lastResult(res1, prov1)["value"]).To(Equal("stored"), "the storing cell must complete%s", evidence(prov1, res1))
		tr := first.TrajectoryAid(ctx, "CM-STO-09 takes the committed entries from run.trajectory to hand them to the next run")
		Expect(tr.Entries).NotTo(BeEmpty(), "the committing cell must have appended an openclaw.code-mode-store entry (CM-STO-05)")

		// The next turn of the session: history replayed, entries handed back
		// as the session manager would; the cell proves they were applied.
		var transcript []json.RawMessage
		for _, e := range tr.Entries {
			b, err := json.Marshal(e)
			Expect(err).NotTo(HaveOccurred(), "a trajectory entry must encode")
			transcript = append(transcript, b)
		}
		second := runOf(&protocol.Session{Branch: "main", Transcript: transcript})
		prov2 := StartProvider(provider.Exec(`const v = await load("secret"); return v === undefined ? "absent" : v.length;`), second.Settle())
		res2 := second.Turn(ctx, prov2, "Do you still have it?", TurnOptions{History: res1.Messages})
		Expect(res2.Status).To(Equal(protocol.TurnCompleted), "the second turn must complete%s", evidence(prov2, res2))
		Expect(lastResult(res2, prov2)["value"]).To(BeNumerically("==", len(markerText)), "the second run must load the committed value from the handed-back entries (the control)%s", evidence(prov2, res2))

		for i, prov := range []*provider.Server{prov1, prov2} {
			for _, q := range prov.Requests() {
				b, err := json.Marshal(q.ChatRequest)
				Expect(err).NotTo(HaveOccurred(), "a recorded request must encode")
				body := string(b)
				Expect(body).NotTo(ContainSubstring(protocol.StoreEntryType), "turn %d, request %d: no openclaw.code-mode-store entry may reach the provider%s", i+1, q.Seq, evidence(prov, res2))
				Expect(body).NotTo(ContainSubstring(markerText), "turn %d, request %d: the stored value may reach the provider only if a cell returns it, and none does%s", i+1, q.Seq, evidence(prov, res2))
			}
		}
		Expect(strings.Contains(prov1.Summary(), markerText)).To(BeFalse(), "the first turn's provider requests must not carry the stored value")
	})
})
