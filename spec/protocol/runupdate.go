package protocol

import (
	"errors"
	"fmt"
)

// MethodRunUpdate (harness → target, feature results) changes the hidden
// catalog of a prepared, code-mode-active run: a catalog replacement, a
// restriction (permission change) or attaching client tools (spec/protocol.md
// §3 "run.update", CM-RES-03, CM-RES-07). Params UpdateParams; result true.
const MethodRunUpdate = "run.update"

// SurfaceRunUpdate is the notDrivable surface of an adapter that cannot
// reach the implementation's catalog replacement, restriction or client-tool
// attachment (§3 initialize).
const SurfaceRunUpdate = "run.update"

// Update operations (UpdateParams.Operation).
const (
	UpdateReplace  = "replaceTools"
	UpdateRestrict = "restrictTo"
	UpdateAttach   = "attachClientTools"
)

// ErrUpdateOperation: run.update params name no operation, or more than one
// (-32602).
var ErrUpdateOperation = errors.New("run.update takes exactly one of replaceTools, restrictTo and attachClientTools")

// UpdateParams are run.update's params: Run and exactly one operation. A nil
// slice is an absent member; an empty non-nil one is present (replacing the
// catalog by no tools, or restricting it to none), hence omitzero.
type UpdateParams struct {
	Run string `json:"run"`
	// ReplaceTools: catalog replacement. The run's harness tools become
	// these; the old results store is cleared and later cells get a new one.
	ReplaceTools []ToolSpec `json:"replaceTools,omitzero"`
	// RestrictTo: a permission change. The catalog keeps the entries whose
	// tool name is listed; when that removes one, the results store is
	// cleared and later cells get a new one.
	RestrictTo []string `json:"restrictTo,omitzero"`
	// AttachClientTools: client tools (source "client") join the catalog;
	// the results store is kept, parked cells included.
	AttachClientTools []ToolSpec `json:"attachClientTools,omitzero"`
}

// Operation returns the one operation p names (UpdateReplace, UpdateRestrict
// or UpdateAttach), or ErrUpdateOperation. It also refuses an attached tool
// whose source is not client and a directOnly tool.
func (p UpdateParams) Operation() (string, error) {
	var ops []string
	if p.ReplaceTools != nil {
		ops = append(ops, UpdateReplace)
	}
	if p.RestrictTo != nil {
		ops = append(ops, UpdateRestrict)
	}
	if p.AttachClientTools != nil {
		ops = append(ops, UpdateAttach)
	}
	if len(ops) != 1 {
		return "", fmt.Errorf("%w (got %d: %v)", ErrUpdateOperation, len(ops), ops)
	}
	for i, t := range append(append([]ToolSpec(nil), p.ReplaceTools...), p.AttachClientTools...) {
		if t.DirectOnly {
			return "", fmt.Errorf("%s[%d] (%s): a directOnly tool cannot join the catalog through run.update", ops[0], i, t.Name)
		}
	}
	for i, t := range p.AttachClientTools {
		if t.Source != SourceClient {
			return "", fmt.Errorf("attachClientTools[%d] (%s): source %q is not client", i, t.Name, t.Source)
		}
	}
	return ops[0], nil
}
