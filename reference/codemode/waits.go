package codemode

import (
	"fmt"
	"strings"
	"time"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/spec/result"
)

// callWaits is where one exec or wait call's budget (timeoutMs, from when
// the call arrived) went before the guest's code ran, and what the VM's run
// slots had counted then (issue 28 N12): a cell that times out because it
// waited says what it waited for, not that the guest ran too long.
type callWaits struct {
	template  time.Duration // the session's first VM template for this memoryLimitBytes (template.go)
	admission time.Duration // a live VM and its memory (admission.go, membudget.go)
	start     time.Duration // the VM's start from the template, or its restore from a snapshot
	restored  bool          // start was a restore (tool.wait)
	boot      time.Duration // the prelude and the run's catalog booted in the VM
	// At the end of the setup: the VM's run-slot times (engine.VM.SlotTimes).
	setupDone              bool
	slotWaited0, slotHeld0 time.Duration
}

// phase measures one setup phase: call it at the phase's start, and the
// function it returns at its end.
func phase(d *time.Duration) func() {
	t := time.Now()
	return func() { *d += time.Since(t) }
}

// endSetup marks the end of the call's setup: from here, the VM's run-slot
// waits are the guest's waits for a slot, its held time the guest's code.
func (s *step) endSetup() {
	if s.vm == nil || s.waits.setupDone {
		return
	}
	s.waits.setupDone = true
	s.waits.slotWaited0, s.waits.slotHeld0 = s.vm.SlotTimes()
}

// waitNote says where the call's budget went: each setup phase and the run
// slots' waits of at least a millisecond, and how long the guest's code
// ran; waited is the sum of the waits, ran the guest's time (both zero
// before the setup ended).
func (s *step) waitNote() (note string, waited, ran time.Duration) {
	w := s.waits
	var parts []string
	add := func(d time.Duration, what string) {
		waited += d
		if d >= time.Millisecond {
			parts = append(parts, fmt.Sprintf("%d ms %s", d.Milliseconds(), what))
		}
	}
	add(w.template, "booting the session's first VM (once per session and memoryLimitBytes)")
	add(w.admission, "waiting for a live VM (the process's --max-live-vms or --max-memory)")
	if w.restored {
		add(w.start, "restoring its VM from the snapshot")
	} else {
		add(w.start, "starting its VM")
	}
	add(w.boot, "setting up the prelude and the run's catalog in it")
	if w.setupDone && s.vm != nil {
		sw, sh := s.vm.SlotTimes()
		add(sw-w.slotWaited0, fmt.Sprintf("waiting for a run slot (at most %d VMs of the process run at once)", engine.MaxRunning()))
		ran = sh - w.slotHeld0
		parts = append(parts, fmt.Sprintf("its guest code held a run slot %d ms", ran.Milliseconds()))
	}
	return strings.Join(parts, ", "), waited, ran
}

// MsgMostlyWaiting is in the error of a timeout whose budget went mostly
// to waiting rather than to the guest's code.
const MsgMostlyWaiting = "mostly waiting, not running guest code"

// timeout is the failed result of a call whose deadline passed after its
// setup, while the guest's code ran or waited to run: when the call spent
// more of its budget waiting (setup, run slots) than running the guest's
// code, or its deadline came while it waited for a run slot, the error
// says MsgMostlyWaiting; either way it names each wait of a millisecond or
// more and the guest's time (its slot time, which on a loaded machine
// includes time the OS gave to others). Only a call that waited for
// nothing gets the bare "the cell exceeded timeoutMs (N ms)".
func (s *step) timeout() result.Result {
	ms := s.c.run.cfg.TimeoutMs
	note, waited, ran := s.waitNote()
	switch {
	case s.vm != nil && s.vm.StoppedWaiting() || waited > ran:
		return s.limit(result.CodeTimeout, fmt.Sprintf("the cell exceeded timeoutMs (%d ms) %s: %s (the runtime is under load)", ms, MsgMostlyWaiting, note))
	case waited >= time.Millisecond:
		return s.limit(result.CodeTimeout, fmt.Sprintf("the cell exceeded timeoutMs (%d ms) (%s)", ms, note))
	}
	return s.limit(result.CodeTimeout, fmt.Sprintf("the cell exceeded timeoutMs (%d ms)", ms))
}
