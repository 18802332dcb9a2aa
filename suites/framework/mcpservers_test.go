package framework

import (
	"os/exec"
	"testing"
	"time"
)

// ProcessState tells a live child from an exited unreaped one and from one
// that is gone: the check of "no MCP server process left after run.end".
func TestProcessState(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start sleep: %v", err)
	}
	pid := cmd.Process.Pid
	if got := ProcessState(pid); got != "running" {
		t.Errorf("a sleeping child: got %q, want running", got)
	}
	_ = cmd.Process.Kill()
	deadline := time.Now().Add(5 * time.Second)
	for ProcessState(pid) == "running" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := ProcessState(pid); got != "zombie" {
		t.Errorf("a killed child not yet waited for: got %q, want zombie", got)
	}
	_ = cmd.Wait()
	if got := ProcessState(pid); got != "gone" {
		t.Errorf("a reaped child: got %q, want gone", got)
	}
}
