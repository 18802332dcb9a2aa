package prelude

import (
	"encoding/json"
	"slices"
	"testing"
)

func ids(t *testing.T, x *CatalogIndex, q string, limit int) []string {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"op": "search", "q": q, "limit": limit})
	a, ok := x.Answer(string(b))
	if !ok {
		t.Fatalf("search %q: no answer", q)
	}
	var es []Entry
	if err := json.Unmarshal([]byte(a), &es); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

// The host's ranking is spec/protocol.md §7's (what prelude.js computed
// before issue 28 N3): whole-name bonus 20, per word name 3, label 2, id 2,
// description 1, a repeated word counting again, ties by id, an empty query
// listing everything in id order; and a cached word ranks as a fresh one.
func TestCatalogIndexRanking(t *testing.T) {
	x := NewCatalogIndex([]Entry{
		{ID: "p:b:weather", Name: "weather", Description: "forecast"},
		{ID: "p:a:forecast", Name: "forecast", Description: "the weather"},
		{ID: "p:c:other", Name: "other", Label: "Weather label"},
		{ID: "p:d:none", Name: "none", Description: "nothing"},
	})
	for _, tc := range []struct {
		q     string
		limit int
		want  []string
	}{
		{"weather", 10, []string{"p:b:weather", "p:c:other", "p:a:forecast"}}, // 20+3+2, 2, 1
		{"weather", 10, []string{"p:b:weather", "p:c:other", "p:a:forecast"}}, // cached
		{"forecast weather", 2, []string{"p:a:forecast", "p:b:weather"}},      // 3+2+1=6 ties 3+2+1=6: by id
		{"", 3, []string{"p:a:forecast", "p:b:weather", "p:c:other"}},
		{"zzz", 5, nil},
	} {
		if got := ids(t, x, tc.q, tc.limit); !slices.Equal(got, tc.want) {
			t.Errorf("search %q limit %d: %v, want %v", tc.q, tc.limit, got, tc.want)
		}
	}
	if a, _ := x.Answer(`{"op":"suggest","id":"wether"}`); a != `[]` {
		t.Errorf("suggest wether: %s", a)
	}
	if a, _ := x.Answer(`{"op":"helper","name":"weather"}`); a != `"p:b:weather"` {
		t.Errorf("helper weather: %s", a)
	}
	if _, ok := x.Answer(`{"op":"nope"}`); ok {
		t.Error("an unknown op must get no answer")
	}
}
