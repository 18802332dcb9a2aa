// Package hostile is a driver-protocol target whose every string is hostile
// to the harness's console and reports: the hostile strings of the
// reliability pass of 2026-12-01 (issue 28 N5–N8, shared/reviews/
// 2026-12-01-reliability.md "Hostile strings into the harness"). It judges
// nothing of a runtime: it exists so that a test (and anyone, with
// --target fake:hostile) can see that no report format and no console line
// carries a raw escape, invalid UTF-8, a forged verdict line or an
// unbounded string, whatever a target sends.
//
// It imports nothing of the project, so a test binary can serve it on its
// own stdin/stdout (an exec: target) as well as in process.
package hostile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// The hostile strings (each one of the pass's kinds).
const (
	// HTML closes a <script> and opens one, an <img onerror>, markup and
	// entities.
	HTML = `</script><script>alert("xss")</script><img src=x onerror=alert(1)><b>bold</b>&amp;&lt;`
	// ANSI is a clear screen, a colour, a window title (OSC 0), a clipboard
	// write (OSC 52), a hyperlink (OSC 8), BEL, CR, BS, a right-to-left
	// override (U+202E) and a pop (U+202C), an isolate (U+2066..U+2069)
	// and a line separator (U+2028).
	ANSI = "\x1b[2J\x1b[H\x1b[31;1mRED\x1b[0m\x1b]0;pwned-title\x07\x1b]52;c;cHduZWQ=\x07\x1b]8;;http://127.0.0.1/x\x1b\\link\x1b]8;;\x1b\\\r\x08\x08\u202eevil\u202c\u2066iso\u2069\u2028"
	// Forge is newlines and a fake verdict: a report that keeps it on
	// lines of its own prints a success above the real verdict (N7).
	Forge = "\n\nOverall: **success**\n\ncodemode-conformance: overall success (exit 0)\n"
	// BadUTF8 is invalid UTF-8, a CESU-8 surrogate among it; it reaches
	// the wire raw (JSON cannot carry it escaped).
	BadUTF8 = "\xff\xfe\xc3\x28\xed\xa0\x80"
	// BigBytes is the length of a big string (mode big); in initialize,
	// whose one line must stay under 16 MiB, each string has BigInitBytes.
	BigBytes     = 10 << 20
	BigInitBytes = 4 << 20
)

// Mode is one kind of hostile string; a target combines several.
type Mode string

// The modes. Big, BadFeature and NotDrivable change the answers' size or
// shape; the others each add their string to every hostile string.
const (
	ModeHTML    Mode = "html"
	ModeANSI    Mode = "ansi"
	ModeForge   Mode = "forge"
	ModeBadUTF8 Mode = "badutf8"
	// ModeBig adds BigBytes of "B" to every string (BigInitBytes in
	// initialize).
	ModeBig Mode = "big"
	// ModeBadFeature declares a hostile feature name in initialize: a
	// target error (protocol.md §9), so the suite fails before its first
	// spec and the error quotes the name.
	ModeBadFeature Mode = "badfeature"
)

// Modes is a set of modes.
type Modes map[Mode]bool

// ParseModes reads a comma-separated list of modes ("html,ansi"). An unknown
// mode is an error naming it.
func ParseModes(s string) (Modes, error) {
	m := Modes{}
	for _, x := range strings.Split(s, ",") {
		switch Mode(x) {
		case ModeHTML, ModeANSI, ModeForge, ModeBadUTF8, ModeBig, ModeBadFeature:
			m[Mode(x)] = true
		default:
			return nil, fmt.Errorf("hostile: unknown mode %q (html, ansi, forge, badutf8, big, badfeature)", x)
		}
	}
	return m, nil
}

// Every is every mode that keeps the target's answers small: the strings of
// fake:hostile.
var Every = Modes{ModeHTML: true, ModeANSI: true, ModeForge: true, ModeBadUTF8: true}

// badMarker stands for BadUTF8 until an answer is encoded: encoding/json
// would replace the invalid bytes.
const badMarker = "@@BAD@@"

// String is the hostile string tagged tag ("[name]…"): the tag, then the
// string of each mode of m. With ModeBadUTF8 it ends in a marker that Serve
// replaces with BadUTF8 on the wire.
func (m Modes) String(tag string) string {
	s := "[" + tag + "]"
	if m[ModeHTML] {
		s += HTML
	}
	if m[ModeANSI] {
		s += ANSI
	}
	if m[ModeForge] {
		s += Forge
	}
	if m[ModeBig] {
		n := BigBytes
		if tag == "name" || tag == "version" || tag == "notDrivable-reason" {
			n = BigInitBytes
		}
		s += strings.Repeat("B", n)
	}
	if m[ModeBadUTF8] {
		s += badMarker
	}
	return s
}

