package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	fakemcp "github.com/codemode-conformance/codemode/fakes/mcp"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// connect opens an SDK client session over the given transport and closes it
// when the spec ends.
func connect(t sdk.Transport) *sdk.ClientSession {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "fake-mcp-test", Version: "0"}, nil)
	cs, err := c.Connect(ctx, t, nil)
	Expect(err).NotTo(HaveOccurred(), "connecting an MCP client")
	DeferCleanup(cs.Close)
	return cs
}

// inMemory connects a client to a fresh fake server of kind in process.
func inMemory(kind fakemcp.Kind) (*fakemcp.Server, *sdk.ClientSession) {
	GinkgoHelper()
	s, err := fakemcp.NewServer(kind)
	Expect(err).NotTo(HaveOccurred(), "building the %s server", kind)
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.SDK.Connect(context.Background(), st, nil)
	Expect(err).NotTo(HaveOccurred(), "connecting the server side")
	DeferCleanup(ss.Close)
	return s, connect(ct)
}

func call(cs *sdk.ClientSession, name string, args any) (map[string]any, error) {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(r)
	Expect(err).NotTo(HaveOccurred(), "marshalling the result of %s", name)
	var m map[string]any
	Expect(json.Unmarshal(b, &m)).To(Succeed())
	return m, nil
}

func toolNames(cs *sdk.ClientSession) []string {
	GinkgoHelper()
	r, err := cs.ListTools(context.Background(), nil)
	Expect(err).NotTo(HaveOccurred(), "listing tools")
	var names []string
	for _, t := range r.Tools {
		names = append(names, t.Name)
	}
	return names
}

