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

// TruncatedWithin reports whether r is a truncated result as spec/protocol.md
// §12.9 defines it for profile v2 ("Truncation under v2", normative): a
// completed or waiting result whose value and output, as one JSON object
// {value, output}, are at most max bytes by ContentSize, and that is marked
// as truncated (saysTruncated). It is the truncation page 001 describes for
// generation 2 ("当字节或模型结果拟合会截断最终结构化的 JSON 时", a result cut by
// the byte fitting) and 000 allows for completed and suspended calls ("i
// limiti di output … vengono applicati per le chiamate completate e
// sospese"), which conforms to CM-LIM-03 under v2 besides a failure with
// output_limit_exceeded. A caller allows the envelope's keys in max
// (CM-LIM-08 judges the exact bound).
func TruncatedWithin(r Result, max int64) bool {
	if r.Status != StatusCompleted && r.Status != StatusWaiting {
		return false
	}
	b, err := json.Marshal(struct {
		V json.RawMessage `json:"value,omitempty"`
		O []Output        `json:"output,omitempty"`
	}{r.Value, r.Output})
	return err == nil && ContentSize(b) <= max && saysTruncated(b)
}

// truncationWords are the words of a truncation marker in a string
// (protocol.md §12.9): "truncated" in any case, as the reference's
// "(error truncated to maxOutputBytes)" and "[value truncated to 65536
// bytes]", or 001's own word 截断.
var truncationWords = []string{"truncat", "截断"}

// saysTruncated reports whether the JSON b carries a truncation marker of
// protocol.md §12.9 at any depth: a member "truncated": true (the shape of
// auto-retain, §5.7, and of OpenClaw 2026.9.6) or a string that contains
// "truncat" (any case) or 截断 (a text output item such as "[value truncated
// to 65536 bytes]", or the cut value's own tail).
func saysTruncated(b []byte) bool {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case string:
			low := strings.ToLower(x)
			for _, w := range truncationWords {
				if strings.Contains(low, w) {
					return true
				}
			}
		case map[string]any:
			if x["truncated"] == true {
				return true
			}
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}
