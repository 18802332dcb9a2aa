package codemode

import (
	"fmt"

	"github.com/codemode-conformance/codemode/spec/result"
)

// minErrorBytes is the room an error text always gets (within
// maxOutputBytes) even when the output used up the limit: the envelope of
// a failed result stays below resultEnvelope (CM-LIM-08).
const minErrorBytes = 512

// outputItemSize is what one output item counts toward maxOutputBytes: the
// content size of its JSON (spec/result.ContentSize: UTF-8 bytes, escapes
// counted as the characters they stand for, CM-LIM-09), with its
// {"type":…} wrapper, plus one byte for the comma between items.
func outputItemSize(raw []byte) int64 { return result.ContentSize(raw) + 1 }

// keepOutput appends o (whose JSON is raw) to the result's output unless it
// takes the output past maxOutputBytes. Then o and every later item are
// dropped, so the failed result carries only output within the limit
// (CM-LIM-03, CM-LIM-08).
func (s *step) keepOutput(o result.Output, raw []byte) (result.Result, bool) {
	limit := s.c.run.cfg.MaxOutputBytes
	n := outputItemSize(raw)
	if s.outBytes+n > limit {
		return s.limit(result.CodeOutputLimitExceeded, fmt.Sprintf("output exceeds maxOutputBytes (%d bytes)", limit)), true
	}
	s.outBytes += n
	s.output = append(s.output, o)
	return result.Result{}, false
}

// errorBudget is how many bytes the error text of this result may take:
// what maxOutputBytes leaves after the output, but at least minErrorBytes,
// and never more than maxOutputBytes (CM-LIM-03, CM-LIM-08).
func (s *step) errorBudget() int {
	limit := s.c.run.cfg.MaxOutputBytes
	return int(min(limit, max(limit-s.outBytes, minErrorBytes)))
}
