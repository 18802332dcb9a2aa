package result

import (
	"bytes"
	"encoding/json"
	"iter"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ContentSize is the size in bytes that maxOutputBytes counts for a JSON
// text (CM-LIM-03, CM-LIM-09): its UTF-8 bytes, with every escape sequence
// inside a string counted as the UTF-8 bytes of the character it stands for
// (`\n` and `\u0001` are 1 byte, `\u00e9` 2, a surrogate pair 4, a lone
// surrogate 3, as the U+FFFD it becomes). So JSON escaping never changes how
// much of the limit a value uses. raw must be valid JSON; the result for
// anything else is unspecified but never panics.
func ContentSize(raw []byte) int64 {
	var n int64
	for i := 0; i < len(raw); {
		if raw[i] != '\\' || i+1 >= len(raw) {
			n++
			i++
			continue
		}
		if raw[i+1] != 'u' {
			n++
			i += 2
			continue
		}
		r, width := escapedRune(raw[i:])
		n += int64(utf8.RuneLen(r))
		i += width
	}
	return n
}

// escapedRune decodes the \uXXXX escape at the start of b (and a following
// low surrogate escape, for a pair). A lone surrogate decodes to U+FFFD.
// width is the number of bytes consumed (at least 2).
func escapedRune(b []byte) (r rune, width int) {
	u, ok := hex4(b)
	if !ok {
		return utf8.RuneError, 2
	}
	switch {
	case u >= 0xD800 && u < 0xDC00:
		if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
			if lo, ok := hex4(b[6:]); ok && lo >= 0xDC00 && lo < 0xE000 {
				return utf16.DecodeRune(u, lo), 12
			}
		}
		return utf8.RuneError, 6
	case u >= 0xDC00 && u < 0xE000:
		return utf8.RuneError, 6
	}
	return u, 6
}

// hex4 reads the four hex digits of the \uXXXX escape at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// LoneSurrogates counts the escapes of unpaired UTF-16 surrogates in a JSON
// text (`"\ud83d"`), which a JavaScript reader decodes to a string that is
// not well-formed Unicode (CM-EXEC-21), plus one for each byte sequence that
// is not valid UTF-8.
func LoneSurrogates(raw []byte) int {
	n := 0
	if !utf8.Valid(raw) {
		n += len(raw) - len(bytes.ToValidUTF8(raw, nil)) + 1
	}
	for range loneSurrogateEscapes(raw) {
		n++
	}
	return n
}

// FirstLoneSurrogate returns the byte offset in the JSON text raw of the
// first escape of an unpaired UTF-16 surrogate (CM-EXEC-21), or -1 when
// there is none. It does not look at invalid UTF-8 (LoneSurrogates does).
func FirstLoneSurrogate(raw []byte) int {
	for i := range loneSurrogateEscapes(raw) {
		return i
	}
	return -1
}

// loneSurrogateEscapes yields the byte offset of each \uXXXX escape in raw
// that stands for a UTF-16 surrogate without its pair.
func loneSurrogateEscapes(raw []byte) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; i < len(raw); {
			if raw[i] != '\\' || i+1 >= len(raw) {
				i++
				continue
			}
			if raw[i+1] != 'u' {
				i += 2
				continue
			}
			r, width := escapedRune(raw[i:])
			if r == utf8.RuneError && width == 6 {
				if u, _ := hex4(raw[i:]); u != 0xFFFD && !yield(i) {
					return
				}
			}
			i += width
		}
	}
}

// WellFormed returns raw with every lone surrogate escape replaced by
// `\ufffd` and every byte sequence that is not UTF-8 by U+FFFD: the one
// Unicode rule of every channel (CM-EXEC-21). It returns raw itself when
// nothing needed replacing.
func WellFormed(raw []byte) []byte {
	if LoneSurrogates(raw) == 0 {
		return raw
	}
	raw = bytes.ToValidUTF8(raw, []byte("\uFFFD"))
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		if raw[i] != '\\' || i+1 >= len(raw) {
			out = append(out, raw[i])
			i++
			continue
		}
		if raw[i+1] != 'u' {
			out = append(out, raw[i], raw[i+1])
			i += 2
			continue
		}
		r, width := escapedRune(raw[i:])
		if r == utf8.RuneError && width == 6 {
			out = append(out, `\ufffd`...)
		} else {
			out = append(out, raw[i:i+width]...)
		}
		i += width
	}
	return out
}

