package server

import (
	"context"
	"errors"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/handler"
)

// runUpdate serves run.update (feature results; spec/protocol.md §3
// "run.update", CM-RES-03, CM-RES-07): -32601 when the profile does not
// define results, -32602 for bad params, -32001 for an unknown run, -32600
// for a run where code mode is not active.
func runUpdate(rt *codemode.Runtime, ro codemode.Options) handler.Func {
	return handler.New(func(ctx context.Context, p *protocol.UpdateParams) (bool, error) {
		if !ro.HasFeature("results") {
			return false, jrpc2.Errorf(jrpc2.MethodNotFound, "run.update needs the feature results, which profile %s does not define", ro.ProfileName())
		}
		if p == nil || p.Run == "" {
			return false, jrpc2.Errorf(jrpc2.InvalidParams, "run.update: run must be a non-empty string")
		}
		if _, err := p.Operation(); err != nil {
			return false, jrpc2.Errorf(jrpc2.InvalidParams, "%v", err)
		}
		for field, tools := range map[string][]protocol.ToolSpec{"replaceTools": p.ReplaceTools, "attachClientTools": p.AttachClientTools} {
			if err := validateTools(field, tools); err != nil {
				return false, jrpc2.Errorf(jrpc2.InvalidParams, "run.update: %v", err)
			}
		}
		switch err := rt.Update(*p); {
		case errors.Is(err, codemode.ErrUnknownRun):
			return false, unknownRun(p.Run)
		case errors.Is(err, codemode.ErrInactive):
			return false, jrpc2.Errorf(jrpc2.InvalidRequest, "run.update: code mode is not active in run %q", p.Run)
		case err != nil:
			return false, jrpc2.Errorf(jrpc2.InvalidParams, "run.update: %v", err)
		}
		return true, nil
	})
}
