package codemode

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

// oversizedInput returns the rejection the guest gets for a nested call whose
// input exceeds the bridge limit or MaxBridgeDepth (no tool.invoke is sent),
// or over false.
func oversizedInput(reqID int64, input json.RawMessage, cfg config.Config) (d prelude.Delivery, over bool) {
	if n := int64(len(input)); n > bridgeLimit(cfg) {
		return errDelivery(reqID, "ToolError", fmt.Sprintf("the tool input (%d bytes of JSON) exceeds the bridge limit of %d bytes (a quarter of memoryLimitBytes); pass less data or a reference to it",
			n, bridgeLimit(cfg)), string(result.CodeInvalidInput), nil), true
	}
	return tooDeepInput(reqID, input) // depth.go
}

// oversizedResult returns the rejection the guest gets instead of a tool
// result that exceeds the bridge limit or MaxBridgeDepth, or over false.
func oversizedResult(reqID int64, value json.RawMessage, cfg config.Config) (d prelude.Delivery, over bool) {
	if n := int64(len(value)); n > bridgeLimit(cfg) {
		return errDelivery(reqID, "ToolError", fmt.Sprintf("the tool result (%d bytes of JSON) exceeds the bridge limit of %d bytes (a quarter of memoryLimitBytes); ask the tool for less data",
			n, bridgeLimit(cfg)), string(result.CodeNestedToolFailed), nil), true
	}
	return tooDeepResult(reqID, value) // depth.go
}
