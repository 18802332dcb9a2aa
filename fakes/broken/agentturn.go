package broken

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Broken agent turns (feature agent-turn, protocol.md §3 "agent.turn"):
// what a real agent loop gets wrong around the provider payload and the
// transcript.
func init() {
	Variants = append(Variants,
		Variant{Name: "catalog-in-provider-payload", Breaks: "CM-E2E-02",
			Defect: "with code mode enabled, a stage after activation adds the run's catalog tools to the provider payload beside exec and wait",
			Serve:  payloadTools(leakCatalog)},
		Variant{Name: "no-final-tool-check", Breaks: "CM-ACT-09",
			Defect: "the provider payload is not checked after activation: a tool a later stage adds is sent",
			Serve:  payloadTools(skipFinalCheck)},
		Variant{Name: "agent-code-mode-ignored", Breaks: "CM-CFG-10",
			Defect: "the agent's own tools.codeMode is ignored: only the runtime's value counts",
			Serve:  rewriting(func(p map[string]any) { delete(p, "agentCodeMode") })},
		Variant{Name: "replay-drops-call-ids", Breaks: "CM-E2E-09",
			Defect: "a replayed transcript loses its tool-call ids (tool_calls[].id and tool_call_id)",
			Serve: proxied(func(msg map[string]any) (bool, bool) {
				if msg["method"] != protocol.MethodAgentTurn {
					return false, false
				}
				p, _ := msg["params"].(map[string]any)
				hist, _ := p["history"].([]any)
				for _, x := range hist {
					m, _ := x.(map[string]any)
					if m == nil {
						continue
					}
					delete(m, "tool_call_id")
					calls, _ := m["tool_calls"].([]any)
					for _, c := range calls {
						if c, ok := c.(map[string]any); ok {
							delete(c, "id")
						}
					}
				}
				return len(hist) > 0, false
			})},
		Variant{Name: "turn-unwraps-network", Breaks: "CM-NEST-20", Spec: "in an agent turn", Profile: "v2",
			Defect: "agent.turn drops the untrusted-content wrapper (Source API) from the result of a cell that called a network-controlled tool: the model provider gets the result text bare, nothing marks it as external content",
			Serve:  viaProviderProxy("v2", nil, unwrapCellResults)},
	)
}

// unwrapCellResults puts, in place of each tool message that is one
// untrusted-content wrapper with Source API (a network-marked exec/wait
// result, protocol.md §4.3), the text inside it.
func unwrapCellResults(_ string, req map[string]json.RawMessage) {
	var msgs []map[string]any
	if json.Unmarshal(req["messages"], &msgs) != nil {
		return
	}
	for _, m := range msgs {
		text, _ := m["content"].(string)
		if u, ok := protocol.FindUntrusted(text); ok && m["role"] == "tool" && u.Source == protocol.UntrustedSourceAPI {
			m["content"] = u.Content
		}
	}
	req["messages"], _ = json.Marshal(msgs)
}

type payloadDefect int

const (
	leakCatalog    payloadDefect = iota // add the run's declared tools
	skipFinalCheck                      // send faults.addProviderTool instead of failing
)

// payloadTools serves the reference with every agent.turn routed through
// a provider proxy that adds tools to each request body after the
// reference built it (and ran its final check): the run's declared tools
// (leakCatalog), or the tool the harness asked to add through
// faults.addProviderTool, whose fault is taken away from the reference
// (skipFinalCheck).
func payloadTools(d payloadDefect) serveFunc {
	var mu sync.Mutex
	extra := map[string][]protocol.ChatTool{}
	set := func(run string, tools []protocol.ChatTool) {
		mu.Lock()
		extra[run] = tools
		mu.Unlock()
	}
	return viaProviderProxy("", func(msg map[string]any) bool {
		p, _ := msg["params"].(map[string]any)
		run, _ := p["run"].(string)
		switch msg["method"] {
		case protocol.MethodRunPrepare:
			if d == leakCatalog {
				var tools []protocol.ChatTool
				forEachTool(p, func(t map[string]any) {
					name, _ := t["name"].(string)
					desc, _ := t["description"].(string)
					params, _ := json.Marshal(t["parameters"])
					tools = append(tools, protocol.ChatTool{Type: "function", Function: protocol.ChatFunction{Name: name, Description: desc, Parameters: params}})
				})
				set(run, tools)
			}
		case protocol.MethodAgentTurn:
			if d == skipFinalCheck {
				f, _ := p["faults"].(map[string]any)
				name, _ := f["addProviderTool"].(string)
				delete(p, "faults")
				var tools []protocol.ChatTool
				if name != "" {
					tools = []protocol.ChatTool{{Type: "function", Function: protocol.ChatFunction{Name: name, Parameters: json.RawMessage(`{"type":"object"}`)}}}
				}
				set(run, tools)
				return true
			}
		}
		return false
	}, func(run string, req map[string]json.RawMessage) {
		var tools []protocol.ChatTool
		_ = json.Unmarshal(req["tools"], &tools)
		have := map[string]bool{}
		for _, t := range tools {
			have[t.Function.Name] = true
		}
		mu.Lock()
		for _, t := range extra[run] {
			if !have[t.Function.Name] {
				tools = append(tools, t)
			}
		}
		mu.Unlock()
		if len(tools) > 0 {
			req["tools"], _ = json.Marshal(tools)
		}
	})
}

// viaProviderProxy serves the reference under profile ("" for the
// default) with the provider of every agent.turn routed through a proxy
// that hands each request body the reference built to edit, with the
// turn's run, before it forwards it. inspect sees each harness message
// first and says whether it edited it.
func viaProviderProxy(profile string, inspect func(msg map[string]any) bool, edit func(run string, req map[string]json.RawMessage)) serveFunc {
	return func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: providerProxy(edit)}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		base := "http://" + ln.Addr().String()
		innerR, toInner := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- server.Serve(ctx, innerR, w, server.Options{Engine: eng, Runtime: codemode.Options{Profile: profile}})
		}()
		pump(r, toInner, func(msg map[string]any) (bool, verdict) {
			edited := inspect != nil && inspect(msg)
			p, _ := msg["params"].(map[string]any)
			if msg["method"] != protocol.MethodAgentTurn || p == nil {
				return edited, forward
			}
			run, _ := p["run"].(string)
			prov, _ := p["provider"].(map[string]any)
			orig, _ := prov["baseUrl"].(string)
			if prov == nil || orig == "" {
				return edited, forward
			}
			prov["baseUrl"] = base + "/" + base64.RawURLEncoding.EncodeToString([]byte(orig)) + "/" + url.PathEscape(run)
			return true, forward
		})
		toInner.Close()
		return <-done
	}
}

// providerProxy forwards /<base64 provider URL>/<run>/chat/completions to
// the provider with the body edited by edit(run, body).
type providerProxy func(run string, req map[string]json.RawMessage)

func (edit providerProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 3)
	if len(parts) != 3 {
		http.Error(w, "provider proxy: bad path", http.StatusNotFound)
		return
	}
	orig, err := base64.RawURLEncoding.DecodeString(parts[0])
	run, err2 := url.PathUnescape(parts[1])
	if err != nil || err2 != nil {
		http.Error(w, "provider proxy: bad path", http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req map[string]json.RawMessage
	if json.Unmarshal(body, &req) == nil {
		edit(run, req)
		body, _ = json.Marshal(req)
	}
	out, err := http.NewRequestWithContext(r.Context(), http.MethodPost, string(orig)+"/"+parts[2], bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}
