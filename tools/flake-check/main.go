// Command flake-check runs the Go tests that a change added or touched N
// times each and reports every one whose outcome varies (WPT's --verify):
// a test that passes 19 times and fails once is a flake, and it must not
// land. `make flake-check` runs it against main (BASE) with N=20.
//
// Which tests: every `func TestX(t *testing.T)` in a _test.go file whose
// diff against the base adds or changes a line inside it (or the whole new
// file). Ginkgo suites of conformance specs are not Go tests of their own:
// for a changed spec file under suites/, the requirement IDs its changed
// lines name are run N times with `codemode-conformance run --target
// builtin --req ID`, and a verdict that varies is a flake too.
//
// Usage: flake-check [-base main] [-n 20] [-run-specs=true]
// Exit status: 0 when nothing varied, 1 when something did, 2 on a usage
// or git error.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

func main() {
	base := flag.String("base", "main", "git revision to diff against (the tests changed since it are checked)")
	n := flag.Int("n", 20, "how many times each test runs")
	specs := flag.Bool("run-specs", true, "also rerun the requirements named on changed lines of suites/ files")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: flake-check [-base REV] [-n N] [-run-specs=false]\n\n"+
			"Runs each Go test added or changed since REV N times, and each requirement named on a changed line of a\n"+
			"suites/ file N times against builtin, and reports every one whose outcome varies. Exit 1 on a flake.\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *n < 2 {
		fmt.Fprintln(os.Stderr, "flake-check: -n must be at least 2 (a single run cannot vary)")
		os.Exit(2)
	}
	changed, err := changedLines(*base)
	if err != nil {
		fmt.Fprintln(os.Stderr, "flake-check:", err)
		os.Exit(2)
	}
	tests := changedTests(changed)
	var reqs []string
	if *specs {
		reqs = changedRequirements(changed)
	}
	if len(tests) == 0 && len(reqs) == 0 {
		fmt.Printf("flake-check: no test or spec changed since %s\n", *base)
		return
	}
	var flaky []string
	for _, pkg := range slices.Sorted(maps.Keys(tests)) {
		names := tests[pkg]
		fmt.Printf("flake-check: %s: %s ×%d\n", pkg, strings.Join(names, " "), *n)
		for _, name := range names {
			pass, fail := 0, 0
			for i := 0; i < *n; i++ {
				cmd := exec.Command("go", "test", "-count=1", "-run", "^"+name+"$", pkg)
				if cmd.Run() == nil {
					pass++
				} else {
					fail++
				}
			}
			verdict := "stable"
			if pass > 0 && fail > 0 {
				verdict = "FLAKY"
				flaky = append(flaky, fmt.Sprintf("%s %s (%d pass, %d fail)", pkg, name, pass, fail))
			} else if fail > 0 {
				verdict = "fails every time"
			}
			fmt.Printf("  %-50s %d pass, %d fail: %s\n", name, pass, fail, verdict)
		}
	}
	if len(reqs) > 0 {
		fmt.Printf("flake-check: requirements on changed spec lines: %s ×%d against builtin\n", strings.Join(reqs, " "), *n)
		for _, id := range reqs {
			seen := map[int]int{}
			for i := 0; i < *n; i++ {
				cmd := exec.Command("go", "run", "./tools/codemode-conformance", "run", "--target", "builtin", "--req", id,
					"--results-dir", filepath.Join(os.TempDir(), "flake-check-"+id))
				cmd.Env = append(os.Environ(), "NO_COLOR=1")
				code := 0
				if err := cmd.Run(); err != nil {
					code = 1
					if ee, ok := err.(*exec.ExitError); ok {
						code = ee.ExitCode()
					}
				}
				seen[code]++
			}
			verdict := "stable"
			if len(seen) > 1 {
				verdict = "FLAKY"
				flaky = append(flaky, fmt.Sprintf("%s against builtin (exit codes %v)", id, seen))
			}
			fmt.Printf("  %-50s exit codes %v: %s\n", id, seen, verdict)
		}
	}
	if len(flaky) > 0 {
		fmt.Printf("flake-check: %d flaky:\n  %s\n", len(flaky), strings.Join(flaky, "\n  "))
		os.Exit(1)
	}
	fmt.Println("flake-check: nothing varied")
}

// changedLines maps each Go file changed since base (in the work tree) to
// the line numbers (1-based, new side) added or changed; a new file maps to
// nil, meaning every line.
func changedLines(base string) (map[string][]int, error) {
	out, err := exec.Command("git", "diff", "--unified=0", "--no-color", base, "--", "*.go").Output()
	if err != nil {
		return nil, fmt.Errorf("git diff %s: %v", base, err)
	}
	files := map[string][]int{}
	hunk := regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@`)
	var cur string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "+++ b/"):
			cur = strings.TrimPrefix(line, "+++ b/")
			files[cur] = files[cur]
		case strings.HasPrefix(line, "+++ /dev/null"):
			cur = ""
		default:
			if m := hunk.FindStringSubmatch(line); m != nil && cur != "" {
				start, count := atoi(m[1]), 1
				if m[2] != "" {
					count = atoi(m[2])
				}
				for i := 0; i < count; i++ {
					files[cur] = append(files[cur], start+i)
				}
			}
		}
	}
	return files, sc.Err()
}

var testFunc = regexp.MustCompile(`^func (Test\w+)\(t \*testing\.T\)`)

// changedTests lists, per package path (./dir), the Test functions of
// changed _test.go files that hold a changed line.
func changedTests(changed map[string][]int) map[string][]string {
	tests := map[string][]string{}
	for file, lines := range changed {
		if !strings.HasSuffix(file, "_test.go") {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			continue // deleted
		}
		src := strings.Split(string(b), "\n")
		touched := map[int]bool{}
		for _, l := range lines {
			touched[l] = true
		}
		var name string
		seen := map[string]bool{}
		for i, line := range src {
			if m := testFunc.FindStringSubmatch(line); m != nil {
				name = m[1]
			} else if strings.HasPrefix(line, "func ") {
				name = ""
			}
			if name != "" && (len(lines) == 0 || touched[i+1]) && !seen[name] {
				seen[name] = true
				pkg := "./" + filepath.Dir(file)
				tests[pkg] = append(tests[pkg], name)
			}
		}
	}
	return tests
}

var reqID = regexp.MustCompile(`CM-[A-Z0-9]+-\d+`)

// changedRequirements lists the requirement IDs named on changed lines of
// non-test files under suites/.
func changedRequirements(changed map[string][]int) []string {
	ids := map[string]bool{}
	for file, lines := range changed {
		if !strings.HasPrefix(file, "suites/") || strings.HasSuffix(file, "_test.go") {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		src := strings.Split(string(b), "\n")
		pick := func(line string) {
			for _, id := range reqID.FindAllString(line, -1) {
				ids[id] = true
			}
		}
		if len(lines) == 0 {
			for _, l := range src {
				pick(l)
			}
		}
		for _, l := range lines {
			if l-1 < len(src) {
				pick(src[l-1])
			}
		}
	}
	return slices.Sorted(maps.Keys(ids))
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
