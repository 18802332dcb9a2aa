// Package v2surface is a test instrument of the guest dialect: the v2
// reference served as a target that does not declare tools-api and whose
// cells cannot see 000's tools and ALL_TOOLS (v2 allows leaving them out:
// spec/requirements.yaml profiles, OpenClaw 2026.9.6 has none), and,
// optionally, not 001's catalog either. Specs whose subject is not the guest
// API must then be judged on the catalog handles, or be blocked by CM-TS-06
// when those are missing too, never failed (outside verdict audit F1b).
package v2surface

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/server"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/targets/builtin"
)

// Serve serves the v2 reference without tools-api: initialize leaves the
// feature out, and every exec cell starts by shadowing tools and ALL_TOOLS
// (and catalog, with hideCatalog) with undefined constants, and globalThis
// with a stand-in that has none of them, so the cell's code finds none of
// them. That holds for the cells of an agent.turn too:
// its model provider is reached through a proxy that puts the same line
// before the code of every exec the provider's answer calls.
func Serve(hideCatalog bool) func(ctx context.Context, r io.Reader, w io.WriteCloser) error {
	names := `k === "tools" || k === "ALL_TOOLS"`
	hide := "const tools = undefined, ALL_TOOLS = undefined; "
	if hideCatalog {
		names += ` || k === "catalog"`
		hide = "const tools = undefined, ALL_TOOLS = undefined, catalog = undefined; "
	}
	// globalThis too: code that reads the global object (the realm probe's
	// G.tools, CM-SEC-02) must not find them there either. The global
	// itself cannot be proxied (its tools is non-configurable, a get trap
	// must return its value), so the stand-in reads and writes the global's
	// other properties through an empty target.
	hide += `const globalThis = (() => { const g = Function("return this")(); return new Proxy(Object.create(null), ` +
		`{get: (_, k) => (` + names + ` ? undefined : Reflect.get(g, k)), has: (_, k) => !(` + names + `) && Reflect.has(g, k), ` +
		`set: (_, k, v) => Reflect.set(g, k, v), deleteProperty: (_, k) => Reflect.deleteProperty(g, k)}); })(); `
	return func(ctx context.Context, r io.Reader, w io.WriteCloser) error {
		eng, err := builtin.SharedEngine()
		if err != nil {
			return err
		}
		px, err := newProxy(hide)
		if err != nil {
			return err
		}
		defer px.Close()
		innerR, toInner := io.Pipe()
		fromInner, innerW := io.Pipe()
		var mu sync.Mutex
		go func() {
			each(fromInner, func(b []byte) {
				mu.Lock()
				defer mu.Unlock()
				_, _ = w.Write(append(withoutToolsAPI(b), '\n'))
			})
			w.Close()
		}()
		go func() {
			each(r, func(b []byte) { _, _ = toInner.Write(append(px.turn(hidden(b, hide)), '\n')) })
			toInner.Close()
		}()
		return server.Serve(ctx, innerR, innerW, server.Options{Engine: eng, Runtime: codemode.Options{Profile: "v2"}})
	}
}

func each(src io.Reader, f func([]byte)) {
	sc := bufio.NewScanner(src)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		f(append([]byte(nil), sc.Bytes()...))
	}
}

// hidden is a harness line with hide put before an exec's code.
func hidden(b []byte, hide string) []byte {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || m["method"] != protocol.MethodToolExec {
		return b
	}
	p, _ := m["params"].(map[string]any)
	in, _ := p["input"].(map[string]any)
	code, ok := in["code"].(string)
	if !ok {
		return b
	}
	in["code"] = hide + code
	out, _ := json.Marshal(m)
	return out
}

// withoutToolsAPI is a target line with tools-api left out of an
// initialize result's features.
func withoutToolsAPI(b []byte) []byte {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return b
	}
	res, _ := m["result"].(map[string]any)
	feats, ok := res["features"].([]any)
	if _, isInit := res["protocolVersion"]; !isInit || !ok {
		return b
	}
	kept := []any{}
	for _, f := range feats {
		if f != "tools-api" {
			kept = append(kept, f)
		}
	}
	res["features"] = kept
	out, _ := json.Marshal(m)
	return out
}

// proxy stands between an agent.turn's target and its model provider: it
// forwards each request to the provider the turn named and puts hide before
// the code of every exec call in a (non-streamed) answer.
type proxy struct {
	hide string
	srv  *http.Server
	base string
	mu   sync.Mutex
	to   []string // the providers' base URLs, by the index in the proxy's path
}

