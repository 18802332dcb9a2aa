package broken

import (
	"context"
	"io"
	"strings"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
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
		Variant{Name: "cell-local-order", Breaks: "CM-NEST-12", Profile: "v2",
			Defect: "executionMode orders calls within a cell only: a later cell's sequential call overlaps a call still in flight in a cell parked in wait",
			Serve:  cellLocalOrder},
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

// cellLocalOrder serves the reference under v2 with executionMode ordered
// per cell only.
func cellLocalOrder(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
	return server.Serve(ctx, r, w, server.Options{Engine: eng, Runtime: codemode.Options{Profile: "v2", CellLocalOrder: true}})
}
