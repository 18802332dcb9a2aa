package prelude

import (
	"encoding/json"
	"sort"
	"strings"
	"sync"
)

// CatalogIndex is a run's guest catalog kept on the host (issue 28 N3): the
// prelude reads ALL_TOOLS, tools.search/describe/call's lookups, the v1
// helpers and generation 2's handles through the VM's query host function
// (engine.QueryName) instead of holding the entries in guest memory, so a
// VM and its snapshots do not grow with the catalog. It is read-only after
// NewCatalogIndex and shared by every cell of the catalog; safe for
// concurrent use.
//
// Search follows spec/protocol.md §7 ("Reference search ranking") exactly
// as prelude.js did, with lower-casing by Go's strings.ToLower (it differs
// from JavaScript's toLowerCase only in special casings such as final
// sigma and dotted capital I). Substring tests scan one haystack per field
// (all entries' lower-cased values joined by NUL, which no query word
// contains), so a query costs about one pass over the catalog's text per
// word.
type CatalogIndex struct {
	entries []Entry
	byID    map[string]int
	// byName are the entries per lower-cased name (the whole-name bonus).
	byName map[string][]int
	// helpers are the v1 helper names (tools.<name>) with the entry each
	// calls: names two entries share are absent (prelude.js safeName).
	helpers map[string]int
	// callable are generation 2's callable names with their entries.
	callable map[string]int
	// rank is each entry's position in id order (ties, empty queries).
	rank  []int32
	order []int32 // entry indices in id order
	hay   [4]haystack

	mu     sync.Mutex
	hits   map[string][4][]int32 // hitsOf's cache
	cached int                   // hits held in hits
}

// search weights of the fields, in hay order (spec/protocol.md §7).
var fieldWeights = [4]int32{3, 2, 2, 1} // name, label, id, description

type haystack struct {
	text   string
	starts []int32 // starts[i] is where entry i's value begins in text
}

func buildHaystack(vals []string) haystack {
	var b strings.Builder
	h := haystack{starts: make([]int32, len(vals)+1)}
	for i, v := range vals {
		h.starts[i] = int32(b.Len())
		b.WriteString(v)
		b.WriteByte(0)
	}
	h.starts[len(vals)] = int32(b.Len())
	h.text = b.String()
	return h
}

// NewCatalogIndex indexes entries (in catalog order) for the guest.
func NewCatalogIndex(entries []Entry) *CatalogIndex {
	n := len(entries)
	x := &CatalogIndex{entries: entries, byID: make(map[string]int, n), byName: map[string][]int{},
		helpers: map[string]int{}, callable: map[string]int{}, rank: make([]int32, n), order: make([]int32, n)}
	var names, labels, ids, descs = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	collided := map[string]bool{}
	for i, e := range entries {
		if _, dup := x.byID[e.ID]; !dup {
			x.byID[e.ID] = i
		}
		names[i], labels[i], ids[i], descs[i] = strings.ToLower(e.Name), strings.ToLower(e.Label), strings.ToLower(e.ID), strings.ToLower(e.Description)
		x.byName[names[i]] = append(x.byName[names[i]], i)
		h := safeName(e.Name)
		if _, taken := x.helpers[h]; taken {
			collided[h] = true
		} else {
			x.helpers[h] = i
		}
		if e.CallableName != "" {
			if _, taken := x.callable[e.CallableName]; !taken {
				x.callable[e.CallableName] = i
			}
		}
		x.order[i] = int32(i)
	}
	for h := range collided {
		delete(x.helpers, h)
	}
	sort.SliceStable(x.order, func(a, b int) bool { return entries[x.order[a]].ID < entries[x.order[b]].ID })
	for r, i := range x.order {
		x.rank[i] = int32(r)
	}
	x.hay = [4]haystack{buildHaystack(names), buildHaystack(labels), buildHaystack(ids), buildHaystack(descs)}
	return x
}

// Len is the number of entries.
func (x *CatalogIndex) Len() int { return len(x.entries) }

// safeName is prelude.js's safeName: every UTF-16 code unit outside
// [A-Za-z0-9_$] becomes "_" (a character outside the BMP is two), and a
// leading digit gets a "_" prefix.
func safeName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '$':
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("__")
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		s = "_" + s
	}
	return s
}

