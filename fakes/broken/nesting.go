package broken

import (
	"context"
	"strings"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// The nested-call variants of issue 14's leftovers: MCP calls outside the
// hooks, and scheduling that breaks the bridge queue or executionMode.
func init() {
	Variants = append(Variants,
		Variant{Name: "hook-skips-mcp", Breaks: "CM-NEST-02", Spec: "MCP tool call",
			Defect: "MCP.<server>.<tool>() calls bypass the before_tool_call hook: only tools.call is shown to it",
			Serve: gated(func() func(codemode.Gatekeeper) codemode.Gatekeeper {
				return func(g codemode.Gatekeeper) codemode.Gatekeeper { return mcpUnhooked{g} }
			})},
	)
}

// mcpUnhooked allows every nested call of an mcp: catalog id unasked.
type mcpUnhooked struct{ codemode.Gatekeeper }

func (h mcpUnhooked) BeforeToolCall(ctx context.Context, p protocol.HookParams) (protocol.HookResult, error) {
	if strings.HasPrefix(p.CatalogID, "mcp:") {
		return protocol.HookResult{Decision: protocol.HookAllow}, nil
	}
	return h.Gatekeeper.BeforeToolCall(ctx, p)
}
