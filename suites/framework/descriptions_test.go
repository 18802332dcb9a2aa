package framework

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// describedSuites are the suite folders whose every assertion must carry a
// description: a failure should say what was expected, not only
// "Expected <bool>: false to be true". A suite folder added later is
// checked too (TestEveryExpectationHasADescription fails if one is missing).
var describedSuites = []string{"../abuse", "../codemode", "../limits", "../mcp", "../namespaces", "../security"}

// assertions are the Gomega methods that end an assertion; their arguments
// after the matcher are the description.
var assertions = map[string]bool{"To": true, "ToNot": true, "NotTo": true, "Should": true, "ShouldNot": true}

// TestEveryExpectationHasADescription parses the suites and lists every
// Expect/Eventually/Consistently assertion that passes a matcher but no
// description.
func TestEveryExpectationHasADescription(t *testing.T) {
	fset := token.NewFileSet()
	var bare []string
	files := 0
	for _, dir := range describedSuites {
		paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no Go files in %s (%v)", dir, err)
		}
		for _, p := range paths {
			f, err := parser.ParseFile(fset, p, nil, 0)
			if err != nil {
				t.Fatalf("parsing %s: %v", p, err)
			}
			files++
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || !assertions[sel.Sel.Name] || len(call.Args) != 1 || !startsAtAssertion(sel.X) {
					return true
				}
				bare = append(bare, fmt.Sprintf("%s: %s(…) has no description", fset.Position(call.Pos()), sel.Sel.Name))
				return true
			})
		}
	}
	if files == 0 {
		t.Fatal("no suite file checked")
	}
	if missed := uncheckedSuites(t); len(missed) > 0 {
		t.Errorf("suite folders %v are not in describedSuites: add them so their assertions are checked", missed)
	}
	if len(bare) > 0 {
		t.Errorf("%d assertions without a description saying what was expected (add one after the matcher):\n%s", len(bare), strings.Join(bare, "\n"))
	}
}

// startsAtAssertion reports whether x is a chain that begins with Expect,
// Eventually, Consistently or Ω (possibly through WithTimeout and the like).
func startsAtAssertion(x ast.Expr) bool {
	for {
		call, ok := x.(*ast.CallExpr)
		if !ok {
			return false
		}
		switch fn := call.Fun.(type) {
		case *ast.Ident:
			switch fn.Name {
			case "Expect", "Eventually", "Consistently", "Ω", "ExpectWithOffset", "EventuallyWithOffset":
				return true
			}
			return false
		case *ast.SelectorExpr:
			switch fn.Sel.Name {
			case "Expect", "Eventually", "Consistently":
				return true // g.Expect inside Eventually(func(g Gomega) …)
			}
			x = fn.X
		default:
			return false
		}
	}
}

// uncheckedSuites lists the folders beside framework under suites/ that hold
// Go files but are not in describedSuites.
func uncheckedSuites(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob("../*/*.go")
	if err != nil {
		t.Fatalf("listing suite folders: %v", err)
	}
	checked := map[string]bool{"../framework": true, "../evidence": true} // not suites
	for _, d := range describedSuites {
		checked[d] = true
	}
	var missed []string
	for _, p := range dirs {
		d := filepath.ToSlash(filepath.Dir(p))
		if !checked[d] {
			checked[d] = true
			missed = append(missed, d)
		}
	}
	return missed
}
