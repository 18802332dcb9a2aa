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
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/server"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/targets/builtin"
)

// Serve serves the v2 reference without tools-api: initialize leaves the
// feature out, and every exec cell starts by shadowing tools and ALL_TOOLS
// (and catalog, with hideCatalog) with undefined constants, so the cell's
// code finds none of them.
func Serve(hideCatalog bool) func(ctx context.Context, r io.Reader, w io.WriteCloser) error {
	hide := "const tools = undefined, ALL_TOOLS = undefined; "
	if hideCatalog {
		hide = "const tools = undefined, ALL_TOOLS = undefined, catalog = undefined; "
	}
	return func(ctx context.Context, r io.Reader, w io.WriteCloser) error {
		eng, err := builtin.SharedEngine()
		if err != nil {
			return err
		}
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
			each(r, func(b []byte) { _, _ = toInner.Write(append(hidden(b, hide), '\n')) })
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
