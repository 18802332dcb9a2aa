package codemode

import (
	"encoding/json"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/result"
)

// useVM makes vm the step's VM and routes its output sink to the step: the
// prelude hands every output item to the host as the guest writes it
// (engine.DefineSink), so a cell that a timeout or out of memory ends keeps
// what it wrote before (CM-EXEC-14). The items wait in s.sunk until the next
// poll, or the failure, takes them.
func (s *step) useVM(vm *engine.VM) {
	s.vm = vm
	prelude.UseIndex(vm, s.c.index) // the cell's catalog, kept on the host (issue 28 N3)
	vm.SetSink(func(item string) {
		s.sunkMu.Lock()
		s.sunk = append(s.sunk, json.RawMessage(item))
		s.sunkMu.Unlock()
	})
}

// takeSunk moves the items the sink received into the step's output
// (measured and bounded by takeOutput).
func (s *step) takeSunk() (result.Result, bool) {
	s.sunkMu.Lock()
	items := s.sunk
	s.sunk = nil
	s.sunkMu.Unlock()
	return s.takeOutput(items)
}

// keepSunk is takeSunk for a cell that is failing anyway: the items that
// fit within maxOutputBytes are kept, the rest dropped without a second
// failure.
func (s *step) keepSunk() {
	s.sunkMu.Lock()
	items := s.sunk
	s.sunk = nil
	s.sunkMu.Unlock()
	for _, raw := range items {
		raw = result.WellFormed(raw) // CM-EXEC-21
		var o result.Output
		if json.Unmarshal(raw, &o) != nil || (o.Type != "text" && o.Type != "json") {
			return
		}
		n := outputItemSize(raw)
		if s.outBytes+n > s.c.run.cfg.MaxOutputBytes {
			return
		}
		s.outBytes += n
		s.output = append(s.output, o)
	}
}

// detachSink stops the VM's sink from reaching the step: the VM is closed,
// abandoned or handed to the suspender.
func (s *step) detachSink() {
	if s.vm != nil {
		s.vm.SetSink(nil)
		s.vm.SetQuery(nil)
	}
}