func newProxy(hide string) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &proxy{hide: hide, base: "http://" + ln.Addr().String()}
	p.srv = &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

func (p *proxy) Close() { _ = p.srv.Close() }

// turn is a harness line with an agent.turn's provider.baseUrl pointed at
// the proxy.
func (p *proxy) turn(b []byte) []byte {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || m["method"] != protocol.MethodAgentTurn {
		return b
	}
	params, _ := m["params"].(map[string]any)
	prov, _ := params["provider"].(map[string]any)
	u, ok := prov["baseUrl"].(string)
	if !ok {
		return b
	}
	p.mu.Lock()
	p.to = append(p.to, u)
	prov["baseUrl"] = fmt.Sprintf("%s/%d", p.base, len(p.to)-1)
	p.mu.Unlock()
	out, _ := json.Marshal(m)
	return out
}

func (p *proxy) serve(w http.ResponseWriter, req *http.Request) {
	rest := strings.TrimPrefix(req.URL.Path, "/")
	i, path, _ := strings.Cut(rest, "/")
	n, err := strconv.Atoi(i)
	p.mu.Lock()
	ok := err == nil && n >= 0 && n < len(p.to)
	var to string
	if ok {
		to = p.to[n]
	}
	p.mu.Unlock()
	if !ok {
		http.NotFound(w, req)
		return
	}
	body, _ := io.ReadAll(req.Body)
	out, err := http.NewRequestWithContext(req.Context(), req.Method, strings.TrimRight(to, "/")+"/"+path, bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = req.Header.Clone()
	resp, err := http.DefaultClient.Do(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	ans, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode == http.StatusOK && strings.HasPrefix(ct, "application/json") {
		ans = p.hiddenAnswer(ans)
	} else if resp.StatusCode == http.StatusOK && strings.HasPrefix(ct, "text/event-stream") {
		ans = p.hiddenStream(ans)
	}
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(ans)
}

// hiddenAnswer is a chat.completion with hide put before the code of each
// exec tool call.
func (p *proxy) hiddenAnswer(b []byte) []byte {
	var c map[string]any
	if json.Unmarshal(b, &c) != nil {
		return b
	}
	choices, _ := c["choices"].([]any)
	for _, ch := range choices {
		msg, _ := ch.(map[string]any)["message"].(map[string]any)
		calls, _ := msg["tool_calls"].([]any)
		for _, tc := range calls {
			fn, _ := tc.(map[string]any)["function"].(map[string]any)
			args, _ := fn["arguments"].(string)
			if fn["name"] != "exec" {
				continue
			}
			fn["arguments"] = p.hiddenArgs(args)
		}
	}
	out, _ := json.Marshal(c)
	return out
}

// hiddenStream is a stream of chat.completion.chunk events with hide put
// before the code of each exec tool call whose arguments arrive whole in one
// chunk, as fakes/provider sends them.
func (p *proxy) hiddenStream(b []byte) []byte {
	names := map[float64]string{}
	lines := strings.Split(string(b), "\n")
	for i, line := range lines {
		data, ok := strings.CutPrefix(line, "data: ")
		var c map[string]any
		if !ok || json.Unmarshal([]byte(data), &c) != nil {
			continue
		}
		choices, _ := c["choices"].([]any)
		for _, ch := range choices {
			delta, _ := ch.(map[string]any)["delta"].(map[string]any)
			calls, _ := delta["tool_calls"].([]any)
			for _, tc := range calls {
				t, _ := tc.(map[string]any)
				idx, _ := t["index"].(float64)
				fn, _ := t["function"].(map[string]any)
				if n, _ := fn["name"].(string); n != "" {
					names[idx] = n
				}
				if args, _ := fn["arguments"].(string); args != "" && names[idx] == "exec" {
					fn["arguments"] = p.hiddenArgs(args)
				}
			}
		}
		out, _ := json.Marshal(c)
		lines[i] = "data: " + string(out)
	}
	return []byte(strings.Join(lines, "\n"))
}

// hiddenArgs is an exec call's arguments (JSON text) with hide put before
// its code.
func (p *proxy) hiddenArgs(args string) string {
	var in map[string]any
	if json.Unmarshal([]byte(args), &in) != nil {
		return args
	}
	code, ok := in["code"].(string)
	if !ok {
		return args
	}
	in["code"] = p.hide + code
	a, _ := json.Marshal(in)
	return string(a)
}