// Serve answers the driver protocol (spec/protocol.md) on r/w until r ends,
// ctx is done or shutdown: initialize with a hostile implementation name
// and version, a notDrivable requirement (CM-EXEC-02) with a hostile reason
// (and with ModeBadFeature a hostile feature name); run.prepare active with
// a hostile exec description; every tool.exec and tool.wait a failed result
// with a hostile error (every third a completed one with a hostile value and
// output); run.end, run.abort and shutdown true; runtime.stats zeros;
// anything else -32601 with a hostile message. It never calls tool.invoke.
// The error is r's or w's, nil at the end of r or after shutdown.
func Serve(ctx context.Context, r io.Reader, w io.Writer, m Modes) error {
	out := bufio.NewWriter(w)
	emit := func(id json.RawMessage, result, rpcErr any) error {
		msg := map[string]any{"jsonrpc": "2.0", "id": id}
		if rpcErr != nil {
			msg["error"] = rpcErr
		} else {
			msg["result"] = result
		}
		b, err := json.Marshal(msg)
		if err != nil {
			return err
		}
		b = bytes.ReplaceAll(b, []byte(badMarker), []byte(BadUTF8))
		if _, err := out.Write(append(b, '\n')); err != nil {
			return err
		}
		return out.Flush()
	}
	in := bufio.NewReaderSize(r, 1<<20)
	execs := 0
	for ctx.Err() == nil {
		line, err := in.ReadBytes('\n')
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Run string `json:"run"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &req) != nil || req.Method == "" || len(req.ID) == 0 {
			continue // a notification or a response: nothing to answer
		}
		var result, rpcErr any
		switch req.Method {
		case "initialize":
			features := []string{"core"}
			if m[ModeBadFeature] {
				features = append(features, m.String("feature"))
			}
			result = map[string]any{"protocolVersion": "1",
				"implementation": map[string]string{"name": m.String("name"), "version": m.String("version")},
				"features":       features,
				"notDrivable":    []map[string]string{{"requirement": "CM-EXEC-02", "reason": m.String("notDrivable-reason")}}}
		case "run.prepare":
			result = map[string]any{"run": req.Params.Run, "codeModeActive": true, "tools": []map[string]any{
				{"name": "exec", "description": m.String("exec-desc"), "inputSchema": map[string]string{"type": "object"}},
				{"name": "wait", "description": "wait", "inputSchema": map[string]string{"type": "object"}}}}
		case "tool.exec", "tool.wait":
			execs++
			if execs%3 == 0 {
				result = map[string]any{"status": "completed", "value": m.String("value"), "output": []map[string]string{{"type": "text", "text": m.String("text")}}, "telemetry": map[string]any{}}
			} else {
				result = map[string]any{"status": "failed", "error": m.String("error"), "code": "internal_error", "telemetry": map[string]any{}}
			}
		case "run.end", "run.abort", "shutdown":
			result = true
		case "runtime.stats":
			result = map[string]int{"liveVMs": 0, "snapshots": 0, "snapshotBytes": 0, "suspendedRuns": 0}
		default:
			rpcErr = map[string]any{"code": -32601, "message": m.String("rpc-error-" + req.Method)}
		}
		if err := emit(req.ID, result, rpcErr); err != nil {
			return err
		}
		if req.Method == "shutdown" {
			return nil
		}
	}
	return ctx.Err()
}

// Target is a hostile target the CLI offers as fake:<Name>.
type Target struct {
	Name  string
	Help  string
	Modes Modes
}

// Targets are the hostile targets: every small hostile string at once, the
// 10 MB strings, and a hostile feature name that fails the suite before its
// first spec.
var Targets = []Target{
	{"hostile", "every string it sends is hostile (HTML, ANSI/OSC 52 escapes, BEL, bidi overrides, newline-forged verdict lines, invalid UTF-8); no report or console line may carry one raw", Every},
	{"hostile-big", "every string it sends is 10 MB (4 MB in initialize); every report cuts each at one bound", Modes{ModeBig: true}},
	{"hostile-badfeature", "declares a feature whose name carries escapes and a forged verdict: a target error before the first spec, quoted escaped", Modes{ModeANSI: true, ModeForge: true, ModeBadFeature: true}},
}
