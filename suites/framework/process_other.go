//go:build !linux

package framework

import "syscall"

// killWithHarness does nothing where there is no parent-death signal
// (darwin): a harness killed with SIGKILL leaves its target's process
// group running; SIGINT/SIGTERM still stop it (watchSignals).
func killWithHarness(*syscall.SysProcAttr) {}
