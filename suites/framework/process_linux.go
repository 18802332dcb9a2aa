package framework

import "syscall"

// killWithHarness makes the target's first process get SIGKILL should the
// harness die without cleaning up (Linux's parent-death signal).
func killWithHarness(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