// ResultEnvelopeBytes is the fixed envelope a result may carry beyond
// maxOutputBytes (CM-LIM-08): the content size of a result's JSON, leaving
// out telemetry and pendingToolCalls, is at most maxOutputBytes +
// ResultEnvelopeBytes, whether it completed, failed or is waiting.
const ResultEnvelopeBytes = 1024

// Produced is what a guest cell produced before any cut (protocol.md §12.9):
// its output items in order and its final value (JSON; empty for none). A
// truncation marker counts only when it is not part of this content.
type Produced struct {
	Output []Output
	Value  json.RawMessage
}

// TruncatedWithin reports whether r is a truncated result as spec/protocol.md
// §12.9 defines it for profile v2 ("Truncation under v2", normative): a
// completed or waiting result whose value and output, as one JSON object
// {value, output}, are at most max bytes by ContentSize, whose kept content
// is what the guest produced or a prefix of it, and that carries a marker
// the target added (markedCut). It is the truncation page 001 describes for
// generation 2 ("当字节或模型结果拟合会截断最终结构化的 JSON 时", a result cut by
// the byte fitting) and 000 allows for completed and suspended calls ("i
// limiti di output … vengono applicati per le chiamate completate e
// sospese"), which conforms to CM-LIM-03 under v2 besides a failure with
// output_limit_exceeded. A caller allows the envelope's keys in max
// (CM-LIM-08 judges the exact bound).
//
// guest is what the cell produced uncut. With guest nil the caller vouches
// that the guest writes no marker (no "truncat", no 截断, no "truncated"
// member: the corpus checks its case's source), so any non-negated marker
// counts and the kept content is not compared (audit 2026-12-02-stop34).
func TruncatedWithin(r Result, max int64, guest *Produced) bool {
	if r.Status != StatusCompleted && r.Status != StatusWaiting {
		return false
	}
	b, err := json.Marshal(struct {
		V json.RawMessage `json:"value,omitempty"`
		O []Output        `json:"output,omitempty"`
	}{r.Value, r.Output})
	return err == nil && ContentSize(b) <= max && markedCut(r, guest)
}

// truncationWords are the words of a truncation marker in a string
// (protocol.md §12.9): "truncated" in any case, as the reference's
// "(error truncated to maxOutputBytes)" and "[value truncated to 65536
// bytes]", or 001's own word 截断.
var truncationWords = []string{"truncat", "截断"}

// negations are what, just before a truncation word, makes it say the
// opposite ("(output not truncated)", "untruncated", "未截断").
var negations = []string{"not", "n't", "un", "non", "non-", "never", "未", "没有", "没", "不", "无", "未被", "没被"}

// saysTruncated reports whether s contains a truncation word that is not
// negated (markerIn of protocol.md §12.9).
func saysTruncated(s string) bool {
	low := strings.ToLower(s)
	for _, w := range truncationWords {
		for i := 0; ; {
			j := strings.Index(low[i:], w)
			if j < 0 {
				break
			}
			at := i + j
			before := strings.TrimRight(low[:at], " \t\n-_()[]")
			negated := false
			for _, n := range negations {
				if strings.HasSuffix(before, n) {
					negated = true
					break
				}
			}
			if !negated {
				return true
			}
			i = at + len(w)
		}
	}
	return false
}

// hasTruncatedMember reports whether the JSON v has a member "truncated"
// at any depth (the guest's own member never marks a cut).
func hasTruncatedMember(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["truncated"]; ok {
			return true
		}
		for _, e := range x {
			if hasTruncatedMember(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasTruncatedMember(e) {
				return true
			}
		}
	}
	return false
}

// cutJudge holds the guest's uncut content for markedCut.
type cutJudge struct {
	known  bool     // the guest's content is known
	units  []string // each uncut text, JSON item and value (JSON, and a string value as is)
	items  []any    // the guest's json items and value, decoded
	member bool     // the guest wrote a "truncated" member
}

