package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/google/go-cmp/cmp"
)

// rawPeer speaks raw lines to a reference session (no engine).
type rawPeer struct {
	t    *testing.T
	w    io.WriteCloser
	rd   *bufio.Reader
	done chan error
}

func newRawPeer(t *testing.T, opts Options) *rawPeer {
	t.Helper()
	hr, tw := io.Pipe()
	tr, hw := io.Pipe()
	p := &rawPeer{t: t, w: hw, rd: bufio.NewReader(hr), done: make(chan error, 1)}
	opts.Unavailable = true
	go func() { p.done <- Serve(context.Background(), tr, tw, opts) }()
	t.Cleanup(func() {
		hw.Close()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			t.Error("the session did not end within 10 s of EOF")
		}
	})
	return p
}

func (p *rawPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.w, line+"\n"); err != nil {
		p.t.Fatalf("write %.100q: %v", line, err)
	}
}

// next reads the next message as a generic map.
func (p *rawPeer) next() map[string]any {
	p.t.Helper()
	line, err := p.rd.ReadString('\n')
	if err != nil {
		p.t.Fatalf("read: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		p.t.Fatalf("the reference wrote a line that is not a JSON object: %q", line)
	}
	return m
}

// errOf is {id, code} of an error response, or nil.
func errOf(m map[string]any) map[string]any {
	e, ok := m["error"].(map[string]any)
	if !ok {
		return nil
	}
	return map[string]any{"id": m["id"], "code": e["code"]}
}

// Every malformed message shape gets the JSON-RPC code for it, with the id
// when it can be read, and the session goes on (spec/protocol.md §1, §4
// "Protocol errors"; issue 11 item 5: `42` got -32700, missing params
// -32001).
func TestMalformedMessagesGetTheirCodes(t *testing.T) {
	p := newRawPeer(t, Options{MaxMessageBytes: 1024})
	long := strings.Repeat("y", 5000) // longer than the 4 KiB head read for the id
	for _, c := range []struct {
		name, line string
		want       map[string]any
	}{
		{"not JSON", `{garbage`, map[string]any{"id": nil, "code": -32700.0}},
		{"empty line", ``, map[string]any{"id": nil, "code": -32700.0}},
		{"a number", `42`, map[string]any{"id": nil, "code": -32600.0}},
		{"a string", `"s"`, map[string]any{"id": nil, "code": -32600.0}},
		{"true", `true`, map[string]any{"id": nil, "code": -32600.0}},
		{"null", `null`, map[string]any{"id": nil, "code": -32600.0}},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"runtime.stats"}]`, map[string]any{"id": nil, "code": -32600.0}},
		{"an empty batch", `[]`, map[string]any{"id": nil, "code": -32600.0}},
		{"jsonrpc a number", `{"jsonrpc":2,"id":3,"method":"runtime.stats"}`, map[string]any{"id": 3.0, "code": -32600.0}},
		{"no jsonrpc", `{"id":4,"method":"runtime.stats"}`, map[string]any{"id": 4.0, "code": -32600.0}},
		{"method a number", `{"jsonrpc":"2.0","id":5,"method":5}`, map[string]any{"id": 5.0, "code": -32600.0}},
		{"id an object", `{"jsonrpc":"2.0","id":{},"method":"runtime.stats"}`, map[string]any{"id": nil, "code": -32600.0}},
		{"params a string", `{"jsonrpc":"2.0","id":6,"method":"runtime.stats","params":"x"}`, map[string]any{"id": 6.0, "code": -32600.0}},
		{"an unknown member", `{"jsonrpc":"2.0","id":7,"method":"runtime.stats","extra":1}`, map[string]any{"id": 7.0, "code": -32600.0}},
		{"method and result", `{"jsonrpc":"2.0","id":8,"method":"runtime.stats","result":1}`, map[string]any{"id": 8.0, "code": -32600.0}},
		{"exec without params", `{"jsonrpc":"2.0","id":9,"method":"tool.exec"}`, map[string]any{"id": 9.0, "code": -32602.0}},
		{"exec with run null", `{"jsonrpc":"2.0","id":10,"method":"tool.exec","params":{"run":null,"toolCallId":"c","input":{}}}`, map[string]any{"id": 10.0, "code": -32602.0}},
		{"wait with run a number", `{"jsonrpc":"2.0","id":11,"method":"tool.wait","params":{"run":5}}`, map[string]any{"id": 11.0, "code": -32602.0}},
		{"end without params", `{"jsonrpc":"2.0","id":12,"method":"run.end"}`, map[string]any{"id": 12.0, "code": -32602.0}},
		{"abort of an unknown run", `{"jsonrpc":"2.0","id":13,"method":"run.abort","params":{"run":"nope"}}`, map[string]any{"id": 13.0, "code": -32001.0}},
		{"rpc.serverInfo", `{"jsonrpc":"2.0","id":14,"method":"rpc.serverInfo"}`, map[string]any{"id": 14.0, "code": -32601.0}},
		{"an unknown method", `{"jsonrpc":"2.0","id":15,"method":"agent.turns","params":{}}`, map[string]any{"id": 15.0, "code": -32601.0}},
		{"agent.turn without a run", `{"jsonrpc":"2.0","id":18,"method":"agent.turn","params":{}}`, map[string]any{"id": 18.0, "code": -32602.0}},
		{"too large, id first", `{"jsonrpc":"2.0","id":16,"method":"tool.exec","params":{"code":"` + long + `"}}`, map[string]any{"id": 16.0, "code": -32011.0}},
		{"too large, id last", `{"jsonrpc":"2.0","method":"tool.exec","params":{"code":"` + long + `"},"id":17}`, map[string]any{"id": nil, "code": -32011.0}},
	} {
		p.send(c.line)
		got := p.next()
		if diff := cmp.Diff(c.want, errOf(got)); diff != "" {
			t.Errorf("%s: %.200s\nanswer %v\n(-want +got):\n%s", c.name, c.line, got, diff)
		}
	}
	// A malformed response and one with a null id answer nothing; the
	// session still serves.
	p.send(`{"jsonrpc":"2.0","id":99,"error":"nope"}`)
	p.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`)
	p.send(`{"jsonrpc":"2.0","id":100,"method":"runtime.stats"}`)
	if got := p.next(); got["id"] != 100.0 || got["result"] == nil {
		t.Errorf("runtime.stats after the malformed messages: %v; want its result (responses are never answered)", got)
	}
}

