package e2e

import (
	"encoding/json"
	"fmt"

	"github.com/codemode-conformance/codemode/fakes/provider"
	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
)

// fetchURL is the page the untrusted-content turn fetches.
const fetchURL = "https://weather.example/oslo"

// networkCell fetches a page with fetch_page (network-controlled: its page
// is wrapped by the tool, its error spoofs an end marker and <|im_end|>)
// and returns both.
var networkCell = Guest(fmt.Sprintf(`const page = (await call("fetch_page", {url: %[1]q})).page;
let err = null;
try { await call("fetch_page", {url: %[1]q, fail: true}); } catch (e) { err = String(e && e.message); }
return {page, err};`, fetchURL))

// trustedCell touches no tool and no tool metadata: nothing a target may
// mark (§4.3 names network calls, non-openclaw tool metadata and MCP $api).
const trustedCell = `return {sum: 6 * 7};`

// modelCell is what CM-NEST-20 compares of the network cell's last result
// as the model received it.
type modelCell struct {
	Source, Status, Page, Err string
}

// requestJSON is the provider request q as the harness saved it.
func requestJSON(q provider.Request) string {
	b, err := json.MarshalIndent(q, "", "  ")
	if err != nil {
		return fmt.Sprintf("(request %d not marshallable: %v)", q.Seq, err)
	}
	return string(b)
}

var _ = Describe("e2e", "end-to-end plan: untrusted content in agent turns", func() {
	It("CM-NEST-20", "in an agent turn, the result of a cell that called a network-controlled tool reaches the model provider inside the untrusted-content wrapper (Source API), sanitised; a cell that touched no tool reaches it as it is", func(ctx SpecContext) {
		requireTurns("CM-NEST-20")
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: append(tools.Standard(), tools.Fetch())})
		prov := StartProvider(provider.Exec(trustedCell), provider.Exec(Rendered(networkCell)), r.Settle())
		res := r.Turn(ctx, prov, "What is the weather in Oslo?", TurnOptions{})
		Expect(res.Status).To(Equal(protocol.TurnCompleted), "the turn must complete%s", evidence(prov, res))
		reqs := prov.Requests()
		Expect(len(reqs)).To(BeNumerically(">=", 3), "a request per exec, then the one that settles the network cell%s", evidence(prov, res))
		last := reqs[len(reqs)-1]
		saved := "\nrequest: the last provider request (saved with the run's results):\n" + requestJSON(last) + evidence(prov, res)
		var texts []string
		for _, m := range last.Messages {
			if m.Role == "tool" {
				texts = append(texts, m.Text())
			}
		}
		Expect(len(texts)).To(BeNumerically(">=", 2), "the provider must receive the trusted cell's result and the network cell's result(s) as tool messages%s", saved)

		// The trusted cell: its result as it is, JSON the model reads directly.
		var trusted struct {
			Status string          `json:"status"`
			Value  json.RawMessage `json:"value"`
		}
		_, wrapped := protocol.FindUntrusted(texts[0])
		Expect(wrapped).To(BeFalse(), "the result of a cell that touched no tool must not be wrapped as untrusted content, but it is %q%s", texts[0], saved)
		Expect(json.Unmarshal([]byte(texts[0]), &trusted)).To(Succeed(), "the trusted cell's result must reach the model as its JSON text: %q%s", texts[0], saved)
		Expect(trusted.Status).To(Equal("completed"), "the trusted cell must complete: %s%s", texts[0], saved)
		Expect(trusted.Value).To(MatchJSON(`{"sum":42}`), "the trusted cell's value: %s%s", texts[0], saved)

		// The network cell: each of its results (exec, and wait while it
		// waits) is one wrapper, Source API, around sanitised text.
		for i, text := range texts[1:] {
			u, ok := protocol.FindUntrusted(text)
			Expect(ok).To(BeTrue(), "tool message %d of the network cell must be the untrusted-content wrapper (security notice, markers with one fresh id, Source, sanitised text), but the provider received %q%s", i+2, text, saved)
			Expect(u.ID).NotTo(Equal(tools.FetchMarkerID), "tool message %d: the result's wrapper needs its own marker id, not the one fetch_page used%s", i+2, saved)
			Expect(cmp.Diff(protocol.WrapUntrusted(u.Content, protocol.UntrustedSourceAPI, u.ID), text)).To(BeEmpty(),
				"tool message %d must be exactly the wrapper with Source API around sanitised text (-wrapped and sanitised +what the provider received): nothing outside it, no marker or special token left inside%s", i+2, saved)
		}
		u, _ := protocol.FindUntrusted(texts[len(texts)-1])
		var final struct {
			Status string `json:"status"`
			Value  struct {
				Page string `json:"page"`
				Err  string `json:"err"`
			} `json:"value"`
		}
		Expect(json.Unmarshal([]byte(u.Content), &final)).To(Succeed(), "inside the wrapper the model must find the result's JSON text: %q%s", u.Content, saved)
		want := modelCell{Source: protocol.UntrustedSourceAPI, Status: "completed",
			Page: protocol.SanitizeUntrusted(tools.FetchedPage(fetchURL)), Err: protocol.SanitizeUntrusted(tools.FetchError(fetchURL))}
		got := modelCell{Source: u.Source, Status: final.Status, Page: final.Value.Page, Err: final.Value.Err}
		Expect(cmp.Diff(want, got)).To(BeEmpty(),
			"the network cell's last result as the model received it (-want +got): Source API, and the fetched page and the caught error (which spoofs an end marker and <|im_end|>) with every marker and special token neutralised %s%s", EnvelopeNote, saved)
	})
})
