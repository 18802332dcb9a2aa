package bridge

import (
	"encoding/json"
	"fmt"

	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/result"
)

// ToolError is a tool's own failure: Message and Data reach the guest as plain
// data (CM-GUEST-10), as a rejection {name: "ToolError", code:
// "nested_tool_failed", message, data}. An Invoke that fails with any other
// error is reported to the guest the same way, with the error's text.
// Match it with errors.As.
type ToolError struct {
	Message string
	Data    json.RawMessage // JSON, or empty for none
}

func (e *ToolError) Error() string { return e.Message }

// ErrorDelivery is the rejection of request id the guest gets: an error
// {name, message, code?, data?} (code and data left out when empty).
func ErrorDelivery(id int64, name, msg, code string, data json.RawMessage) prelude.Delivery {
	e := map[string]any{"name": name, "message": msg}
	if code != "" {
		e["code"] = code
	}
	if len(data) > 0 {
		e["data"] = data
	}
	b, _ := json.Marshal(e)
	return prelude.Delivery{ID: id, OK: false, Error: b}
}

// UnknownTool rejects nested request id for tool, a catalog id the run's
// current catalog does not hold: a ToolError with code invalid_input
// (CM-GUEST-05, CM-RES-07).
func UnknownTool(id int64, tool string) prelude.Delivery {
	return ErrorDelivery(id, "ToolError", fmt.Sprintf("Unknown tool id %q. Use tools.search(query) or ALL_TOOLS to find tool ids.", tool), "invalid_input", nil)
}

// WellFormedInput is a nested call's input (JSON text) as it leaves the
// host: well-formed UTF-8 JSON (CM-EXEC-21), {} when there is none.
func WellFormedInput(in json.RawMessage) json.RawMessage {
	input := json.RawMessage(result.WellFormed(in))
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	return input
}
