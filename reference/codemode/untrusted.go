package codemode

import (
	"sync/atomic"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Untrusted content (feature untrusted-content, page 001 "嵌套工具执行";
// spec/protocol.md §4.3). A cell that saw network-controlled content is
// marked for good: every later result of it, across suspension and resume,
// carries networkContent (CM-NEST-20), and what it saves or stores keeps
// that provenance for the cells that load it (CM-RES-08, CM-STO-11). Nothing
// is ever unwrapped: a network tool's value and error reach the guest as
// the tool gave them, its own wrapping intact (OpenClaw 2026.9.6 code mode
// runs nested tools with protectNetworkErrors off and wraps the exec result
// instead).

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
