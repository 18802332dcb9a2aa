package mcp_test

import (
	"flag"
	"testing"

	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/suites/mcp"
	_ "github.com/codemode-conformance/codemode/targets/builtin" // builtin and fake:* (CODEMODE_TARGET)
)

// update rewrites testdata/*.d.ts from what the target renders instead of
// comparing (make mcp-golden): review the diff before committing it.
var update = flag.Bool("update", false, "write the golden declaration files from the target instead of comparing")

func TestMCP(t *testing.T) {
	mcp.UpdateGolden = *update
	framework.RunSuite(t, "codemode mcp")
}
