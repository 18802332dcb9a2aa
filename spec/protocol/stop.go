package protocol

import (
	"errors"
	"sync"

	"github.com/creachadair/jrpc2/channel"
)

// ErrServerStopped is what Recv returns once a server's Stop was called.
var ErrServerStopped = errors.New("protocol: server stopped")

// stoppable makes stopping a jrpc2 server safe. jrpc2 v1.3.6's
// Server.Stop closes the server's work channel while its read loop may
// still be delivering a message it has just received, which panics ("send on
// closed channel"). Stopping through the channel instead makes Recv fail, so
// the read loop stops the server itself.
type stoppable struct {
	channel.Channel
	once sync.Once
	quit chan struct{}
	msgs chan recvd
	read sync.Once
}

type recvd struct {
	msg []byte
	err error
}

func newStoppable(ch channel.Channel) *stoppable {
	return &stoppable{Channel: ch, quit: make(chan struct{}), msgs: make(chan recvd)}
}

// Recv returns the next message, or ErrServerStopped once stop was called.
// The underlying Recv runs in one pump goroutine, which ends when the
// underlying channel fails (its reader is closed).
func (s *stoppable) Recv() ([]byte, error) {
	s.read.Do(func() { go s.pump() })
	select {
	case <-s.quit:
		return nil, ErrServerStopped
	case r := <-s.msgs:
		return r.msg, r.err
	}
}

func (s *stoppable) pump() {
	for {
		msg, err := s.Channel.Recv()
		select {
		case s.msgs <- recvd{msg, err}:
		case <-s.quit:
			return
		}
		if err != nil {
			return
		}
	}
}

// stop makes every later Recv fail; it is safe to call more than once.
func (s *stoppable) stop() { s.once.Do(func() { close(s.quit) }) }
