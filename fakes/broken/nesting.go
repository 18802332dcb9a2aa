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
// hooks, executionMode ordered per cell only, a slot refilled before the
// guest's continuation ran, a queued timer's delay counted from setTimeout.
func init() {
	Variants = append(Variants,
		Variant{Name: "hook-skips-mcp", Breaks: "CM-NEST-02", Spec: "MCP tool call",
			Defect: "MCP.<server>.<tool>() calls bypass the before_tool_call hook: only tools.call is shown to it",
			Serve: gated(func() func(codemode.Gatekeeper) codemode.Gatekeeper {
				return func(g codemode.Gatekeeper) codemode.Gatekeeper { return mcpUnhooked{g} }
			})},
		Variant{Name: "cell-local-order", Breaks: "CM-NEST-12", Profile: "v2",
			Defect: "executionMode orders calls within a cell only: a later cell's sequential call overlaps a call still in flight in a cell parked in wait",
			Serve:  withDefects(codemode.Defects{CellLocalOrder: true})},
		Variant{Name: "refill-before-continuation", Breaks: "CM-NEST-15", Spec: "continuation of the call that frees a slot", Profile: "v2",
			Defect: "a freed slot is refilled from the queue as soon as a result arrives, before the guest has run the continuation of the call that freed it",
			Serve:  withDefects(codemode.Defects{RefillFirst: true})},
		Variant{Name: "timer-delay-from-call", Breaks: "CM-NEST-13", Spec: "measured from when it gets a slot", Profile: "v2",
			Defect: "a queued guest timer's delay runs from the setTimeout call, so it fires as soon as it gets a slot when its delay passed while it was queued",
			Serve:  withDefects(codemode.Defects{TimerFromCall: true})},
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

// withDefects serves the reference under v2 with the scheduling defects d.
func withDefects(d codemode.Defects) serveFunc { return withDefectsUnder("v2", d) }

// withDefectsUnder serves the reference under profile ("" is v1) with the
// defects d.
func withDefectsUnder(profile string, d codemode.Defects) serveFunc {
	return func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
		return server.Serve(ctx, r, w, server.Options{Engine: eng, Runtime: codemode.Options{Profile: profile, Defects: d}})
	}
}
