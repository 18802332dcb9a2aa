package mcp

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// ParseTypeScript parses text as a TypeScript file with esbuild (no type
// checking, no module resolution) and returns its syntax errors, one
// "line:column: text" each, or nil when it parses. The rendered .d.ts files
// of CM-MCP-03 must parse: a declaration an agent cannot read as TypeScript
// describes nothing.
func ParseTypeScript(name, text string) []string {
	res := api.Transform(text, api.TransformOptions{Loader: api.LoaderTS, Sourcefile: name, LogLevel: api.LogLevelSilent})
	var out []string
	for _, m := range res.Errors {
		loc := ""
		if m.Location != nil {
			loc = fmt.Sprintf("%d:%d: ", m.Location.Line, m.Location.Column)
		}
		out = append(out, loc+m.Text)
	}
	return out
}

// golden holds the expected declaration files (testdata/*.d.ts), embedded so
// the conformance CLI compares against them wherever it runs.
//
//go:embed testdata/*.d.ts
var golden embed.FS

// UpdateGolden, when true, makes the golden specs write the declaration a
// target rendered to testdata/ instead of comparing (go test ./suites/mcp
// -update, or make mcp-golden; the working directory must be this package's).
var UpdateGolden bool

// Golden returns the golden file testdata/<name>.
func Golden(name string) (string, error) {
	b, err := golden.ReadFile("testdata/" + name)
	return string(b), err
}

// WriteGolden writes text to testdata/<name> under the working directory.
func WriteGolden(name, text string) error {
	return os.WriteFile(filepath.Join("testdata", name), []byte(text), 0o644)
}

var blankRuns = regexp.MustCompile(`[ \t]+`)

// DeclarationLines is a declaration text as the golden comparison reads it:
// one entry per non-empty line, trimmed, with runs of blanks collapsed, so
// indentation and line endings are the target's own business while every
// declaration, type, member and JSDoc line has to match.
func DeclarationLines(text string) []string {
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		l = strings.TrimSpace(blankRuns.ReplaceAllString(l, " "))
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

var (
	spaceRuns  = regexp.MustCompile(`\s+`)
	spacePunct = regexp.MustCompile(`\s*([{}()\[\]<>;:,?|=*/])\s*`)
)

// Squeeze removes every blank a TypeScript reader ignores around
// punctuation and collapses the others, so a structural check such as
// `body?:string;` matches however the target lays out its declarations.
func Squeeze(text string) string {
	s := spacePunct.ReplaceAllString(spaceRuns.ReplaceAllString(text, " "), "$1")
	return strings.ReplaceAll(s, ";}", "}") // a last member's ";" is optional
}
