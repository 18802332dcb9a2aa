package protocol

import (
	"encoding/json"
	"testing"
)

func TestUnescapeHTML(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a":"plain"}`, `{"a":"plain"}`},
		{`{"a":"\u003cb\u003e\u0026"}`, `{"a":"<b>&"}`},
		{`{"a":"\u003C"}`, `{"a":"<"}`},
		{`{"a":"\\u003c"}`, `{"a":"\\u003c"}`}, // an escaped backslash then text
		{`{"a":"\\\u003c"}`, `{"a":"\\<"}`},    // an escaped backslash then an escape
		{`{"a":"\u0001\u2028"}`, `{"a":"\u0001\u2028"}`},
	} {
		if got := string(UnescapeHTML([]byte(c.in))); got != c.want {
			t.Errorf("UnescapeHTML(%s) = %s, want %s", c.in, got, c.want)
		}
	}
	// What json.Marshal escapes decodes to the same value once unescaped.
	v := map[string]any{"s": `<script>&amp;"\` + "\u2028\x01"}
	b, _ := json.Marshal(v)
	var back map[string]any
	if err := json.Unmarshal(UnescapeHTML(b), &back); err != nil || back["s"] != v["s"] {
		t.Errorf("round trip of %s: %v, %v", b, back, err)
	}
}
