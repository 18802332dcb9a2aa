package mcp

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill cmd when the reference process dies
// (a shutdown or a crash while a server is still connecting must not leave
// an orphan: §5.6).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
