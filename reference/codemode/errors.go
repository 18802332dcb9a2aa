package codemode

import (
	"strings"

	"github.com/codemode-conformance/codemode/spec/result"
)

// engineFault is the result of an engine failure that is neither the
// deadline, an abort nor out of memory: a wasm trap or another crash of the
// engine itself. It is reported as what it is, internal_error, never as a
// guest error such as a RangeError (CM-EXEC-23).
func engineFault(err error) result.Result {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return result.Failed(result.CodeInternalError,
		"internal error: the JavaScript engine crashed ("+msg+"); this is a fault of the runtime, not of the guest code, and the cell was ended")
}
