package hygiene_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// maxTrackedBytes is the largest file git may track: source, specs and
// published reports stay well under it; a build output (a 33 MB binary was
// committed once) does not.
const maxTrackedBytes = 1 << 20

// repoRoot returns the top of the git checkout, or skips the test when
// there is none (a module copy, a source archive).
func repoRoot(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: cannot list the tracked files")
	}
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not in a git checkout: no tracked files to check")
	}
	return strings.TrimSpace(string(out))
}

// git runs git in the checkout and returns its output.
func git(t *testing.T, root string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func TestNoTrackedFileOver1MB(t *testing.T) {
	root := repoRoot(t)
	var big []string
	for _, name := range bytes.Split(git(t, root, "ls-files", "-z"), []byte{0}) {
		if len(name) == 0 {
			continue
		}
		st, err := os.Lstat(filepath.Join(root, string(name)))
		if err != nil {
			continue // deleted in the work tree, not yet committed
		}
		if st.Mode().IsRegular() && st.Size() > maxTrackedBytes {
			big = append(big, fmt.Sprintf("%s (%d bytes)", name, st.Size()))
		}
	}
	if len(big) > 0 {
		t.Errorf("tracked files over %d bytes (build outputs or data that belong outside git; `git rm --cached` them and extend .gitignore):\n  %s",
			maxTrackedBytes, strings.Join(big, "\n  "))
	}
}

func TestMainPackageBinariesAreIgnored(t *testing.T) {
	root := repoRoot(t)
	cmd := exec.Command("go", "list", "-f", `{{if eq .Name "main"}}{{.Dir}}{{end}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dirs := strings.Fields(string(out))
	if len(dirs) == 0 {
		t.Fatal("go list found no main package: the check would check nothing")
	}
	for _, dir := range dirs {
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			t.Fatal(err)
		}
		// What `go build` writes when run in that directory, and at the root.
		for _, bin := range []string{path.Join(filepath.ToSlash(rel), filepath.Base(dir)), filepath.Base(dir)} {
			c := exec.Command("git", "check-ignore", "-q", "--no-index", bin)
			c.Dir = root
			if err := c.Run(); err != nil {
				t.Errorf("%s (built by `go build` of ./%s) is not ignored: add /%s to .gitignore", bin, rel, bin)
			}
		}
	}
}
