package main

import (
	"io"
	"regexp"
	"sync"
)

// console is stdout as shared by Ginkgo's default reporter
// (formatter.ColorableStdOut) and the harness's own lines. It remembers
// whether the last byte written ended a line, so that each harness line
// starts on its own line (Ginkgo's succinct header "… - 70/71 specs " and
// its closing " SUCCESS! …" end without a newline). With dropDenoters it
// swallows the succinct per-spec denoters Ginkgo writes for a passing spec
// (a bare "•", possibly coloured): the harness prints a progress line per
// spec instead. Anything else Ginkgo writes passes through unchanged.
type console struct {
	mu           sync.Mutex
	w            io.Writer
	bol          bool // at the beginning of a line
	dropDenoters bool
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dropDenoters && ansi.ReplaceAllString(string(p), "") == "•" {
		return len(p), nil
	}
	return c.write(p)
}

func (c *console) write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, err := c.w.Write(p)
	if n > 0 {
		c.bol = p[n-1] == '\n'
	}
	return n, err
}

// Print writes s, starting on a new line if the cursor is not at the start
// of one.
func (c *console) Print(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.bol && s != "" && s[0] != '\n' {
		c.write([]byte("\n"))
	}
	c.write([]byte(s))
}
