package codemode

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync/atomic"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Untrusted content (feature untrusted-content, page 001 "嵌套工具执行";
// spec/protocol.md §4.3). A cell that saw network-controlled content is
// marked for good: every later result of it, across suspension and resume,
// carries networkContent (CM-NEST-20), and what it saves or stores keeps
// that provenance for the cells that load it (CM-RES-08, CM-STO-11). Nothing
// is ever unwrapped: a network tool's value reaches the guest as the tool
// returned it, its error as OpenClaw's protected error.

// networkMark is a cell's "saw network-controlled content" flag. It lives on
// the host with the cell, so a snapshot does not lose it.
type networkMark struct{ seen atomic.Bool }

func (m *networkMark) observe()    { m.seen.Store(true) }
func (m *networkMark) taken() bool { return m.seen.Load() }

// networkControlled reports whether nested calls of spec carry untrusted
// content: its resultContentSource is network and the profile has the
// feature.
func (s *step) networkControlled(spec protocol.ToolSpec) bool {
	return spec.ResultContentSource == protocol.ContentSourceNetwork && s.rt.opts.HasFeature("untrusted-content")
}

// invokeNetwork runs a network-controlled call that passed its gates: the
// cell is marked before the tool runs (as OpenClaw counts a network
// invocation from its start), and a tool error becomes the protected error
// of protocol.ProtectNetworkError, without its data (OpenClaw:
// protectNetworkToolExecutionError keeps no cause). A cancellation is the
// host's own and stays as it is.
func (s *step) invokeNetwork(ctx context.Context, p protocol.InvokeParams) (v json.RawMessage, err error) {
	s.c.network.observe()
	v, err = s.rt.inv.Invoke(ctx, p)
	if err == nil || ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return v, err
	}
	return nil, &ToolError{Message: protocol.ProtectNetworkError(err.Error(), markerID())}
}

// markerID is a fresh wrapper marker id: 8 random bytes in hex.
func markerID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
