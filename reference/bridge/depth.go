package bridge

import (
	"fmt"

	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/result"
)

// MaxBridgeDepth is how deeply arrays and objects may nest in a value that
// crosses the bridge, in either direction: a nested tool input, a tool
// result for the guest, the cell's value and its output (spec/protocol.md
// §4, "Bridge value depth"; CM-LIM-04, CM-LIM-10). `[[1]]` is 2 levels. The
// prelude enforces it on guest values (MAX_DEPTH); the host enforces it on
// what it hands to the engine, because QuickJS's JSON.parse recurses on the
// wasm stack and a result nested a few thousand levels deep crashes the VM
// or spins until timeoutMs.
const MaxBridgeDepth = 64

// jsonDepth is the deepest nesting of arrays and objects in the JSON text
// raw, counted without parsing: brackets inside strings do not count. It
// stops counting once the depth passes limit and returns limit+1. Text that
// is not JSON gives a number with no meaning; callers validate it apart.
func jsonDepth(raw []byte, limit int) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, b := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '[' || b == '{':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > limit {
					return limit + 1
				}
			}
		case b == ']' || b == '}':
			depth--
		}
	}
	return deepest
}

// tooDeepInput returns the rejection a nested call gets for an input nested
// deeper than MaxBridgeDepth (no tool.invoke is sent), or over false. The
// prelude refuses such inputs first; this holds against a guest that
// reaches the bridge directly.
func tooDeepInput(reqID int64, input []byte) (d prelude.Delivery, over bool) {
	if jsonDepth(input, MaxBridgeDepth) > MaxBridgeDepth {
		return ErrorDelivery(reqID, "ToolError", fmt.Sprintf("the tool input is nested deeper than the bridge limit of %d levels of arrays and objects; pass flatter data", MaxBridgeDepth),
			string(result.CodeInvalidInput), nil), true
	}
	return prelude.Delivery{}, false
}

// tooDeepResult returns the rejection the guest gets instead of a tool
// result nested deeper than MaxBridgeDepth, or over false: it fails in the
// time of one scan of the text and leaves the VM usable.
func tooDeepResult(reqID int64, value []byte) (d prelude.Delivery, over bool) {
	if jsonDepth(value, MaxBridgeDepth) > MaxBridgeDepth {
		return ErrorDelivery(reqID, "ToolError", fmt.Sprintf("the tool result is nested deeper than the bridge limit of %d levels of arrays and objects; ask the tool for flatter data", MaxBridgeDepth),
			string(result.CodeNestedToolFailed), nil), true
	}
	return prelude.Delivery{}, false
}
