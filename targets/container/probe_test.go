package container

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/onsi/gomega"
)

// listen serves each connection with handle until the test ends.
func listen(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go handle(c)
		}
	}()
	return ln.Addr().String()
}

// The readiness probe tells a listening target (it holds the connection
// open, waiting for the harness to speak) from a port proxy with nothing
// behind it (it accepts and drops the connection), which a plain port check
// takes for ready.
func TestProbe(t *testing.T) {
	g := gomega.NewWithT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	holds := listen(t, func(c net.Conn) { time.Sleep(2 * heldOpen); c.Close() })
	g.Expect(probe(ctx, holds)).To(gomega.Succeed(), "a listener that holds the connection open is ready")

	drops := listen(t, func(c net.Conn) { c.Close() })
	g.Expect(probe(ctx, drops)).To(gomega.MatchError(gomega.ContainSubstring("closed the connection at once")), "a listener that drops the connection is not ready")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	g.Expect(err).NotTo(gomega.HaveOccurred())
	closed := ln.Addr().String()
	ln.Close()
	g.Expect(probe(ctx, closed)).To(gomega.HaveOccurred(), "nothing listening is not ready")
}
