package framework

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/onsi/gomega"
)

func withInitializeTimeout(t *testing.T, d time.Duration) {
	old := Timeouts.Initialize
	Timeouts.Initialize = d
	t.Cleanup(func() { Timeouts.Initialize = old })
}

// Adapter bugs get errors that say what happened, not a bare "context canceled".
func TestConnectExplainsBrokenTargets(t *testing.T) {
	withInitializeTimeout(t, 2*time.Second)
	for _, c := range []struct{ target, want string }{
		{"exec:sh -c 'exit 3'", "exit status 3"},
		{"exec:sh -c 'echo starting up; sleep 30'", `non-protocol lines to stdout (stdout must carry only JSON-RPC lines; log to stderr): ["starting up"]`},
		{"exec:sh -c 'sleep 30'", "no answer within 2s"},
		{"exec:sh -c 'echo oops >&2; exit 1'", "target stderr:\noops"},
		{`exec:sh -c 'read l; echo "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}"; sleep 30'`, "must echo the request id exactly"},
		{`exec:sh -c 'printf "{\"jsonrpc\""; sleep 30'`, "unterminated line"},
	} {
		_, err := Connect(context.Background(), c.target)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Connect(%s) = %v, want an error containing %q", c.target, err, c.want)
		}
	}
}

// Closing an exec: target stops its whole process group, even children that
// ignore stdin (a `go run` wrapper's binary, a background job).
func TestCloseKillsTheProcessGroup(t *testing.T) {
	withInitializeTimeout(t, time.Second)
	const marker = "987654"
	_, err := Connect(context.Background(), "exec:sh -c 'sleep "+marker+" & sleep "+marker+"'")
	if err == nil {
		t.Fatal("a target that never answers initialize connected")
	}
	if out, err := exec.Command("pgrep", "-f", "sleep "+marker).Output(); err == nil {
		t.Fatalf("processes of the closed target still run: %s", out)
	}
}

