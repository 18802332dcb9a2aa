package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// envArgs makes the test binary run main with these serve arguments
// (newline-separated), so the tests exercise the real flag handling.
const envArgs = "CODEMODE_REFERENCE_TEST_ARGS"

func TestMain(m *testing.M) {
	if a := os.Getenv(envArgs); a != "" {
		os.Args = append([]string{"codemode-reference"}, strings.Split(a, "\n")...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func command(env []string, args ...string) *exec.Cmd {
	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	cmd.Env = append(append(os.Environ(), env...), envArgs+"="+strings.Join(args, "\n"))
	return cmd
}

// A non-loopback --listen exits 2 with a message naming what is missing,
// before anything listens (issue 28 N11).
func TestServeRefusesANonLoopbackListen(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(empty, []byte("\n"), 0o600)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--listen", "0.0.0.0:0"}, "--allow-remote"},
		{[]string{"serve", "--listen", ":0"}, "--allow-remote"},
		{[]string{"serve", "--listen", "0.0.0.0:0", "--allow-remote"}, "needs a token"},
		{[]string{"serve", "--listen", "0.0.0.0:0", "--allow-remote", "--token-file", empty}, "first line is empty"},
	} {
		var stderr bytes.Buffer
		cmd := command([]string{"CODEMODE_REFERENCE_TOKEN="}, tc.args...)
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: %v, stderr %q; want exit 2 saying %q", tc.args, err, stderr.String(), tc.want)
		}
	}
}

// With a token set, a loopback --listen serves only the peer whose
// initialize carries it.
func TestServeListenRequiresTheToken(t *testing.T) {
	cmd := command([]string{"CODEMODE_REFERENCE_TOKEN=s3cret"}, "serve", "--listen", "127.0.0.1:0", "--unavailable")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addrs := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := regexp.MustCompile(`listening on (\S+)`).FindStringSubmatch(sc.Text()); m != nil {
				addrs <- m[1]
			}
		}
	}()
	var addr string
	select {
	case addr = <-addrs:
	case <-time.After(30 * time.Second):
		t.Fatal("serve --listen never said where it listens")
	}
	ask := func(token string) map[string]any {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize",
			"params": map[string]any{"protocolVersion": "1", "harness": map[string]string{"name": "t", "version": "0"}, "token": token}})
		conn.Write(append(msg, '\n'))
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		line, err := bufio.NewReader(conn).ReadBytes('\n')
		if err != nil {
			t.Fatalf("no answer to initialize with token %q: %v", token, err)
		}
		var answer map[string]any
		json.Unmarshal(line, &answer)
		return answer
	}
	if a := ask("s3cret"); a["result"] == nil {
		t.Errorf("initialize with the token: %v, want a result", a)
	}
	if a := ask("guess"); a["error"] == nil {
		t.Errorf("initialize with a wrong token: %v, want an error", a)
	}
}

func TestAllowListDefaults(t *testing.T) {
	if got := allowList("", false); got != nil {
		t.Errorf("--stdio, no --mcp-allow: %q, want nil (everything)", got)
	}
	if got := allowList("", true); got == nil || len(got) != 0 {
		t.Errorf("--listen, no --mcp-allow: %#v, want an empty list (nothing)", got)
	}
	if got := allowList(" /opt/mcp/*, http://127.0.0.1:9000/ ,", true); len(got) != 2 || got[0] != "/opt/mcp/*" || got[1] != "http://127.0.0.1:9000/" {
		t.Errorf("a list: %q", got)
	}
}
