//go:build unix

package container

import (
	"errors"
	"syscall"
)

// gone reports whether no process pid exists here (signal 0 finds none).
func gone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
