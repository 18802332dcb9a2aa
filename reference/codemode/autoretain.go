package codemode

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/codemode-conformance/codemode/spec/result"
)

// Auto-retain bounds (feature results, CM-RES-04..06; protocol.md §5.7): the
// preview is at most maxPreviewBytes of the value's JSON text, and a result
// leaves auto-retain alone when maxOutputBytes leaves less than
// minRetainRoom bytes after the output (the reference would not fit).
const (
	maxPreviewBytes = 4096
	minRetainRoom   = 160
)

// Retained is the value of a completed cell whose final structured value
// did not fit maxOutputBytes under feature results (CM-RES-04..06):
// Truncated is always true, Bytes is the size of the full value's compact
// JSON, Preview its first bytes (cut at a UTF-8 boundary). Exactly one of
// ResultRef (the full value is in the run's results store: results.load)
// and NotRetained (why not: store full, headless) is set.
type Retained struct {
	Truncated   bool   `json:"truncated"`
	Bytes       int    `json:"bytes"`
	ResultRef   string `json:"resultRef,omitempty"`
	NotRetained string `json:"notRetained,omitempty"`
	Preview     string `json:"preview"`
}

// MsgHeadlessNotRetained is the NotRetained reason of headless and
// restart-safe cells, which never allocate references (CM-RES-06).
const MsgHeadlessNotRetained = "headless or restart-safe execution does not retain results"

// autoRetain replaces a final object or array value that takes the result
// past maxOutputBytes by a Retained (CM-RES-04). The reference is reserved
// (saved) before the preview is fitted and released again if even an empty
// preview does not fit; a refused save still completes, with NotRetained
// (CM-RES-05). ok is false when the value stays as it is: no feature
// results, not structured, or no room for a Retained (the caller fails the
// cell with output_limit_exceeded, CM-LIM-03).
func (s *step) autoRetain(value json.RawMessage) (json.RawMessage, bool) {
	r := s.c.run
	room := r.cfg.MaxOutputBytes - s.outBytes
	if s.c.results == nil || room < minRetainRoom || len(value) == 0 || (value[0] != '{' && value[0] != '[') {
		return nil, false
	}
	ret := Retained{Truncated: true, Bytes: len(value)}
	switch {
	case r.headless:
		ret.NotRetained = MsgHeadlessNotRetained // CM-RES-06: never allocate
	default:
		ref, err := s.c.results.Save(value, s.c.network.taken()) // provenance (CM-RES-08)
		if err != nil {
			ret.NotRetained = "not retained: " + err.Error() // CM-RES-05
		} else {
			ret.ResultRef = ref
		}
	}
	text := string(value[:min(len(value), maxPreviewBytes)])
	for {
		ret.Preview = cutUTF8(text)
		b, err := json.Marshal(ret)
		if err != nil {
			break
		}
		over := result.ContentSize(b) - room
		if over <= 0 {
			return b, true
		}
		if len(text) == 0 {
			break
		}
		text = text[:max(0, len(text)-int(over))]
	}
	if ret.ResultRef != "" {
		s.c.results.Delete(ret.ResultRef) // a reference that cannot be displayed is released
	}
	return nil, false
}

// cutUTF8 drops a partial rune at the end of s.
func cutUTF8(s string) string {
	for len(s) > 0 {
		if r, size := utf8.DecodeLastRuneInString(s); r != utf8.RuneError || size > 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s
}