// A target that dies while a child of it still holds stdout is noticed as a
// crash (exit status reported), not waited on until the call times out.
func TestCrashWithAChildHoldingStdout(t *testing.T) {
	init := `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"1","implementation":{"name":"fake","version":"0"},"features":[]}}`
	script := "read l; echo '" + init + "'; (sleep 30 &); read l2; echo 'panic: boom' >&2; exit 2"
	file := t.TempDir() + "/target.sh"
	if err := os.WriteFile(file, []byte(script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tg, err := Connect(context.Background(), "exec:sh "+file)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer tg.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = tg.Stats(ctx)
	if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "exit status 2") || !strings.Contains(err.Error(), "panic: boom") {
		t.Fatalf("stats on a crashed target = %v (context: %v); want a closed connection naming exit status 2 and the stderr tail", err, ctx.Err())
	}
}

// initLine is a minimal answer to the harness's initialize (request id 1).
const initLine = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"1","implementation":{"name":"fake","version":"0"},"features":[]}}`

// fakeTarget writes a shell target to a file and returns its exec: spec.
func fakeTarget(t *testing.T, script string) string {
	file := t.TempDir() + "/target.sh"
	if err := os.WriteFile(file, []byte(script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return "exec:sh " + file
}

// A call that outlives its deadline makes the target unresponsive: the call
// fails with ErrUnresponsive and the whole process group is killed, so the
// next T() connects afresh.
func TestUnresponsiveTargetIsKilled(t *testing.T) {
	g := gomega.NewWithT(t)
	const marker = "876543"
	tg, err := Connect(context.Background(), fakeTarget(t, "read l; echo '"+initLine+"'; sleep "+marker+" & while :; do sleep 1; done"))
	g.Expect(err).NotTo(gomega.HaveOccurred(), "connect")
	defer tg.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = tg.Stats(ctx)
	g.Expect(err).To(gomega.MatchError(ErrUnresponsive), "a call past its deadline")
	g.Expect(err.Error()).To(gomega.ContainSubstring("no answer to runtime.stats within"))
	g.Expect(tg.Alive()).To(gomega.BeFalse(), "an unresponsive target is dropped")
	g.Eventually(func() error { return exec.Command("pgrep", "-f", "sleep "+marker).Run() }).Should(gomega.HaveOccurred(),
		"the process group of the unresponsive target is killed")
}

// A tool.invoke that no guest could have made (here: for a run never
// prepared) is answered with a tool error and recorded for the running spec,
// judged as it arrives on the wire.
func TestForgedInvokeIsRefusedAndRecorded(t *testing.T) {
	g := gomega.NewWithT(t)
	forged := `{"jsonrpc":"2.0","id":7,"method":"tool.invoke","params":{"run":"ghost","toolCallId":"x1","parentToolCallId":"p1","catalogId":"openclaw:core:echo","tool":"echo","source":"openclaw","owner":"core","input":{},"context":{"agentId":"a","sessionId":"s","sessionKey":"k","senderId":"u","channel":"c"}}}`
	answer := t.TempDir() + "/answer"
	_, _ = refusals.take()
	tg, err := Connect(context.Background(), fakeTarget(t, "read l; echo '"+initLine+"'; echo '"+forged+"'; read a; echo \"$a\" > "+answer+"; read end"))
	g.Expect(err).NotTo(gomega.HaveOccurred(), "connect")
	defer tg.Close()
	g.Eventually(func() string { b, _ := os.ReadFile(answer); return string(b) }).WithTimeout(10*time.Second).
		Should(gomega.ContainSubstring(`"code":-32010`), "the target gets a tool error")
	list, more := refusals.take()
	g.Expect(more).To(gomega.Equal(0))
	g.Expect(list).To(gomega.HaveLen(1), "the refusal is charged to the running spec")
	g.Expect(list[0].Reason).To(gomega.Equal(`no run "ghost" was prepared on this connection`))
	g.Expect(refusalFailure(list, 0)).To(gomega.ContainSubstring(`[CM-ACT-05, CM-SEC-05] tool.invoke of tool "echo" (run "ghost", toolCallId "x1", parentToolCallId "p1") refused`))
}

// KillTargets kills every exec: target's process group at once, even one
// that ignores SIGTERM and end of input, and no target starts after it.
func TestKillTargets(t *testing.T) {
	g := gomega.NewWithT(t)
	const marker = "765432"
	tg, err := Connect(context.Background(), fakeTarget(t, "trap '' TERM; read l; echo '"+initLine+"'; sleep "+marker+" & while :; do sleep 1; done"))
	g.Expect(err).NotTo(gomega.HaveOccurred(), "connect")
	defer func() { stopping.Store(false) }()
	KillTargets()
	g.Eventually(tg.Alive).Should(gomega.BeFalse(), "the connection closes once the target is killed")
	g.Eventually(func() error { return exec.Command("pgrep", "-f", "sleep "+marker).Run() }).Should(gomega.HaveOccurred(),
		"no process of the target's group survives")
	_, err = Connect(context.Background(), "exec:true")
	g.Expect(err).To(gomega.MatchError(ErrStopping), "no target starts after KillTargets")
	tg.Close()
}

// Every exec: target process gets its own random canary in its environment
// (CM-TEL-02 searches telemetry for it).
func TestSpawnSetsAFreshCanary(t *testing.T) {
	g := gomega.NewWithT(t)
	seen := map[string]bool{}
	for range 2 {
		p, err := spawn(`sh -c 'printf "%s\n" "$`+CanaryEnv+`"'`, &syncBuffer{})
		g.Expect(err).NotTo(gomega.HaveOccurred(), "spawning a shell")
		line, err := bufio.NewReader(p.stdout).ReadString('\n')
		g.Expect(err).NotTo(gomega.HaveOccurred(), "the shell prints the canary")
		g.Expect(strings.TrimSpace(line)).To(gomega.Equal(p.canary), "the target's %s must be the canary the harness remembers", CanaryEnv)
		g.Expect(p.canary).To(gomega.MatchRegexp(`^canary-[0-9a-f]{32}$`), "a canary is random hex")
		seen[p.canary] = true
		g.Expect(p.close(time.Second)).To(gomega.Succeed(), "the shell exits")
	}
	g.Expect(seen).To(gomega.HaveLen(2), "each spawn gets a fresh canary")
}

// A call whose deadline passed before it was sent says so, not "no answer
// within 0s".
func TestCallPastItsDeadlineSaysSo(t *testing.T) {
	g := gomega.NewWithT(t)
	tg, err := Connect(context.Background(), fakeTarget(t, "read l; echo '"+initLine+"'; while :; do sleep 1; done"))
	g.Expect(err).NotTo(gomega.HaveOccurred(), "connect")
	defer tg.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	_, err = tg.Stats(ctx)
	g.Expect(err).To(gomega.MatchError(ErrUnresponsive), "a call past its deadline")
	g.Expect(err.Error()).To(gomega.ContainSubstring("no answer to runtime.stats: its deadline had already passed when it was sent"))
}

// A target that floods the harness with refused invokes is abandoned after
// maxFloodRefusals of them, and the running spec is told why.
func TestFloodingTargetIsAbandoned(t *testing.T) {
	g := gomega.NewWithT(t)
	_ = refusals.takeFlood()
	forged := `{"jsonrpc":"2.0","id":"f%d","method":"tool.invoke","params":{"run":"ghost","toolCallId":"x%d","parentToolCallId":"p1","catalogId":"openclaw:core:echo","tool":"echo","source":"openclaw","owner":"core","input":{},"context":{}}}\n`
	tg, err := Connect(context.Background(), fakeTarget(t, fmt.Sprintf("read l; echo '%s'; i=0; while [ $i -lt %d ]; do i=$((i+1)); printf '%s' $i $i; done; while :; do sleep 1; done",
		initLine, 3*maxFloodRefusals, forged)))
	g.Expect(err).NotTo(gomega.HaveOccurred(), "connect")
	defer tg.Close()
	g.Eventually(tg.Alive).WithTimeout(30*time.Second).Should(gomega.BeFalse(), "the flooding target is abandoned")
	g.Expect(refusals.takeFlood()).To(gomega.Equal(floodReason), "the running spec fails with the flood")
	_, _ = refusals.take()
	_, err = tg.Stats(context.Background())
	g.Expect(err).To(gomega.MatchError(gomega.ContainSubstring("more than 1000 refused tool.invoke calls")), "a later call says why the target is gone")
}

// A forged call written after the shutdown answer is never answered (the
// connection is closing) but still recorded as a refusal.
func TestForgedInvokeAfterShutdownIsRecorded(t *testing.T) {
	g := gomega.NewWithT(t)
	forged := `{"jsonrpc":"2.0","id":"late","method":"tool.invoke","params":{"run":"ghost","toolCallId":"x9","parentToolCallId":"p1","catalogId":"openclaw:core:echo","tool":"echo","source":"openclaw","owner":"core","input":{},"context":{}}}`
	_, _ = refusals.take()
	tg, err := Connect(context.Background(), fakeTarget(t, "read l; echo '"+initLine+"'; read s; id=$(echo \"$s\" | sed 's/.*\"id\":\\([0-9]*\\).*/\\1/'); "+
		"echo '{\"jsonrpc\":\"2.0\",\"id\":'$id',\"result\":null}'; echo '"+forged+"'"))
	g.Expect(err).NotTo(gomega.HaveOccurred(), "connect")
	g.Expect(tg.Close()).To(gomega.Succeed())
	list, _ := refusals.take()
	g.Expect(list).To(gomega.ContainElement(gomega.HaveField("ToolCallID", "x9")), "the refusal is recorded after the connection closed")
}
