package mcp_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	fakemcp "github.com/codemode-conformance/codemode/fakes/mcp"
)

// TestMain lets the test binary serve as a fake stdio MCP server when it is
// re-executed by StdioLaunch (the same hook the harness binaries use).
func TestMain(m *testing.M) {
	fakemcp.ServeFromEnv()
	m.Run()
}

func TestFakeMCP(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "fake MCP servers")
}
