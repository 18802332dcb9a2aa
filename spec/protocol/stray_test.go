package protocol

import (
	"testing"
	"time"

	"github.com/creachadair/jrpc2/channel"
)

// TestStrayForgetsUnansweredMessageHooks: a message hook's id is forgotten
// once its budget passed, so a late answer is dropped and never reaches
// jrpc2, which would answer it with an error (§1, §4.2); an answer within
// the budget passes.
func TestStrayForgetsUnansweredMessageHooks(t *testing.T) {
	defer func(d time.Duration) { hookForget = d }(hookForget)
	hookForget = 20 * time.Millisecond
	harness, target := channel.Direct()
	f := dropStray(target).(*strayFilter)
	send := func(msg string) {
		t.Helper()
		errc := make(chan error, 1)
		go func() { errc <- f.Send([]byte(msg)) }()
		if _, err := harness.Recv(); err != nil {
			t.Fatal(err)
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"hook.beforeMessageWrite","params":{"run":"r"}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"hook.agentEnd","params":{"run":"r"}}`)
	go func() {
		_ = harness.Send([]byte(`{"jsonrpc":"2.0","id":2,"result":true}`)) // within the budget
	}()
	if got, err := f.Recv(); err != nil || string(got) != `{"jsonrpc":"2.0","id":2,"result":true}` {
		t.Fatalf("an answer within the budget: %s, %v; want it passed on", got, err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		f.mu.Lock()
		_, pending := f.outstanding["1"]
		f.mu.Unlock()
		if !pending {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("an unanswered hook.beforeMessageWrite is still outstanding long after its budget")
		}
	}
	go func() {
		_ = harness.Send([]byte(`{"jsonrpc":"2.0","id":1,"result":{"decision":"write"}}`)) // late
		_ = harness.Send([]byte(`{"jsonrpc":"2.0","id":9,"method":"runtime.stats"}`))
	}()
	if got, err := f.Recv(); err != nil || string(got) != `{"jsonrpc":"2.0","id":9,"method":"runtime.stats"}` {
		t.Fatalf("after a late hook answer the next message read is %s, %v; want the late answer dropped", got, err)
	}
}
