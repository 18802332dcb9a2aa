package result

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestContentSize(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want int64
	}{
		{`"abc"`, 5},
		{`"\n\t\"\\"`, 6},
		{`"\u0001\u0001"`, 4},
		{`"é"`, 4},
		{`"\u00e9"`, 4},
		{`"\ud83d\ude00"`, 6},
		{`"😀"`, 6},
		{`"\ud83d"`, 5},             // U+FFFD: 3 bytes
		{`"\ud83d\u0041"`, 6},       // lone high surrogate, then A
		{`{"a":[1,true,null]}`, 19}, // no strings escaped: the byte count
		{`"<&>"`, 5},                // HTML escapes count as the characters
		{`"\u003c\u0026\u003e"`, 5},
	} {
		if got := ContentSize([]byte(c.raw)); got != c.want {
			t.Errorf("ContentSize(%s) = %d, want %d", c.raw, got, c.want)
		}
	}
}

func TestContentSizeMatchesDecodedBytes(t *testing.T) {
	// For well-formed text the content size of a JSON string is its decoded
	// UTF-8 length plus the two quotes, however it is escaped.
	for _, s := range []string{"", "plain", "é\u0001\n\"\\<>&", "😀x", "\u2028"} {
		raw, _ := json.Marshal(s)
		if got, want := ContentSize(raw), int64(len(s)+2); got != want {
			t.Errorf("ContentSize(%s) = %d, want %d", raw, got, want)
		}
	}
}

func TestWellFormed(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{`"ok"`, `"ok"`},
		{`"\ud83d"`, `"\ufffd"`},
		{`{"\udc00":"a\ud800b"}`, `{"\ufffd":"a\ufffdb"}`},
		{`"\ud83d\ude00"`, `"\ud83d\ude00"`},
		{`"\\ud83d"`, `"\\ud83d"`},         // an escaped backslash, not an escape
		{"\"\xed\xa0\xbd\"", "\"\uFFFD\""}, // CESU-8 surrogate bytes are not UTF-8
	} {
		got := WellFormed([]byte(c.raw))
		if !bytes.Equal(got, []byte(c.want)) {
			t.Errorf("WellFormed(%q) = %q, want %q", c.raw, got, c.want)
		}
		if n := LoneSurrogates(got); n != 0 {
			t.Errorf("WellFormed(%q) still has %d lone surrogates", c.raw, n)
		}
	}
	if n := LoneSurrogates([]byte(`["\ud83d","\udc00","\ud83d\ude00","\\ud800"]`)); n != 2 {
		t.Errorf("LoneSurrogates counts %d, want 2", n)
	}
}

func TestFirstLoneSurrogate(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want int
	}{
		{`{"v":"a\ud800b"}`, 7},     // a high surrogate alone
		{`{"v":"\uDC00"}`, 6},       // a low surrogate alone
		{`"\ud83d"`, 1},             // a high surrogate at the end
		{`"\ud83d\ud83d\ude00"`, 1}, // two high surrogates: the first is lone
		{`"\ud83d\ude00"`, -1},      // a pair
		{`"\ufffd"`, -1},            // U+FFFD escaped
		{`"\\ud800"`, -1},           // an escaped backslash before u
		{`{"a":"ok"}`, -1},          // plain text
		{`"ok \n\ud800 \udc00"`, 6}, // after another escape
	} {
		if got := FirstLoneSurrogate([]byte(c.raw)); got != c.want {
			t.Errorf("FirstLoneSurrogate(%s) = %d, want %d", c.raw, got, c.want)
		}
	}
}