var _ = Describe("the docs server", func() {
	It("lists its tools with the exact schemas, including enums, defaults and nested objects", func() {
		_, cs := inMemory(fakemcp.KindDocs)
		r, err := cs.ListTools(context.Background(), nil)
		Expect(err).NotTo(HaveOccurred(), "listing tools")
		byName := map[string]*sdk.Tool{}
		for _, t := range r.Tools {
			byName[t.Name] = t
		}
		Expect(byName).To(HaveKey(fakemcp.ToolSearchDocs), "search_docs is listed")
		got, _ := json.Marshal(byName[fakemcp.ToolSearchDocs].InputSchema)
		var schema struct {
			Properties map[string]struct {
				Enum     []string `json:"enum"`
				Default  any      `json:"default"`
				Required []string `json:"required"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		Expect(json.Unmarshal(got, &schema)).To(Succeed())
		Expect(schema.Required).To(Equal([]string{"query"}), "schema %s", got)
		Expect(schema.Properties["format"].Enum).To(Equal([]string{"markdown", "text"}), "schema %s", got)
		Expect(schema.Properties["limit"].Default).To(BeEquivalentTo(10), "schema %s", got)
		Expect(schema.Properties["filter"].Required).To(Equal([]string{"tag"}), "schema %s", got)
	})

	It("applies defaults, reports isError, fails explode with a JSON-RPC error and returns structuredContent with _meta", func() {
		s, cs := inMemory(fakemcp.KindDocs)
		r, err := call(cs, fakemcp.ToolSearchDocs, map[string]any{"query": "q"})
		Expect(err).NotTo(HaveOccurred(), "search_docs")
		Expect(r["structuredContent"]).To(Equal(map[string]any{"query": "q", "format": "markdown", "limit": 10.0}), "defaults applied")

		r, err = call(cs, fakemcp.ToolReportFailure, map[string]any{})
		Expect(err).NotTo(HaveOccurred(), "report_failure is a result, not an error")
		Expect(r["isError"]).To(BeTrue(), "report_failure result %v", r)
		Expect(r["content"]).To(Equal([]any{map[string]any{"type": "text", "text": fakemcp.ReportFailureText}}))

		_, err = call(cs, fakemcp.ToolExplode, map[string]any{})
		Expect(err).To(MatchError(ContainSubstring(fakemcp.ExplodeMessage)), "explode fails the call")

		r, err = call(cs, fakemcp.ToolStructured, map[string]any{})
		Expect(err).NotTo(HaveOccurred(), "structured")
		Expect(r["structuredContent"]).To(Equal(fakemcp.StructuredResult), "structuredContent")
		Expect(r["_meta"]).To(HaveKeyWithValue("fake/trace", "trace-1"), "the extra result key")

		r, err = call(cs, fakemcp.ToolServerStats, map[string]any{})
		Expect(err).NotTo(HaveOccurred(), "server_stats")
		Expect(r["structuredContent"]).To(HaveKeyWithValue("calls", 4.0), "four calls before server_stats: %v", r)
		Expect(s.Calls()).To(BeEquivalentTo(5), "the server counts every call")
	})

	It("serves its resource and its prompt", func() {
		_, cs := inMemory(fakemcp.KindDocs)
		rr, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: fakemcp.ResourceMemo})
		Expect(err).NotTo(HaveOccurred(), "reading %s", fakemcp.ResourceMemo)
		Expect(rr.Contents).To(HaveLen(1))
		Expect(rr.Contents[0].Text).To(Equal(fakemcp.ResourceMemoText))
		pr, err := cs.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: fakemcp.PromptBrief, Arguments: map[string]string{"topic": "release"}})
		Expect(err).NotTo(HaveOccurred(), "getting the brief prompt")
		Expect(pr.Messages).To(HaveLen(1))
		Expect(pr.Messages[0].Content).To(Equal(&sdk.TextContent{Text: fakemcp.BriefText("release")}))
	})

	It("ends a slow call early when the client cancels it", func() {
		_, cs := inMemory(fakemcp.KindDocs)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: fakemcp.ToolSlow, Arguments: map[string]any{"ms": 10000}})
		Expect(err).To(HaveOccurred(), "a cancelled slow call fails")
		Expect(time.Since(start)).To(BeNumerically("<", 5*time.Second), "the call did not wait out its 10 s")
	})
})

var _ = Describe("the hostile server", func() {
	It("lists every unsafe name unchanged and answers each", func() {
		_, cs := inMemory(fakemcp.KindHostile)
		Expect(cmp.Diff(fakemcp.HostileTools, toolNames(cs), cmp.Transformer("sort", func(in []string) map[string]bool {
			m := map[string]bool{}
			for _, s := range in {
				m[s] = true
			}
			return m
		}))).To(BeEmpty(), "the hostile tool names")
		for _, name := range fakemcp.HostileTools {
			r, err := call(cs, name, map[string]any{"city": "Oslo"})
			Expect(err).NotTo(HaveOccurred(), "calling %q", name)
			Expect(r["structuredContent"]).To(Equal(map[string]any{"tool": name, "input": map[string]any{"city": "Oslo"}}), "result of %q", name)
		}
	})

	It("rejects an unknown kind", func() {
		_, err := fakemcp.NewServer("nope")
		Expect(err).To(MatchError(fakemcp.ErrUnknownKind), "an unknown kind")
	})
})

var _ = Describe("the transports", func() {
	It("serves streamable HTTP on 127.0.0.1", func() {
		h, err := fakemcp.StartHTTP(fakemcp.KindDocs, "")
		Expect(err).NotTo(HaveOccurred(), "starting the HTTP server")
		DeferCleanup(h.Close)
		Expect(h.URL).To(HavePrefix("http://127.0.0.1:"), "a loopback URL")
		Expect(h.Launch("docs")).To(Equal(protocol.MCPServer{Name: "docs", Transport: "http", URL: h.URL}))
		cs := connect(&sdk.StreamableClientTransport{Endpoint: h.URL, DisableStandaloneSSE: true})
		r, err := call(cs, fakemcp.ToolEcho, map[string]any{"a": 1})
		Expect(err).NotTo(HaveOccurred(), "echo over HTTP")
		Expect(r["structuredContent"]).To(Equal(map[string]any{"a": 1.0}))
		Expect(h.Calls()).To(BeEquivalentTo(1), "the in-process server saw the call")
	})

	It("serves stdio from a re-executed binary and exits when the client closes stdin", func() {
		l, err := fakemcp.StdioLaunch("docs", fakemcp.KindDocs)
		Expect(err).NotTo(HaveOccurred(), "the stdio launch")
		pidFile := filepath.Join(GinkgoT().TempDir(), "pid")
		cmd := exec.Command(l.Command, l.Args...)
		cmd.Env = append(os.Environ(), fakemcp.EnvStdio+"="+l.Env[fakemcp.EnvStdio], fakemcp.EnvPIDFile+"="+pidFile)
		cs := connect(&sdk.CommandTransport{Command: cmd})
		r, err := call(cs, fakemcp.ToolServerStats, map[string]any{})
		Expect(err).NotTo(HaveOccurred(), "server_stats over stdio")
		pid, err := os.ReadFile(pidFile)
		Expect(err).NotTo(HaveOccurred(), "the server wrote its pid file")
		Expect(r["structuredContent"]).To(HaveKeyWithValue("pid", BeEquivalentTo(mustAtoi(string(pid)))), "the child reports its own pid")
		Expect(cs.Close()).To(Succeed(), "closing the session")
		Eventually(func() error { return syscall.Kill(mustAtoi(string(pid)), 0) }).Should(HaveOccurred(), "the server process is gone after the client closed")
	})
})

func mustAtoi(s string) int {
	GinkgoHelper()
	n, err := strconv.Atoi(s)
	Expect(err).NotTo(HaveOccurred(), "pid %q", s)
	return n
}
