//go:build !linux

package mcp

import "os/exec"

// dieWithParent does nothing where the kernel has no parent-death signal;
// run.end, run.abort and shutdown still stop every child (§5.6).
func dieWithParent(*exec.Cmd) {}