// TestTruncatedWithin pins protocol.md §12.9's truncation under v2: bounded,
// completed or waiting, and marked by a "truncated": true member or a string
// naming the truncation (CM-LIM-03; audit 2026-12-02).
func TestTruncatedWithin(t *testing.T) {
	text := func(s string) Output { return TextOutput(s) }
	long := `"` + string(bytes.Repeat([]byte("x"), 200)) + `"`
	for _, c := range []struct {
		name string
		r    Result
		want bool
	}{
		{"auto-retain shape", Result{Status: StatusCompleted, Value: json.RawMessage(`{"truncated":true,"preview":"xx"}`)}, true},
		{"marker in a json item", Result{Status: StatusCompleted, Value: json.RawMessage(`"done"`), Output: []Output{JSONOutput(json.RawMessage(`{"truncated":true}`))}}, true},
		{"marker in a text item", Result{Status: StatusCompleted, Value: json.RawMessage(`"xxxx"`), Output: []Output{text("[value truncated to 65536 bytes]")}}, true},
		{"marker in the cut value", Result{Status: StatusCompleted, Value: json.RawMessage(`"xxxx… (Truncated)"`)}, true},
		{"001's word", Result{Status: StatusCompleted, Value: json.RawMessage(`"xxxx（已截断）"`)}, true},
		{"waiting, output cut", Result{Status: StatusWaiting, RunID: "r", Output: []Output{text("wwww [output truncated]")}}, true},
		{"unmarked", Result{Status: StatusCompleted, Value: json.RawMessage(`"xx"`)}, false},
		{"truncated: false", Result{Status: StatusCompleted, Value: json.RawMessage(`{"truncated":false}`)}, false},
		{"over the bound", Result{Status: StatusCompleted, Value: json.RawMessage(long), Output: []Output{text("truncated")}}, false},
		{"failed", Result{Status: StatusFailed, Code: CodeOutputLimitExceeded, Error: "output truncated"}, false},
	} {
		if got := TruncatedWithin(c.r, 100, nil); got != c.want {
			t.Errorf("%s: TruncatedWithin = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestTruncatedWithinGuestMarker pins that only a marker the target added
// counts, never the guest's own word or member, nor a negation, and that the
// kept content is a prefix of what the guest produced (audit
// 2026-12-02-stop34, CM-LIM-03 (b)).
func TestTruncatedWithinGuestMarker(t *testing.T) {
	xs := strings.Repeat("x", 1500)
	word := strings.Repeat("truncated ", 1000)
	str := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	textCell := &Produced{Output: []Output{TextOutput(strings.Repeat("x", 5000))}, Value: json.RawMessage(`1`)}
	for _, c := range []struct {
		name  string
		guest *Produced
		r     Result
		want  bool
	}{
		{"guest's word, cut silently", &Produced{Value: str(word)}, Result{Status: StatusCompleted, Value: str(word[:2000])}, false},
		{"guest's word, cut and marked", &Produced{Value: str(word)}, Result{Status: StatusCompleted, Value: str(word[:1990] + " [cut: truncated]")}, true},
		{"standing negated note", textCell, Result{Status: StatusCompleted, Value: json.RawMessage(`1`), Output: []Output{TextOutput(xs), TextOutput("(output not truncated)")}}, false},
		{"untruncated", textCell, Result{Status: StatusCompleted, Value: json.RawMessage(`1`), Output: []Output{TextOutput(xs + " (untruncated)")}}, false},
		{"text cut and marked", textCell, Result{Status: StatusCompleted, Value: json.RawMessage(`1`), Output: []Output{TextOutput(xs), TextOutput("[output truncated to 2048 bytes]")}}, true},
		{"guest's own member", &Produced{Value: json.RawMessage(`{"truncated":true,"data":"` + strings.Repeat("x", 5000) + `"}`)}, Result{Status: StatusCompleted, Value: json.RawMessage(`{"truncated":true,"data":"` + xs + `"}`)}, false},
		{"foreign content", textCell, Result{Status: StatusCompleted, Value: json.RawMessage(`2`), Output: []Output{TextOutput("[output truncated]")}}, false},
		{"OpenClaw 2026.9.6 wrapper", &Produced{Value: str(strings.Repeat("x", 200000))}, Result{Status: StatusCompleted, Output: []Output{}, Value: json.RawMessage(`{"truncated":true,"omittedBytes":198064,"guidance":"Output truncated; rerun with narrower args.","prefix":` + string(str(`"`+xs)) + `}`)}, true},
		{"wrapper cutting the text output's JSON", textCell, Result{Status: StatusCompleted, Value: json.RawMessage(`{"truncated":true,"omittedBytes":3000,"guidance":"Output truncated; rerun with narrower args.","prefix":` + string(str(`[{"type":"text","text":"`+xs)) + `}`)}, true},
		{"wrapper with a foreign prefix", &Produced{Value: str(strings.Repeat("x", 200000))}, Result{Status: StatusCompleted, Value: json.RawMessage(`{"truncated":true,"prefix":"yyyy"}`)}, false},
	} {
		if got := TruncatedWithin(c.r, 2048+512, c.guest); got != c.want {
			t.Errorf("%s: TruncatedWithin = %v, want %v", c.name, got, c.want)
		}
	}
	if TruncatedWithin(Result{Status: StatusCompleted, Value: json.RawMessage(`1`), Output: []Output{TextOutput("(output not truncated)")}}, 100, nil) {
		t.Errorf("a negated note must not count with the guest unknown")
	}
}
