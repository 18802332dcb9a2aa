package protocol

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/creachadair/jrpc2/handler"
)

// Stopping a server while requests keep arriving must not panic: jrpc2's own
// Server.Stop races with its read loop ("send on closed channel").
func TestStopWhileRequestsArrive(t *testing.T) {
	for i := 0; i < 200; i++ {
		r, w := io.Pipe()
		_, out := io.Pipe()
		srv, stop := NewServer(handler.Map{"ping": handler.New(func(context.Context) (bool, error) { return true, nil })}, NewChannel(r, out))
		done := make(chan struct{})
		go func() {
			defer close(done)
			for n := 0; ; n++ {
				if _, err := fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", n); err != nil {
					return
				}
			}
		}()
		stop()
		stop() // idempotent
		srv.Wait()
		w.CloseWithError(errors.New("test over"))
		<-done
	}
}

func TestRecvAfterStop(t *testing.T) {
	r, _ := io.Pipe()
	_, out := io.Pipe()
	s := newStoppable(NewChannel(r, out))
	s.stop()
	if _, err := s.Recv(); !errors.Is(err, ErrServerStopped) {
		t.Fatalf("Recv after stop = %v, want ErrServerStopped", err)
	}
}