// words splits a lower-cased query on /[^a-z0-9]+/, dropping empty parts.
func words(q string) []string {
	return strings.FieldsFunc(q, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
}

// scored is the ranking of spec/protocol.md §7: entry indices with a score
// above 0, best first, ties by id, at most limit. everyOnEmpty gives every
// entry 1 when the query has no words (search); suggestions keep only the
// whole-name bonus then.
func (x *CatalogIndex) scored(query string, limit int, everyOnEmpty bool) []int {
	if limit <= 0 {
		return nil
	}
	q := strings.ToLower(query)
	qw := words(q)
	if len(qw) == 0 && everyOnEmpty {
		out := make([]int, 0, min(limit, len(x.order)))
		for _, i := range x.order[:min(limit, len(x.order))] {
			out = append(out, int(i))
		}
		return out
	}
	score := make([]int32, len(x.entries))
	var touched []int32 // entries with a score, each once
	add := func(i int, w int32) {
		if score[i] == 0 {
			touched = append(touched, int32(i))
		}
		score[i] += w
	}
	for _, i := range x.byName[q] {
		add(i, 20)
	}
	mult := map[string]int32{}
	for _, w := range qw {
		mult[w]++
	}
	for w, m := range mult {
		hits := x.hitsOf(w)
		for f := range hits {
			wt := fieldWeights[f] * m
			for _, i := range hits[f] {
				add(int(i), wt)
			}
		}
	}
	// The best limit of touched, kept sorted by insertion: limit is small
	// (maxSearchLimit), the catalog is not.
	better := func(a, b int32) bool {
		if score[a] != score[b] {
			return score[a] > score[b]
		}
		return x.rank[a] < x.rank[b]
	}
	top := make([]int32, 0, min(limit, len(touched)))
	for _, i := range touched {
		if len(top) == limit && !better(i, top[len(top)-1]) {
			continue
		}
		k := sort.Search(len(top), func(j int) bool { return better(i, top[j]) })
		if len(top) < limit {
			top = append(top, 0)
		}
		copy(top[k+1:], top[k:len(top)-1])
		top[k] = i
	}
	out := make([]int, len(top))
	for k, i := range top {
		out[k] = int(i)
	}
	return out
}

// maxCachedWords and maxCachedHits bound what hitsOf keeps per index: 256
// words and 2 Mi hits (8 MiB) in all.
const (
	maxCachedWords = 256
	maxCachedHits  = 2 << 20
)

// hitsOf are the entries whose lower-cased field holds w, per field in hay
// order, each entry once, in catalog order. A word's hits are computed by
// one scan of each haystack and kept (up to maxCachedWords words; the
// cache is then cleared), so a word common to every entry costs its scan
// once, not once per query (up to maxCachedHits hits in all).
func (x *CatalogIndex) hitsOf(w string) [4][]int32 {
	x.mu.Lock()
	h, ok := x.hits[w]
	x.mu.Unlock()
	if ok {
		return h
	}
	for f := range x.hay {
		hay := &x.hay[f]
		i := 0 // the entry holding pos: starts only grow, so walk forward
		for pos := 0; pos < len(hay.text); {
			k := strings.Index(hay.text[pos:], w)
			if k < 0 {
				break
			}
			at := int32(pos + k)
			for hay.starts[i+1] <= at {
				i++
			}
			h[f] = append(h[f], int32(i))
			pos = int(hay.starts[i+1]) // one hit per entry and field
		}
	}
	n := len(h[0]) + len(h[1]) + len(h[2]) + len(h[3])
	x.mu.Lock()
	if x.hits == nil || len(x.hits) >= maxCachedWords || x.cached+n > maxCachedHits {
		x.hits, x.cached = map[string][4][]int32{}, 0
	}
	if n <= maxCachedHits {
		x.hits[w] = h
		x.cached += n
	}
	x.mu.Unlock()
	return h
}

// compactEntry is an ALL_TOOLS / tools.search entry (CM-GUEST-02).
type compactEntry struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Label       string `json:"label,omitempty"`
	Description string `json:"description"`
	Source      string `json:"source"`
	SourceName  string `json:"sourceName,omitempty"`
}

func compactOf(e *Entry) compactEntry {
	return compactEntry{e.ID, e.Name, e.Label, e.Description, e.Source, e.SourceName}
}

// describedEntry is tools.describe's answer: compact plus parameters.
type describedEntry struct {
	compactEntry
	Parameters json.RawMessage `json:"parameters,omitempty"`
}

// query is one guest query (prelude.js query()).
type query struct {
	Op    string `json:"op"`
	Q     string `json:"q"`
	ID    string `json:"id"`
	Name  string `json:"name"`
	Limit int    `json:"limit"`
	From  int    `json:"from"`
}

// Answer answers one guest query, a JSON text, with a JSON text; ok false
// for a malformed or unknown query (the guest gets undefined and throws).
// Ops: "all" (from, limit: a page of ALL_TOOLS's compact entries), "search" (q, limit: compact
// entries), "suggest" (id: up to 3 ids), "describe" (id: compact entry with
// parameters, or null), "has" (id: bool), "helper" (name: the id a v1
// helper calls, or null), "entry" (id: the full entry of a callable, or
// null), "callable" (name: the same by callable name), "callables" (every
// callable's full entry, in catalog order), "size".
func (x *CatalogIndex) Answer(text string) (string, bool) {
	var q query
	if json.Unmarshal([]byte(text), &q) != nil {
		return "", false
	}
	var v any
	switch q.Op {
	case "size":
		v = len(x.entries)
	case "all":
		// One page of ALL_TOOLS: the guest reads it in pages so that no
		// answer is bigger than a page (memory for the text and its parse).
		from := min(max(q.From, 0), len(x.entries))
		to := min(from+max(q.Limit, 0), len(x.entries))
		all := make([]compactEntry, 0, to-from)
		for i := from; i < to; i++ {
			all = append(all, compactOf(&x.entries[i]))
		}
		v = all
	case "search":
		found := x.scored(q.Q, q.Limit, true)
		out := make([]compactEntry, len(found))
		for k, i := range found {
			out[k] = compactOf(&x.entries[i])
		}
		v = out
	case "suggest":
		found := x.scored(q.ID, 3, false)
		out := make([]string, len(found))
		for k, i := range found {
			out[k] = x.entries[i].ID
		}
		v = out
	case "describe":
		if i, ok := x.byID[q.ID]; ok {
			v = describedEntry{compactOf(&x.entries[i]), x.entries[i].Parameters}
		}
	case "has":
		_, ok := x.byID[q.ID]
		v = ok
	case "helper":
		if i, ok := x.helpers[q.Name]; ok {
			v = x.entries[i].ID
		}
	case "entry":
		if i, ok := x.byID[q.ID]; ok && x.entries[i].CallableName != "" {
			v = &x.entries[i]
		}
	case "callable":
		if i, ok := x.callable[q.Name]; ok {
			v = &x.entries[i]
		}
	case "callables":
		out := []*Entry{}
		for i := range x.entries {
			if x.entries[i].CallableName != "" {
				out = append(out, &x.entries[i])
			}
		}
		v = out
	default:
		return "", false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	return string(b), true
}
