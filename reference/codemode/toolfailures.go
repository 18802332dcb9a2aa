package codemode

import (
	"encoding/json"
	"strings"

	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/result"
)

// noteToolFailures records the nested_tool_failed errors among ds, which the
// host is about to deliver into the guest.
func (s *step) noteToolFailures(ds []prelude.Delivery) {
	for _, d := range ds {
		if d.OK {
			continue
		}
		var e struct{ Code, Message string }
		if json.Unmarshal(d.Error, &e) != nil || e.Code != string(result.CodeNestedToolFailed) {
			continue
		}
		s.c.mu.Lock()
		if s.c.toolFailures == nil {
			s.c.toolFailures = map[string]bool{}
		}
		s.c.toolFailures[e.Message] = true
		s.c.mu.Unlock()
	}
}

// deliveredToolFailure reports whether msg is the message of a nested tool
// failure the host delivered into this cell, as thrown or as the prelude's
// report of unhandled rejections (which ends "; the first one: <message>",
// CM-NEST-22): a ToolError the guest made up, even through the bridge's own
// deliver function, never fails the cell with nested_tool_failed
// (CM-GUEST-10, CM-EXEC-19).
func (s *step) deliveredToolFailure(msg string) bool {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	if s.c.toolFailures[msg] {
		return true
	}
	for m := range s.c.toolFailures {
		if strings.HasSuffix(msg, "; the first one: "+m) {
			return true
		}
	}
	return false
}
