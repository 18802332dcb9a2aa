package framework

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// A raw connection keeps every line in arrival order, classifies junk,
// requests and responses, answers a nested tool.invoke with -32010, and
// reports the target's close.
func TestRawConnKeepsLinesInOrder(t *testing.T) {
	answers := make(chan string, 4)
	UseTargets(func(context.Context, string, OpenOptions) (Endpoint, error) {
		return Endpoint{Serve: func(_ context.Context, r io.Reader, w io.WriteCloser) error {
			defer w.Close()
			sc := bufio.NewScanner(r)
			for sc.Scan() {
				var m struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				_ = json.Unmarshal(sc.Bytes(), &m)
				if m.Method == "" { // the harness's answer to our tool.invoke
					answers <- sc.Text()
					continue
				}
				_, _ = io.WriteString(w, "not json\n"+`{"jsonrpc":"2.0","id":9,"method":"tool.invoke","params":{}}`+"\n"+
					`{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"ok":true}}`+"\n")
				if m.Method == "bye" {
					return nil
				}
			}
			return nil
		}}, nil
	})
	defer UseTargets(execOnly)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := dialRaw(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m, err := c.Call(ctx, "ping", nil)
	if err != nil || string(m.Result) != `{"ok":true}` {
		t.Fatalf("Call = %+v, %v; want the result {\"ok\":true}", m, err)
	}
	got := c.Received()
	if len(got) != 3 || !got[0].Junk || got[1].Method != "tool.invoke" || !got[2].IsResponse() || got[2].Seq != 3 || !got[2].HasID(1) {
		t.Fatalf("received %+v; want junk, a tool.invoke, then the response to id 1 as message 3", got)
	}
	select {
	case a := <-answers:
		if !strings.Contains(a, `"id":9`) || !strings.Contains(a, `"code":-32010`) {
			t.Errorf("the tool.invoke was answered %s; want error -32010 for id 9", a)
		}
	case <-ctx.Done():
		t.Fatal("the tool.invoke was never answered")
	}
	if _, err := c.Call(ctx, "bye", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
	case <-ctx.Done():
		t.Fatal("the target's close was never seen")
	}
	if _, err := c.Response(ctx, "never"); err == nil || !strings.Contains(err.Error(), ErrRawClosed.Error()) {
		t.Errorf("waiting after the close = %v; want %v", err, ErrRawClosed)
	}
}
