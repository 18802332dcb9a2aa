package moduleaccess_test

import (
	"testing"

	"github.com/codemode-conformance/codemode/reference/moduleaccess"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestModuleAccess(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "reference/moduleaccess")
}

var _ = Describe("Check (CM-EXEC-04)", func() {
	DescribeTable("denies module loader patterns", func(src, pattern string, line int) {
		f, found := moduleaccess.Check(src)
		Expect(found).To(BeTrue())
		Expect(f).To(Equal(moduleaccess.Finding{Pattern: pattern, Line: line}))
	},
		Entry("static import", `import fs from "fs";`, "import", 1),
		Entry("bare import", "\n\nimport 'x'", "import", 3),
		Entry("dynamic import", `const m = await import("os")`, "import()", 1),
		Entry("spaced dynamic import", `await import ("os")`, "import()", 1),
		Entry("import.meta", `return import.meta.url`, "import.meta", 1),
		Entry("require", `const fs = require("fs")`, "require()", 1),
		Entry("require in a template substitution", "const s = `${require('fs')}`", "require()", 1),
		Entry("import after a regexp", `const r = /x/g; import("a")`, "import()", 1),
		Entry("import after a division", `const a = 4 / 2; import("a")`, "import()", 1),
		Entry("import after a comment", "// note\n/* c */ import('a')", "import()", 2),
	)

	DescribeTable("allows identifiers, strings, comments and properties", func(src string) {
		_, found := moduleaccess.Check(src)
		Expect(found).To(BeFalse())
	},
		Entry("identifier", `const importance = 1; const reimport = 2;`),
		Entry("string", `const s = "import x from 'y'"; const t = 'require("fs")';`),
		Entry("template text", "const s = `import ${1} require('x')`;"),
		Entry("comment", "// import fs from 'fs'\n/* require('x') */ return 1"),
		Entry("regexp", `const r = /import\(x\)/; return r.test("a")`),
		Entry("property", `obj.import(1); obj.require("x"); return {import: 1}`),
		Entry("require without a call", `return typeof require`),
	)
})
