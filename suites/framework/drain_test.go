package framework

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/onsi/gomega"
)

// answerThenClose is an in-process target that answers its first request
// with {"ok":true} and closes its side of the connection in the same breath:
// the pattern that lost the answer to jrpc2's delivery race (drainOnEnd).
func answerThenClose(_ context.Context, r io.Reader, w io.WriteCloser) error {
	line, err := bufio.NewReader(r).ReadBytes('\n')
	if err != nil {
		return err
	}
	env := protocol.PeekEnvelope(line)
	_, err = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"ok":true}}`+"\n", env.ID)
	w.Close()
	return err
}

// callOnce dials ep, sends one runtime.stats-shaped call and returns its
// error (nil when the answer arrived).
func callOnce(t *testing.T, ep Endpoint) error {
	tgt, err := dial("drain", ep, &syncBuffer{})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer tgt.abandon()
	defer func() { _ = tgt.stop(false) }()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out struct {
		OK bool `json:"ok"`
	}
	if err := tgt.client.CallResult(ctx, protocol.MethodRuntimeStats, nil, &out); err != nil {
		return err
	}
	if !out.OK {
		return fmt.Errorf("answer decoded without ok: %+v", out)
	}
	return nil
}

// An answer written just before the target closes its connection reaches
// its call, every time (issue 27: it was lost about 2 times in 100).
func TestAnswerBeforeCloseIsNeverLost(t *testing.T) {
	g := gomega.NewWithT(t)
	const n = 1000
	lost := 0
	var first error
	for i := 0; i < n; i++ {
		if err := callOnce(t, Endpoint{Serve: answerThenClose}); err != nil {
			lost++
			if first == nil {
				first = err
			}
		}
	}
	g.Expect(lost).To(gomega.BeZero(), "answers lost in %d of %d close-after-answer connections; first: %v", lost, n, first)
}

// helperEnv makes the test binary act as a target process that answers one
// request and exits (TestAnswerThenExitProcess).
const helperEnv = "CODEMODE_FRAMEWORK_ANSWER_AND_EXIT"

// A real process that answers and exits at once: its answer reaches the
// call.
func TestAnswerThenExitProcess(t *testing.T) {
	if os.Getenv(helperEnv) == "1" {
		_ = answerThenClose(context.Background(), os.Stdin, os.Stdout)
		os.Exit(0)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The helper runs only this test, so it acts as the target at once.
	cmd := fmt.Sprintf("env %s=1 %s -test.run=^TestAnswerThenExitProcess$", helperEnv, exe)
	g := gomega.NewWithT(t)
	for i := 0; i < 20; i++ {
		err := callOnce(t, Endpoint{Command: cmd})
		g.Expect(err).NotTo(gomega.HaveOccurred(), "run %d: the process's answer must reach the call before its exit is seen", i)
	}
}

// drainOnEnd counts exactly the responses: requests and notifications the
// target sends do not make the end of the stream wait.
func TestDrainCountsResponsesOnly(t *testing.T) {
	g := gomega.NewWithT(t)
	msgs := []string{
		`{"jsonrpc":"2.0","id":7,"method":"tool.invoke","params":{}}`,
		`{"jsonrpc":"2.0","method":"tool.cancel","params":{}}`,
	}
	d := newDrainOnEnd(fakeRecv(msgs))
	for range msgs {
		_, err := d.Recv()
		g.Expect(err).NotTo(gomega.HaveOccurred(), "a request or notification is read")
	}
	start := time.Now()
	_, err := d.Recv()
	g.Expect(err).To(gomega.MatchError(io.EOF), "the end of the stream is returned")
	g.Expect(time.Since(start)).To(gomega.BeNumerically("<", drainGrace), "no response was read, so nothing was waited for")
}

// fakeRecv is a channel whose Recv returns msgs, then io.EOF.
type fakeRecvChannel struct{ msgs []string }

func fakeRecv(msgs []string) *fakeRecvChannel { return &fakeRecvChannel{msgs: msgs} }

func (f *fakeRecvChannel) Send([]byte) error { return nil }
func (f *fakeRecvChannel) Close() error      { return nil }
func (f *fakeRecvChannel) Recv() ([]byte, error) {
	if len(f.msgs) == 0 {
		return nil, io.EOF
	}
	m := f.msgs[0]
	f.msgs = f.msgs[1:]
	return []byte(m), nil
}