// The oversized answer carries the bound and the size, so a peer can tell
// what to change.
func TestMessageTooLargeSaysLimitAndSize(t *testing.T) {
	p := newRawPeer(t, Options{MaxMessageBytes: 100})
	line := `{"jsonrpc":"2.0","id":1,"method":"runtime.stats","params":{"pad":"` + strings.Repeat("z", 200) + `"}}`
	p.send(line)
	got := p.next()
	e, _ := got["error"].(map[string]any)
	want := map[string]any{"limit": 100.0, "size": float64(len(line))}
	if e == nil || e["code"] != float64(protocol.ErrMessageTooLarge) || got["id"] != 1.0 || cmp.Diff(want, e["data"]) != "" ||
		!strings.Contains(e["message"].(string), fmt.Sprintf("%d bytes", len(line))) {
		t.Errorf("answer to a %d-byte message over a 100-byte bound: %v; want code -32011, id 1, data %v", len(line), got, want)
	}
}

// unterminated is a reader of n bytes of 'a' (no newline) and then tail,
// which samples the Go runtime's memory every 16 MiB (peak kept).
type unterminated struct {
	left  int64
	tail  io.Reader
	block []byte
	read  int64
	peak  uint64
}

func goMemory() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() - s[1].Value.Uint64()
}

func (u *unterminated) Read(p []byte) (int, error) {
	if u.left == 0 {
		return u.tail.Read(p)
	}
	n := copy(p, u.block[:min(int64(len(u.block)), u.left)])
	u.left -= int64(n)
	if u.read/(16<<20) != (u.read+int64(n))/(16<<20) {
		u.peak = max(u.peak, goMemory())
	}
	u.read += int64(n)
	return n, nil
}

// A session that receives a 1 GiB line with no newline stays under 100 MB
// of extra memory, answers it with -32011 and then serves the next request
// (a 256 MB line held 547 MB, 1.07 GB after its newline: issue 11).
func TestOneGiBLineLeavesTheSessionBoundedAndUsable(t *testing.T) {
	runtime.GC()
	base := goMemory()
	ctx, cancel := context.WithCancel(context.Background())
	ctxDone := ctx.Done()
	in := &unterminated{left: 1 << 30, block: []byte(strings.Repeat("a", 64<<10)),
		tail: io.MultiReader(strings.NewReader("\n"+`{"jsonrpc":"2.0","id":2,"method":"runtime.stats"}`+"\n"), openUntil(ctxDone))}
	out, tw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, in, tw, Options{Unavailable: true}) }()
	defer func() { cancel(); out.Close(); <-done }()
	rd := bufio.NewReader(out)
	var got []string
	for range 2 {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v (so far %q)", err, got)
		}
		got = append(got, strings.TrimSpace(line))
	}
	if !strings.Contains(got[0], `"id":null,"error":{"code":-32011`) || !strings.Contains(got[0], `"size":1073741824`) {
		t.Errorf("answer to the 1 GiB line: %s; want -32011 with id null and size 1073741824", got[0])
	}
	if !strings.HasPrefix(got[1], `{"jsonrpc":"2.0","id":2,"result":{`) {
		t.Errorf("answer to the runtime.stats after it: %s; want its result", got[1])
	}
	if in.peak > base+100<<20 {
		t.Errorf("the Go runtime grew from %d to %d MB while the session read a 1 GiB line: more than 100 MB", base>>20, in.peak>>20)
	}
	t.Logf("1 GiB line: Go memory %d → peak %d MB", base>>20, in.peak>>20)
}

// openUntil is a stream the peer keeps open (no EOF) until done is closed.
type openUntil <-chan struct{}

func (o openUntil) Read([]byte) (int, error) { <-o; return 0, io.EOF }

// The reference never sends a tool.invoke over the maximum message size
// (the harness would count it as a fault): the nested call fails with a tool
// error that says why, and nothing is written.
func TestOversizedNestedCallIsNotSent(t *testing.T) {
	inv := &invoker{max: 1000} // no server: sending would panic
	_, err := inv.Invoke(context.Background(), protocol.InvokeParams{Run: "r", Input: json.RawMessage(`"` + strings.Repeat("i", 2000) + `"`)})
	if err == nil || !strings.Contains(err.Error(), "over the maximum message size of 1000 bytes") {
		t.Fatalf("Invoke of a 2 KB input over a 1000-byte bound: %v; want a tool error naming the bound", err)
	}
}
