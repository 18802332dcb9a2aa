package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/onsi/gomega"
)

// namesTheWait is what a timeout caused by waiting says: that the budget
// went to the VM's start or setup, or mostly to waiting; or, for a cell
// whose guest code held its run slot longer than it waited (a loaded
// machine can deschedule a slot's holder), how long it waited and for what.
var namesTheWait = regexp.MustCompile(`^the cell exceeded timeoutMs \(\d+ ms\) (before its VM was (?:created|restored)|while its VM was being set up|` +
	regexp.QuoteMeta(codemode.MsgMostlyWaiting) + `|\(.*\d+ ms (?:waiting for|starting its VM|setting up|booting the session))`)

// Many sessions starting at once (issue 28 N12): 64 sessions of one process
// (serve --listen's shape: one engine) each prepare a run at timeoutMs 100,
// then exec a trivial first cell at the same moment, then a second one at
// the same moment. Their budgets go to waiting (each session's first VM,
// the live-VM admission, the prelude's setup, the process's run slots), not
// to the guest's code, which runs well under a millisecond: any cell that
// times out must say what it waited for (before the change the first cells
// failed "the cell exceeded timeoutMs (1000 ms)", which blames the guest).
// The test asserts on the messages only: how many time out depends on the
// machine's load.
func TestManySessionsAtOnceNameTheWait(t *testing.T) {
	g := gomega.NewWithT(t)
	eng, err := engine.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	const n, rounds = 64, 2
	answers := make([][rounds]answer, n)
	var ready [rounds]sync.WaitGroup
	var start [rounds]chan struct{}
	for k := range rounds {
		ready[k].Add(n)
		start[k] = make(chan struct{})
	}
	var wg sync.WaitGroup
	wg.Add(n)
	for i := range n {
		go func() {
			defer wg.Done()
			answers[i] = cells(eng, i, &ready, start)
		}()
	}
	for k := range rounds {
		ready[k].Wait()
		close(start[k])
	}
	wg.Wait()
	kinds := map[string]int{}
	for i, as := range answers {
		for k, a := range as {
			g.Expect(a.status).To(gomega.BeElementOf("completed", "failed"), "session %d, cell %d: %+v", i, k+1, a)
			if a.status == "completed" {
				kinds["completed"]++
				continue
			}
			g.Expect(a.code).To(gomega.BeElementOf("timeout", "runtime_unavailable"), "session %d, cell %d: a trivial cell fails only by waiting: %+v", i, k+1, a)
			if a.code == "timeout" {
				g.Expect(a.msg).To(gomega.MatchRegexp(namesTheWait.String()), "session %d, cell %d: the budget went to waiting, not to the guest: the message must name the wait", i, k+1)
				kind := namesTheWait.FindStringSubmatch(a.msg)[1]
				if strings.HasPrefix(kind, "(") {
					kind = "guest's timeout, with its waits"
				}
				kinds[kind]++
			}
		}
	}
	t.Logf("%d sessions × %d cells: %v", n, rounds, kinds)
}

// answer is a cell's result: its status, code and error.
type answer struct{ status, code, msg string }

// cells opens a session on eng and prepares a run at timeoutMs 100; then,
// for each round k, it marks ready[k], waits for start[k] and execs a
// trivial cell. It returns the cells' status, code and error.
func cells(eng *engine.Engine, i int, ready *[2]sync.WaitGroup, start [2]chan struct{}) (out [2]answer) {
	hr, tw := io.Pipe()
	tr, hw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), tr, tw, Options{Engine: eng}) }()
	defer func() { hw.Close(); go io.Copy(io.Discard, hr); <-done }()
	sc := bufio.NewScanner(hr)
	sc.Buffer(nil, 1<<20)
	call := func(id int, method string, params any) map[string]any {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := hw.Write(append(b, '\n')); err != nil {
			return map[string]any{"write": err.Error()}
		}
		for sc.Scan() {
			var m map[string]any
			_ = json.Unmarshal(sc.Bytes(), &m)
			if m["id"] == float64(id) {
				return m
			}
		}
		return map[string]any{"read": fmt.Sprint(sc.Err())}
	}
	var marked [2]sync.Once
	defer func() { // a session that failed early still releases the rounds
		for k := range marked {
			marked[k].Do(ready[k].Done)
		}
	}()
	call(1, "initialize", map[string]any{"protocolVersion": "1"})
	run := fmt.Sprint("many-", i)
	call(2, "run.prepare", map[string]any{"run": run, "agentId": "a", "sessionId": run, "sessionKey": run, "senderId": "x", "channel": "c",
		"codeMode": map[string]any{"enabled": true, "timeoutMs": 100},
		"tools":    []any{map[string]any{"name": "echo", "description": "echo", "source": "openclaw", "owner": "core"}}})
	for k := range out {
		marked[k].Do(ready[k].Done)
		<-start[k]
		r := call(3+k, "tool.exec", map[string]any{"run": run, "toolCallId": fmt.Sprint("c", k), "input": map[string]any{"code": `let s = 0; for (let i = 0; i < 100; i++) s += i; return s;`}})
		res, _ := r["result"].(map[string]any)
		if res == nil {
			out[k].status = fmt.Sprint(r)
			continue
		}
		out[k].status, _ = res["status"].(string)
		out[k].code, _ = res["code"].(string)
		out[k].msg, _ = res["error"].(string)
	}
	return out
}
