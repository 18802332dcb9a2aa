package main

import (
	"os"
	"path/filepath"

	"github.com/codemode-conformance/codemode/suites/framework"
)

// protocolVerdict applies --validate-protocol: the first message that broke
// its schema is printed and written to protocol-violation.txt in the
// results directory, and the exit status becomes 1.
func protocolVerdict(code int, con *console) int {
	if !framework.ValidateProtocol {
		return code
	}
	v := framework.ProtocolViolation()
	if v == "" {
		con.Print("codemode-conformance: --validate-protocol: every message the target sent matched spec/schema")
		return code
	}
	con.Print("codemode-conformance: --validate-protocol: first violation: " + v)
	_ = os.WriteFile(filepath.Join(resultsDir, "protocol-violation.txt"), []byte(v+"\n"), 0o644)
	return 1
}
