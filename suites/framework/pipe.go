package framework

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// closedPipe reports whether err is a write to a target that has closed
// its end (EPIPE from a process that exited, a closed in-process pipe or
// connection): the exit status, not this error, says what happened.
func closedPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.ErrClosedPipe) || errors.Is(err, os.ErrClosed)
}
