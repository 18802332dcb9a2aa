package main_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// smokeAdapter is testdata/smoke/adapter.py making one typical mistake.
func smokeAdapter(mistake string) string {
	GinkgoHelper()
	p, err := filepath.Abs(filepath.Join("testdata", "smoke", "adapter.py"))
	Expect(err).NotTo(HaveOccurred(), "locating the smoke adapter")
	return "exec:python3 " + p + " " + mistake
}

var _ = Describe("codemode-conformance smoke", Label("smoke"), func() {
	// A loaded machine starts python3 slowly: the budget is raised for the
	// tests, the diagnosis is what they check.
	smoke := func(target string) outcome {
		GinkgoHelper()
		return invoke(os.Environ(), "smoke", "--timeout", "60s", "--target", target)
	}

	It("passes the reference and every step prints ok", func() {
		o := smoke("builtin")
		Expect(o.Code).To(Equal(0), "smoke of builtin must pass; stdout:\n%s", o.Stdout)
		for _, step := range []string{"initialize", "run.prepare", "trivial cell: completed, value 2", "nested call: tool.invoke plugin:smoke:echo", "shutdown"} {
			Expect(o.Stdout).To(ContainSubstring("ok   "+step), "smoke must report step %q as ok", step)
		}
	})

	It("passes an adapter that answers runtime_unavailable (the init skeleton's shape)", func() {
		o := smoke(smokeAdapter("ok"))
		Expect(o.Code).To(Equal(0), "a well-formed runtime_unavailable answer passes smoke; stdout:\n%s", o.Stdout)
		Expect(o.Stdout).To(ContainSubstring("failed runtime_unavailable"), "smoke must say the cell failed runtime_unavailable")
	})

	DescribeTable("names each typical mistake",
		func(mistake, diagnosis string) {
			o := smoke(smokeAdapter(mistake))
			Expect(o.Code).To(Equal(1), "smoke must fail an adapter with %s; stdout:\n%s", mistake, o.Stdout)
			Expect(o.Stdout).To(ContainSubstring("FAIL initialize: "+diagnosis), "smoke must diagnose %s at initialize", mistake)
		},
		Entry("stdout pollution", "pollution", `stdout pollution: `),
		Entry("a missing newline", "no-newline", `missing newline: `),
		Entry("ids not echoed", "id-not-echoed", `ids not echoed: `),
		Entry("an unknown feature name", "unknown-feature", `unknown feature: `),
		Entry("a crash with output on stderr only", "crash", `crash: `),
	)

	It("quotes the stderr of a target that crashed", func() {
		o := smoke(smokeAdapter("crash"))
		Expect(o.Stdout).To(ContainSubstring("adapter.py: cannot load config"), "the crash diagnosis must quote the target's stderr")
	})

	It("exits 2 without --target", func() {
		o := invoke(os.Environ(), "smoke")
		Expect(o.Code).To(Equal(2), "smoke without --target is a usage error")
	})
})
