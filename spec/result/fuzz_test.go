package result

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzContentSize: the output accounting counts content, not escapes
// (CM-LIM-09). For any string, its JSON encodings with and without HTML
// escaping have the same content size: the UTF-8 bytes of the string (each
// invalid byte as the U+FFFD it becomes) plus the two quotes.
func FuzzContentSize(f *testing.F) {
	for _, seed := range []string{"", "plain", "é\u0001\"\\\n", "<a>&</a>", "\U0001F600", "\xff\xfe", "\u2028\u2029", strings.Repeat("\u0000", 40)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := int64(2)
		for _, r := range s { // an invalid byte is one U+FFFD, as encoding/json writes it
			want += int64(utf8.RuneLen(r))
		}
		escaped, _ := json.Marshal(s)
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		plain := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if got := ContentSize(escaped); got != want {
			t.Fatalf("ContentSize(%s) = %d, want %d", escaped, got, want)
		}
		if got := ContentSize(plain); got != want {
			t.Fatalf("ContentSize(%s) = %d, want %d", plain, got, want)
		}
	})
}

// FuzzWellFormed: whatever bytes a guest sends, WellFormed gives valid
// UTF-8 without lone surrogate escapes (CM-EXEC-21), keeps valid JSON
// valid, leaves well-formed text alone, and never changes the content size
// of valid UTF-8 (a lone surrogate counts as the U+FFFD it becomes).
func FuzzWellFormed(f *testing.F) {
	for _, seed := range []string{`"x"`, `"\ud83d"`, `"\ud83d\ude00"`, `"\udc00\ud800"`, `{"\ud800":"\\ud800"}`, `"\ud83d\u0041"`, "\"\xff\"", `"\u00e9\u0001"`, `\`, `"\u12`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		out := WellFormed(raw)
		if !utf8.Valid(out) && utf8.Valid(raw) {
			t.Fatalf("WellFormed(%q) = %q is not UTF-8", raw, out)
		}
		if LoneSurrogates(out) != 0 {
			t.Fatalf("WellFormed(%q) = %q still has lone surrogates", raw, out)
		}
		if json.Valid(raw) && !json.Valid(out) {
			t.Fatalf("WellFormed(%q) = %q is no longer JSON", raw, out)
		}
		if LoneSurrogates(raw) == 0 && !bytes.Equal(out, raw) {
			t.Fatalf("WellFormed changed well-formed text %q to %q", raw, out)
		}
		if utf8.Valid(raw) && ContentSize(out) != ContentSize(raw) {
			t.Fatalf("WellFormed changed the content size of %q from %d to %d (%q)", raw, ContentSize(raw), ContentSize(out), out)
		}
	})
}