func newCutJudge(g *Produced) cutJudge {
	j := cutJudge{known: g != nil}
	if g == nil {
		return j
	}
	add := func(raw json.RawMessage) {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return
		}
		j.units = append(j.units, string(raw))
		if s, ok := v.(string); ok {
			j.units = append(j.units, s)
		}
		j.items = append(j.items, v)
		j.member = j.member || hasTruncatedMember(v)
	}
	var joined strings.Builder
	for _, o := range g.Output {
		switch {
		case o.Text != nil:
			j.units = append(j.units, *o.Text)
			joined.WriteString(*o.Text)
		case len(o.Value) > 0:
			add(o.Value)
		}
		if b, err := json.Marshal(o); err == nil {
			j.units = append(j.units, string(b)) // an item cut with its wrapper
		}
	}
	if len(g.Output) > 0 {
		// The output as a whole: its texts joined, its JSON, and the JSON of
		// {value, output} (a wrapper's prefix may cut any of them).
		j.units = append(j.units, joined.String())
		if b, err := json.Marshal(g.Output); err == nil {
			j.units = append(j.units, string(b))
		}
		if b, err := json.Marshal(struct {
			V json.RawMessage `json:"value,omitempty"`
			O []Output        `json:"output"`
		}{g.Value, g.Output}); err == nil {
			j.units = append(j.units, string(b))
		}
	}
	if len(g.Value) > 0 {
		add(g.Value)
	}
	return j
}

// kept is the length of s's longest prefix that is a prefix of one of the
// guest's uncut units (0 when the guest is not known).
func (j cutJudge) kept(s string) int {
	best := 0
	for _, u := range j.units {
		n := 0
		for n < len(s) && n < len(u) && s[n] == u[n] {
			n++
		}
		best = max(best, n)
	}
	return best
}

// str judges a string of the result (a text item or a string value): ok
// when it is the guest's content or a prefix of it, optionally followed by
// a marker; marked when that tail is a marker.
func (j cutJudge) str(s string) (ok, marked bool) {
	rest := s[j.kept(s):]
	if saysTruncated(rest) {
		return true, true
	}
	return !j.known || rest == "", false
}

// isGuests reports whether v equals one of the guest's json items or value.
func (j cutJudge) isGuests(v any) bool {
	for _, g := range j.items {
		if jsonEqual(g, v) {
			return true
		}
	}
	return false
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// value judges the result's value or a json item v.
func (j cutJudge) value(v any) (ok, marked bool) {
	if j.known && j.isGuests(v) {
		return true, false
	}
	switch x := v.(type) {
	case nil:
		return true, false // dropped: nothing kept, nothing marked
	case string:
		return j.str(x)
	case map[string]any:
		if x["truncated"] == true && !j.member {
			// A wrapper the target added ({truncated: true, omittedBytes,
			// guidance, prefix} of OpenClaw 2026.9.6): each string member
			// is a note or a prefix of the guest's content.
			for _, e := range x {
				if s, isStr := e.(string); isStr {
					if ok, _ := j.str(s); !ok {
						return false, false
					}
				}
			}
			return true, true
		}
	}
	return !j.known, false
}

// markedCut reports whether r's kept content is the guest's (or a prefix of
// it) and r carries a truncation marker the target added (protocol.md §12.9):
// a top-level member "truncated": true of the value or of a json item that
// the guest did not write, or a non-negated "truncated" (any case) or 截断 in
// a text item or string value, past the part that is the guest's own text.
func markedCut(r Result, guest *Produced) bool {
	j := newCutJudge(guest)
	marked := false
	judge := func(ok, m bool) bool {
		marked = marked || m
		return ok
	}
	if len(r.Value) > 0 {
		var v any
		if json.Unmarshal(r.Value, &v) != nil || !judge(j.value(v)) {
			return false
		}
	}
	for _, o := range r.Output {
		switch {
		case o.Text != nil:
			if !judge(j.str(*o.Text)) {
				return false
			}
		case len(o.Value) > 0:
			var v any
			if json.Unmarshal(o.Value, &v) != nil || !judge(j.value(v)) {
				return false
			}
		}
	}
	return marked
}
