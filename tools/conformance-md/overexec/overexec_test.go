package overexec

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// build builds the main package pkg into dir and returns the binary's path.
func build(t *testing.T, dir, pkg string) string {
	t.Helper()
	bin := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// TestSameVerdictsOverExec runs every suite against the reference over
// stdio under v1 and v2 (both at once: the runs mostly wait on deadlines)
// and renders CONFORMANCE.md from them with tools/conformance-md, as make
// conformance-md does from its builtin runs; the file must come out as
// committed. Each run has --procs 2 (each process its own reference
// process over stdio): the waits overlap, and the verdicts are a serial
// run's (tools/codemode-conformance's procs test).
func TestSameVerdictsOverExec(t *testing.T) {
	const module = "github.com/codemode-conformance/codemode/"
	bin := t.TempDir()
	cli := build(t, bin, module+"tools/codemode-conformance")
	ref := build(t, bin, module+"reference/cmd/codemode-reference")
	md := build(t, bin, module+"tools/conformance-md")
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}

	profiles := []string{"v1", "v2"}
	dirs := make([]string, len(profiles))
	errs := make([]error, len(profiles))
	var wg sync.WaitGroup
	for i, p := range profiles {
		dirs[i] = t.TempDir()
		cmd := exec.Command(cli, "run", "--target", "exec:"+ref+" serve --stdio --profile "+p, "--profile", p, "--procs", "2", "--results-dir", dirs[i])
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A run that fails (exit 1) still wrote its report, which the
			// comparison below judges.
			if out, err := cmd.CombinedOutput(); err != nil && cmd.ProcessState == nil {
				errs[i] = err
			} else {
				t.Logf("the %s run over exec: exited %d:\n%s", p, cmd.ProcessState.ExitCode(), tail(out))
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("running the CLI under %s: %v", profiles[i], err)
		}
	}

	fresh := filepath.Join(t.TempDir(), "CONFORMANCE.md")
	cmd := exec.Command(md, "--report", filepath.Join(dirs[0], "report.json"), "--profile-report", "v2="+filepath.Join(dirs[1], "report.json"), "--out", fresh)
	cmd.Dir = root // the committed peer reports are read from there
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("conformance-md: %v\n%s", err, out)
	}
	committed, err := os.ReadFile(filepath.Join(root, "CONFORMANCE.md"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(committed), string(got)); d != "" {
		t.Errorf("verdicts over exec: differ from builtin's committed CONFORMANCE.md (-builtin +exec):\n%s", d)
	}
}

// tail is the last lines of a run's output (its summary and verdict).
func tail(out []byte) []byte {
	const keep = 2000
	if len(out) > keep {
		return out[len(out)-keep:]
	}
	return out
}
