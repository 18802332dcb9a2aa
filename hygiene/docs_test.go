package hygiene_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// docFiles are the pages written for readers: the README, CONTRIBUTING.md
// and docs/*.md.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md")}, pages...)
}

// runnableBlock matches a fenced block whose info string carries the word
// "runnable" (```sh runnable): every command in it is run by
// TestRunnableDocCommands, so the docs cannot keep a stale one.
var runnableBlock = regexp.MustCompile("(?ms)^```[a-z]* runnable\n(.*?)^```")

// A runnable block's commands work from the top of the checkout: each exits
// 0 within 5 minutes. Comment lines and trailing `# …` comments are left out.
func TestRunnableDocCommands(t *testing.T) {
	root := repoRoot(t)
	if testing.Short() {
		t.Skip("-short: the docs' runnable commands build and run the harness")
	}
	ran := 0
	for _, page := range docFiles(t, root) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range runnableBlock.FindAllStringSubmatch(string(b), -1) {
			for _, line := range strings.Split(m[1], "\n") {
				cmd := strings.TrimSpace(line)
				if i := strings.Index(cmd, " #"); i >= 0 {
					cmd = strings.TrimSpace(cmd[:i])
				}
				if cmd == "" || strings.HasPrefix(cmd, "#") {
					continue
				}
				ran++
				rel, _ := filepath.Rel(root, page)
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				c := exec.CommandContext(ctx, "bash", "-c", cmd)
				c.Dir = root
				c.Env = append(os.Environ(), "NO_COLOR=1")
				out, err := c.CombinedOutput()
				cancel()
				if err != nil {
					tail := string(out)
					if len(tail) > 2000 {
						tail = "…" + tail[len(tail)-2000:]
					}
					t.Errorf("%s: runnable command failed (%v): %s\n%s", rel, err, cmd, tail)
				}
			}
		}
	}
	if ran == 0 {
		t.Fatal("no runnable command found in the docs: the marker (```sh runnable) is gone, so nothing keeps them fresh")
	}
}

// relLink matches a Markdown link to a relative path (no scheme, no anchor-only).
var relLink = regexp.MustCompile(`\]\(([^)#:\s]+)(#[^)]*)?\)`)

// Every relative link of the reader pages points at a file or folder that
// exists.
func TestDocLinksResolve(t *testing.T) {
	root := repoRoot(t)
	for _, page := range docFiles(t, root) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for _, m := range relLink.FindAllStringSubmatch(string(b), -1) {
			target := filepath.Join(filepath.Dir(page), m[1])
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s: link to %s does not resolve", rel, m[1])
			}
		}
	}
}

// The README stays short enough to read in five minutes: what it is, the
// two commands, how to point it at an implementation and where the rest is.
func TestReadmeIsShort(t *testing.T) {
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > 150 {
		t.Errorf("README.md has %d lines, over 150: move detail into docs/ (one page per reader)", n)
	}
}
