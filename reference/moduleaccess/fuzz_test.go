package moduleaccess

import (
	"strings"
	"testing"
)

// FuzzCheck: the scanner never panics or hangs on hostile source, and a
// finding always points at a line of the source.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`import x from "y"`, "const a = `${`${require('fs')}`}`", `/re/.test(a) / 2; import("x")`,
		`"unterminated`, "`${", `a = b / c / d; // import x`, `/* require("x") */ x.require("y")`, `import.meta`, "\x00\xff{[("} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		fd, found := Check(src)
		if found && (fd.Line < 1 || fd.Line > strings.Count(src, "\n")+1) {
			t.Fatalf("finding %+v points outside the %d-line source", fd, strings.Count(src, "\n")+1)
		}
	})
}
