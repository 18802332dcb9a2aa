package framework

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
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
