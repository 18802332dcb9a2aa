package bridge

import (
	"bytes"
	"encoding/json"
	"testing"
)

// jsonDepth counts brackets outside strings only and stops at its limit.
func TestJSONDepth(t *testing.T) {
	for raw, want := range map[string]int{
		`1`: 0, `[]`: 1, `[[1],{"a":[2]}]`: 3, `"[[[["`: 0, `["\"[[", {"k]": [[]]}]`: 4, `[[[[[[[[[[`: 9,
	} {
		if got := jsonDepth([]byte(raw), 8); got != want {
			t.Errorf("jsonDepth(%s, 8) = %d, want %d", raw, got, want)
		}
	}
}

// FuzzJSONDepth checks the bridge's depth scan against encoding/json's
// own reading of the same text: for valid JSON they agree, up to the limit.
func FuzzJSONDepth(f *testing.F) {
	for _, seed := range []string{`1`, `[]`, `{"a":[{"b":"]]]["}]}`, `["\\\"[", {"k]": [[]]}]`, `"{{{{"`, `[[[[[[[[[[[[]]]]]]]]]]]]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		const limit = 8
		got := jsonDepth(raw, limit) // never panics, whatever raw is
		if !json.Valid(raw) {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		d, want := 0, 0
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			switch tok {
			case json.Delim('['), json.Delim('{'):
				d++
				want = max(want, d)
			case json.Delim(']'), json.Delim('}'):
				d--
			}
		}
		want = min(want, limit+1)
		if got != want {
			t.Fatalf("jsonDepth(%s, %d) = %d, want %d", raw, limit, got, want)
		}
	})
}
