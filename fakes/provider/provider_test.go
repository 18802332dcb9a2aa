package provider_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/codemode-conformance/codemode/fakes/provider"
	"github.com/codemode-conformance/codemode/reference/agent"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

func start(script ...provider.Step) *provider.Server {
	GinkgoHelper()
	s, err := provider.Start(script...)
	Expect(err).NotTo(HaveOccurred(), "starting the fake provider")
	DeferCleanup(s.Close)
	return s
}

func ask(s *provider.Server, stream bool, msgs ...protocol.ChatMessage) (protocol.ChatMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return agent.Complete(ctx, http.DefaultClient, s.URL, protocol.ChatRequest{Model: provider.Model, Stream: stream, User: "u-1",
		Messages: msgs, Tools: []protocol.ChatTool{{Type: "function", Function: protocol.ChatFunction{Name: "exec"}}}})
}

func user(s string) protocol.ChatMessage {
	return protocol.ChatMessage{Role: "user", Content: protocol.TextContent(s)}
}

var _ = Describe("fake model provider", func() {
	for _, stream := range []bool{false, true} {
		It("answers the script's tool call, then its final text, and records both requests (stream "+map[bool]string{false: "off", true: "on"}[stream]+")", func() {
			s := start(provider.Exec("return 1"), provider.Final("done: é"))
			m, err := ask(s, stream, user("hi"))
			Expect(err).NotTo(HaveOccurred(), "first request")
			Expect(m.ToolCalls).To(HaveLen(1), "one tool call: %+v", m)
			Expect(m.ToolCalls[0].Function.Name).To(Equal("exec"))
			Expect(m.ToolCalls[0].ID).To(Equal("call_1"))
			Expect(m.ToolCalls[0].Function.Arguments).To(MatchJSON(`{"code":"return 1"}`))
			tool := protocol.ChatMessage{Role: "tool", ToolCallID: "call_1", Content: protocol.TextContent(`{"status":"completed","value":1}`)}
			m, err = ask(s, stream, user("hi"), m, tool)
			Expect(err).NotTo(HaveOccurred(), "second request")
			Expect(m.ToolCalls).To(BeEmpty())
			Expect(m.Text()).To(Equal("done: é"), "the final text, joined from the stream")
			reqs := s.Requests()
			Expect(reqs).To(HaveLen(2), "recorded requests:\n%s", s.Summary())
			Expect(reqs[0].ToolNames()).To(Equal([]string{"exec"}))
			Expect(reqs[0].User).To(Equal("u-1"))
			Expect(reqs[1].ToolResults()).To(Equal(map[string]string{"call_1": `{"status":"completed","value":1}`}))
		})
	}

	It("lets a step read the runId of the last tool result (WaitLast)", func() {
		s := start(provider.WaitLast())
		tool := protocol.ChatMessage{Role: "tool", ToolCallID: "call_1", Content: protocol.TextContent(`{"status":"waiting","runId":"cm_7"}`)}
		m, err := ask(s, true, user("hi"), tool)
		Expect(err).NotTo(HaveOccurred())
		Expect(m.ToolCalls).To(HaveLen(1))
		Expect(m.ToolCalls[0].Function.Arguments).To(MatchJSON(`{"runId":"cm_7"}`))
	})

	It("follows a waiting cell with wait until it ends, then answers its result as the final text (Settle)", func() {
		s := start(provider.Settle())
		waiting := protocol.ChatMessage{Role: "tool", ToolCallID: "call_1", Content: protocol.TextContent(`{"status":"waiting","runId":"cm_7"}`)}
		for i := 0; i < 2; i++ {
			m, err := ask(s, false, user("hi"), waiting)
			Expect(err).NotTo(HaveOccurred())
			Expect(m.ToolCalls).To(HaveLen(1), "a waiting result is followed by wait")
			Expect(m.ToolCalls[0].Function.Arguments).To(MatchJSON(`{"runId":"cm_7"}`))
		}
		done := protocol.ChatMessage{Role: "tool", ToolCallID: "call_3", Content: protocol.TextContent(`{"status":"completed","value":1}`)}
		m, err := ask(s, false, user("hi"), waiting, done)
		Expect(err).NotTo(HaveOccurred())
		Expect(m.ToolCalls).To(BeEmpty(), "a completed result ends the turn")
		Expect(m.Text()).To(Equal(`{"status":"completed","value":1}`))
		Expect(s.Remaining()).To(Equal(0), "the step is used up once the cell ended")
	})

	It("reads a waiting result that came wrapped as untrusted content (a network-marked cell, protocol.md §4.3)", func() {
		s := start(provider.WaitLast(), provider.Settle())
		wrapped := protocol.WrapUntrusted(`{"status":"waiting","runId":"cm_9","networkContent":true}`, protocol.UntrustedSourceAPI, "0123456789abcdef")
		tool := protocol.ChatMessage{Role: "tool", ToolCallID: "call_1", Content: protocol.TextContent(wrapped)}
		for _, step := range []string{"WaitLast", "Settle"} {
			m, err := ask(s, false, user("hi"), tool)
			Expect(err).NotTo(HaveOccurred(), "%s: a wrapped waiting result", step)
			Expect(m.ToolCalls).To(HaveLen(1), "%s: the wrapped waiting result is followed by wait", step)
			Expect(m.ToolCalls[0].Function.Arguments).To(MatchJSON(`{"runId":"cm_9"}`), "%s: the runId inside the wrapper", step)
		}
	})

	It("answers an error, and records it, when the script has no step left or a step fails", func() {
		s := start(provider.WaitLast())
		_, err := ask(s, false, user("no tool result"))
		Expect(err).To(MatchError(ContainSubstring("the last tool result has no runId")))
		_, err = ask(s, false, user("again"))
		Expect(err).To(MatchError(ContainSubstring("no step left")))
		Expect(s.Requests()).To(HaveLen(2))
		Expect(s.Requests()[1].Error).To(ContainSubstring("no step left"))
	})

	It("refuses malformed and oversized bodies with a clear error", func() {
		s := start(provider.Final("x"))
		resp, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(`{"messages":`))
		Expect(err).NotTo(HaveOccurred())
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest), "body %s", b)
		Expect(string(b)).To(ContainSubstring("not a chat completion request"))
		big := `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("a", provider.MaxBody) + `"}]}`
		resp, err = http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(big))
		Expect(err).NotTo(HaveOccurred())
		b, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusRequestEntityTooLarge), "body %.200s", b)
		Expect(s.Requests()).To(BeEmpty(), "refused requests use no script step")
		Expect(s.Remaining()).To(Equal(1))
	})

	It("keeps at most MaxRecorded requests and MaxRecordedBytes of their bodies, refusing the rest with 429", func() {
		again := func(provider.Request) (provider.Reply, error) { return provider.Reply{Text: "x", Again: true}, nil }
		s := start(again)
		pad := strings.Repeat("a", provider.MaxBody-1024)
		n := 0
		for ; n <= provider.MaxRecordedBytes/len(pad); n++ {
			_, err := ask(s, false, user(pad))
			if err != nil {
				Expect(err).To(MatchError(ContainSubstring("refused")), "a request past the byte bound")
				break
			}
		}
		Expect(n).To(Equal(provider.MaxRecordedBytes/provider.MaxBody), "requests of just under MaxBody kept before the byte bound")
		s = start(again)
		for i := range provider.MaxRecorded {
			_, err := ask(s, false, user("hi"))
			Expect(err).NotTo(HaveOccurred(), "request %d is within the bound", i+1)
		}
		_, err := ask(s, false, user("one more"))
		Expect(err).To(MatchError(ContainSubstring("refused")), "the request past MaxRecorded")
		Expect(s.Requests()).To(HaveLen(provider.MaxRecorded))
		Expect(s.Summary()).To(ContainSubstring("1 more requests refused"))
	})

	It("lists its model and saves the requests as JSON", func() {
		s := start(provider.Final("x"))
		resp, err := http.Get(s.URL + "/models")
		Expect(err).NotTo(HaveOccurred())
		var models struct {
			Data []struct{ ID string } `json:"data"`
		}
		Expect(json.NewDecoder(resp.Body).Decode(&models)).To(Succeed())
		resp.Body.Close()
		Expect(models.Data).To(HaveLen(1))
		Expect(models.Data[0].ID).To(Equal(provider.Model))
		_, err = ask(s, false, user("hi"))
		Expect(err).NotTo(HaveOccurred())
		p, err := s.Save(GinkgoT().TempDir(), provider.FileName(1, "CM-E2E-01 a/b"))
		Expect(err).NotTo(HaveOccurred())
		Expect(filepath.Base(p)).To(Equal("0001-CM-E2E-01_a_b.json"), "the file is named after the provider's index and the spec, made file-safe")
		b, err := os.ReadFile(p)
		Expect(err).NotTo(HaveOccurred())
		var saved []provider.Request
		Expect(json.Unmarshal(b, &saved)).To(Succeed())
		Expect(saved).To(HaveLen(1))
		Expect(cmp.Diff(s.Requests()[0].ToolNames(), saved[0].ToolNames())).To(BeEmpty())
	})

	It("names saved requests NNNN-<spec>.json: specs that share a long prefix and one spec's providers never collide", func() {
		long := strings.Repeat("x", 200)
		names := []string{
			provider.FileName(1, long+" first"),
			provider.FileName(2, long+" second"),
			provider.FileName(3, "CM-E2E-01 one spec"),
			provider.FileName(4, "CM-E2E-01 one spec"),
			provider.FileName(5, "CM-E2E-02 ünïcode / and: quotes\""),
		}
		Expect(names).To(Equal([]string{
			"0001-" + strings.Repeat("x", 120) + ".json",
			"0002-" + strings.Repeat("x", 120) + ".json",
			"0003-CM-E2E-01_one_spec.json",
			"0004-CM-E2E-01_one_spec.json",
			"0005-CM-E2E-02___n__code___and__quotes_.json",
		}), "every name is the index, a dash and the file-safe spec cut at 120 bytes")
		seen := map[string]bool{}
		for _, n := range names {
			Expect(seen).NotTo(HaveKey(n), "two providers share the file name %q", n)
			seen[n] = true
			Expect(len(n)).To(BeNumerically("<=", 255), "a file name must fit every file system: %q", n)
		}
		Expect(provider.FileName(12345, "s")).To(Equal("12345-s.json"), "an index beyond four digits is kept whole")
	})
})
