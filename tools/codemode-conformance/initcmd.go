package main

import (
	"bytes"
	"embed"
	"flag"
	"fmt"
	"github.com/codemode-conformance/codemode/internal/subcmd"
	"io"
	"os"
	"path/filepath"
	"text/template"
)

// initkit holds the templates `init` writes: one adapter per language,
// the empty baseline and the CI workflow (shared by every language).
//
//go:embed initkit
var initkit embed.FS

// initLang is what init writes for one language: template files (under
// initkit/<lang>, a .tmpl suffix dropped) and the command that runs the
// adapter from DIR, as the exec: target names it.
type initLang struct {
	files   map[string]string // initkit path -> path under DIR
	command string            // run from DIR (the workflow's working directory)
	// in runs the adapter from anywhere, given DIR's absolute path.
	in func(dir string) string
}

var initLangs = map[string]initLang{
	"node":   {files: map[string]string{"initkit/node/adapter.mjs": "adapter.mjs"}, command: "node adapter.mjs", in: func(d string) string { return "node " + filepath.Join(d, "adapter.mjs") }},
	"python": {files: map[string]string{"initkit/python/adapter.py": "adapter.py"}, command: "python3 adapter.py", in: func(d string) string { return "python3 " + filepath.Join(d, "adapter.py") }},
	"go":     {files: map[string]string{"initkit/go/main.go.tmpl": "main.go", "initkit/go/go.mod.tmpl": "go.mod"}, command: "go run .", in: func(d string) string { return "go run -C " + d + " ." }},
}

// initCommand writes a minimal adapter for --lang into DIR (created if
// missing; an existing file is never overwritten): the line loop,
// initialize declaring no optional feature, run.prepare failing closed
// with runtime_unavailable when code mode is enabled, exec/wait answering
// runtime_unavailable; an empty expected-failures.yaml; and
// .github/workflows/conformance.yml running the action against it.
// Exit 0, 1 when a file exists or cannot be written, 2 on usage.
func initCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	lang := fs.String("lang", "", "the adapter's language: node, python or go")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: codemode-conformance init --lang node|python|go DIR\n\nWrites a minimal driver-protocol adapter (answering runtime_unavailable), an empty\nexpected-failures.yaml and .github/workflows/conformance.yml into DIR; then\n  codemode-conformance smoke --target exec:node DIR/adapter.mjs   (the line init prints)\nSee docs/implementers.md. Exit status: 0 written, 1 a file exists, 2 usage.\n\nFlags:")
		fs.PrintDefaults()
	}
	if code, done := subcmd.Parse(fs, reorder(args), stdout); done {
		return code
	}
	l, ok := initLangs[*lang]
	if !ok || fs.NArg() != 1 {
		fmt.Fprintf(stderr, "init takes --lang node|python|go and one DIR, got --lang %q and %d arguments\n", *lang, fs.NArg())
		return 2
	}
	dir := fs.Arg(0)
	files := map[string]string{"initkit/common/expected-failures.yaml": "expected-failures.yaml",
		"initkit/common/conformance.yml": filepath.Join(".github", "workflows", "conformance.yml")}
	for k, v := range l.files {
		files[k] = v
	}
	for _, dst := range files {
		if _, err := os.Stat(filepath.Join(dir, dst)); err == nil {
			fmt.Fprintf(stderr, "init: %s exists; init never overwrites a file\n", filepath.Join(dir, dst))
			return 1
		}
	}
	for src, dst := range files {
		raw, err := initkit.ReadFile(src)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		var b bytes.Buffer
		if err := template.Must(template.New(src).Parse(string(raw))).Execute(&b, struct{ Command string }{l.command}); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		p := filepath.Join(dir, dst)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
			err = os.WriteFile(p, b.Bytes(), 0o644)
		}
		if err != nil {
			fmt.Fprintln(stderr, "init:", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	abs, _ := filepath.Abs(dir)
	fmt.Fprintf(stdout, "next: codemode-conformance smoke --target %q\n", "exec:"+l.in(abs))
	return 0
}

// reorder puts flags before positional arguments, so `init DIR --lang go`
// parses as `init --lang go DIR`.
func reorder(args []string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) > 1 && a[0] == '-' {
			flags = append(flags, a)
			if a == "--lang" || a == "-lang" {
				if i+1 < len(args) {
					flags = append(flags, args[i+1])
					i++
				}
			}
			continue
		}
		rest = append(rest, a)
	}
	return append(flags, rest...)
}
