package tools

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Span is one invocation of a recorded tool as the harness saw it: when its
// tool.invoke arrived and when the harness answered it. Specs judge order
// and overlap of nested calls from spans (CM-NEST-05, CM-NEST-06), never from
// sleeps in the spec.
type Span struct {
	Tool  string // tool name
	Tag   string // the input's tag
	Start time.Time
	End   time.Time // zero while the call runs
}

// Overlaps reports whether s and o were in flight at the same time.
func (s Span) Overlaps(o Span) bool {
	return s.Start.Before(o.End) && o.Start.Before(s.End)
}

// Recorder records the spans of the tools it declares. Safe for concurrent
// use.
type Recorder struct {
	mu    sync.Mutex
	spans []Span
}

// Recorded declares a core tool name with executionMode mode that holds each
// call for the input's ms milliseconds (default 50; cancellation ends it
// early) and returns {tag}; rec records its span.
func (rec *Recorder) Recorded(name string, mode protocol.ExecutionMode) Tool {
	t := Core(name, "Hold the call for ms milliseconds, then return {tag}; the harness records when it started and ended.",
		obj(`"ms":{"type":"integer"},"tag":{"type":"string"}`),
		func(ctx context.Context, in json.RawMessage) (any, error) {
			var v struct {
				Ms  int    `json:"ms"`
				Tag string `json:"tag"`
			}
			_ = json.Unmarshal(in, &v)
			if v.Ms <= 0 {
				v.Ms = 50
			}
			i := rec.start(name, v.Tag)
			defer rec.end(i)
			select {
			case <-time.After(time.Duration(v.Ms) * time.Millisecond):
			case <-ctx.Done():
				return nil, protocol.ToolError(name+": canceled", nil)
			}
			return map[string]string{"tag": v.Tag}, nil
		})
	t.Spec.ExecutionMode = mode
	return t
}

func (rec *Recorder) start(tool, tag string) int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.spans = append(rec.spans, Span{Tool: tool, Tag: tag, Start: time.Now()})
	return len(rec.spans) - 1
}

func (rec *Recorder) end(i int) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.spans[i].End = time.Now()
}

// Spans returns a copy of every span so far, in start order.
func (rec *Recorder) Spans() []Span {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]Span(nil), rec.spans...)
}

// ByTag returns the spans keyed by tag (the last one of a repeated tag).
func (rec *Recorder) ByTag() map[string]Span {
	out := map[string]Span{}
	for _, s := range rec.Spans() {
		out[s.Tag] = s
	}
	return out
}

// MaxOverlap is the largest number of recorded spans in flight at once.
func (rec *Recorder) MaxOverlap() int {
	spans := rec.Spans()
	best := 0
	for _, s := range spans {
		n := 0
		for _, o := range spans {
			if !o.Start.After(s.Start) && (o.End.IsZero() || o.End.After(s.Start)) {
				n++
			}
		}
		best = max(best, n)
	}
	return best
}
