package protocol

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/handler"
)

// A peer that writes its replies from its own read loop (a simple adapter
// does) must not deadlock with a server that sends many large callbacks at
// once: jrpc2 holds its lock while it writes, and its read loop needs that
// lock, so a blocked write used to stop the server reading the very replies
// that would unblock the peer. 16 callbacks of about 900 KB each way.
func TestLargeCallbacksDoNotDeadlockAPeerThatRepliesFromItsReadLoop(t *testing.T) {
	const n, size = 16, 900 << 10
	big := strings.Repeat("x", size)
	methods := handler.Map{"fanout": handler.New(func(ctx context.Context) (int, error) {
		srv := jrpc2.ServerFromContext(ctx)
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Go(func() {
				rsp, err := srv.Callback(ctx, MethodToolInvoke, map[string]any{"i": i, "input": big})
				if err == nil {
					var v InvokeResult
					err = rsp.UnmarshalResult(&v)
					if err == nil && len(v.Result) < size {
						err = fmt.Errorf("reply %d has %d bytes", i, len(v.Result))
					}
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				return 0, err
			}
		}
		return n, nil
	})}
	sr, pw := io.Pipe() // peer → server
	pr, sw := io.Pipe() // server → peer
	srv, stop := NewServer(methods, NewChannel(sr, sw))
	defer func() { stop(); pw.Close(); pr.Close(); srv.Wait() }()

	reply := `{"jsonrpc":"2.0","id":%s,"result":{"result":"` + big + `"}}` + "\n"
	done := make(chan string, 1)
	go func() {
		if _, err := io.WriteString(pw, `{"jsonrpc":"2.0","id":1,"method":"fanout"}`+"\n"); err != nil {
			done <- err.Error()
			return
		}
		rd := bufio.NewReaderSize(pr, 1<<20)
		for {
			line, err := rd.ReadBytes('\n')
			if err != nil {
				done <- "peer read: " + err.Error()
				return
			}
			m := PeekEnvelope(line)
			if m.ID == nil {
				done <- "peer decode: no id in " + string(line[:min(len(line), 200)])
				return
			}
			if m.Method == "" { // the answer to fanout
				done <- strings.TrimSpace(string(line))
				return
			}
			if _, err := fmt.Fprintf(pw, reply, m.ID); err != nil { // from the read loop, on purpose
				done <- "peer write: " + err.Error()
				return
			}
		}
	}()
	select {
	case got := <-done:
		if got != `{"jsonrpc":"2.0","id":1,"result":16}` {
			t.Fatalf("fanout answered %.300s; want result 16", got)
		}
	case <-time.After(2 * time.Minute): // generous: under -race on a busy machine it takes 30 s
		t.Fatal("deadlock: no answer to fanout within 2 min (the server stopped reading while its writes were blocked)")
	}
}

// busyServer serves tool.exec calls that block until cleanup and a
// runtime.stats that counts them; it returns a client with busy exec calls
// running.
func busyServer(tb testing.TB, busy int) *jrpc2.Client {
	release := make(chan struct{})
	var mu sync.Mutex
	running := 0
	methods := handler.Map{
		MethodToolExec: handler.New(func(ctx context.Context) (bool, error) {
			mu.Lock()
			running++
			mu.Unlock()
			<-release
			return true, nil
		}),
		MethodRuntimeStats: handler.New(func(ctx context.Context) (Stats, error) {
			mu.Lock()
			defer mu.Unlock()
			return Stats{LiveVMs: running}, nil
		}),
	}
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	srv, stop := NewServer(methods, NewChannel(sr, sw))
	c := NewClient(NewChannel(cr, cw), nil, nil, nil)
	var calls sync.WaitGroup
	tb.Cleanup(func() { close(release); calls.Wait(); c.Close(); stop(); srv.Wait() })
	for range busy {
		calls.Go(func() { _, _ = c.Call(context.Background(), MethodToolExec, nil) })
	}
	for end := time.Now().Add(30 * time.Second); ; {
		mu.Lock()
		n := running
		mu.Unlock()
		if n == busy {
			return c
		}
		if time.Now().After(end) {
			tb.Fatalf("only %d of %d exec handlers started within 30 s: the server caps concurrent handlers", n, busy)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Control requests are served while any number of exec calls are busy
// (spec/protocol.md §1: a slow exec MUST NOT delay other requests). With a
// shared bound of 64 handlers, runtime.stats waited behind 128 spinning
// cells for 28 s.
func TestControlRequestsDoNotWaitBehindBusyCalls(t *testing.T) {
	const busy = 300
	c := busyServer(t, busy)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var s Stats
	if err := c.CallResult(ctx, MethodRuntimeStats, nil, &s); err != nil || s.LiveVMs != busy {
		t.Fatalf("runtime.stats with %d busy exec calls: %+v, %v; want an answer at once", busy, s, err)
	}
}

// BenchmarkStatsWithBusyCalls is the wire's share of control latency under
// load: one runtime.stats round trip while 256 exec calls hold handlers
// (blocked, not spinning: CPU contention from running cells is the
// runtime's, see reference/codemode's admission).
func BenchmarkStatsWithBusyCalls(b *testing.B) {
	c := busyServer(b, 256)
	ctx := context.Background()
	for b.Loop() {
		if err := c.CallResult(ctx, MethodRuntimeStats, nil, &Stats{}); err != nil {
			b.Fatal(err)
		}
	}
}

// An oversized or malformed reply to the target's own tool.invoke fails that
// call with the code of the fault (it is never answered), and the session
// goes on.
func TestBadReplyToACallbackFailsTheCallback(t *testing.T) {
	methods := handler.Map{"call": handler.New(func(ctx context.Context) (string, error) {
		_, err := jrpc2.ServerFromContext(ctx).Callback(ctx, MethodToolInvoke, map[string]any{})
		return fmt.Sprint(int(jrpc2.ErrorCode(err))), nil
	})}
	sr, pw := io.Pipe()
	pr, sw := io.Pipe()
	srv, stop := NewServer(methods, NewLineChannel(sr, sw, 200))
	defer func() { stop(); pw.Close(); pr.Close(); srv.Wait() }()
	rd := bufio.NewReader(pr)
	for i, c := range []struct{ reply, want string }{
		{`{"jsonrpc":"2.0","id":%s,"result":{"result":"` + strings.Repeat("r", 300) + `"}}`, "-32011"},
		{`{"jsonrpc":"2.0","id":%s,"error":"not an object"}`, "-32600"},
		{`{"jsonrpc":"2.0","id":%s,"result":{"result":1},"error":{"code":1,"message":"m"}}`, "-32600"},
	} {
		if _, err := fmt.Fprintf(pw, `{"jsonrpc":"2.0","id":%d,"method":"call"}`+"\n", 100+i); err != nil {
			t.Fatal(err)
		}
		line, err := rd.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var inv struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(line, &inv); err != nil || inv.Method != MethodToolInvoke {
			t.Fatalf("want a tool.invoke, got %s (%v)", line, err)
		}
		if _, err := fmt.Fprintf(pw, c.reply+"\n", inv.ID); err != nil {
			t.Fatal(err)
		}
		line, err = rd.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":"%s"}`, 100+i, c.want)
		if got := strings.TrimSpace(string(line)); got != want {
			t.Errorf("reply %.80s…: the server answered %s, want %s (the callback fails with that code; the reply itself is not answered)", c.reply, got, want)
		}
	}
}
