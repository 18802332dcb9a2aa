package bridge

import (
	"encoding/json"
	"fmt"

	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/config"
	"github.com/codemode-conformance/codemode/spec/result"
)

// bridgeLimit is the largest JSON text, in bytes, of a value crossing the
// bridge in either direction: a nested tool input from the guest or a tool
// result for the guest (CM-LIM-07, protocol.md §4). It is a quarter of the
// run's memoryLimitBytes: a delivered result lives in the VM as its text, its
// parse and the guest's copy, so a larger one could only end the cell with
// memory_limit_exceeded after the host had buffered it whole. The contract's
// ceiling is memoryLimitBytes itself.
func bridgeLimit(cfg config.Config) int64 { return cfg.MemoryLimitBytes / 4 }

// CheckInput returns the rejection the guest gets for nested request reqID
// whose input (JSON text) exceeds the bridge limit of cfg or MaxBridgeDepth:
// a ToolError with code invalid_input; no tool.invoke is sent. Over is false
// when the input may leave.
func CheckInput(reqID int64, input json.RawMessage, cfg config.Config) (d prelude.Delivery, over bool) {
	if n := int64(len(input)); n > bridgeLimit(cfg) {
		return ErrorDelivery(reqID, "ToolError", fmt.Sprintf("the tool input (%d bytes of JSON) exceeds the bridge limit of %d bytes (a quarter of memoryLimitBytes); pass less data or a reference to it",
			n, bridgeLimit(cfg)), string(result.CodeInvalidInput), nil), true
	}
	return tooDeepInput(reqID, input) // depth.go
}

// oversizedResult returns the rejection the guest gets instead of a tool
// result that exceeds the bridge limit or MaxBridgeDepth, or over false.
func oversizedResult(reqID int64, value json.RawMessage, cfg config.Config) (d prelude.Delivery, over bool) {
	if n := int64(len(value)); n > bridgeLimit(cfg) {
		return ErrorDelivery(reqID, "ToolError", fmt.Sprintf("the tool result (%d bytes of JSON) exceeds the bridge limit of %d bytes (a quarter of memoryLimitBytes); ask the tool for less data",
			n, bridgeLimit(cfg)), string(result.CodeNestedToolFailed), nil), true
	}
	return tooDeepResult(reqID, value) // depth.go
}
