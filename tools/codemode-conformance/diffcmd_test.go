package main_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The diff command's exits; the ledger itself is tested in tools/diff.
var _ = Describe("codemode-conformance diff", Label("diff"), func() {
	cells := filepath.Join("..", "diff", "testdata", "cells")
	diff := func(args ...string) outcome {
		GinkgoHelper()
		return invoke(os.Environ(), append([]string{"diff", "--cells", cells, "--results-dir", GinkgoT().TempDir()}, args...)...)
	}

	It("exits 0 for the reference against itself", func() {
		o := diff("--target", "builtin", "--target", "builtin")
		Expect(o.Code).To(Equal(0), "stdout:\n%s\nstderr:\n%s", o.Stdout, o.Stderr)
		Expect(o.Stdout).To(ContainSubstring("0 behavioural"))
	})

	It("exits 1 on a fake's behavioural change, naming the cell, and 0 once it is triaged", func() {
		o := diff("--target", "builtin", "--target", "fake:deny-ignored")
		Expect(o.Code).To(Equal(1), "stdout:\n%s", o.Stdout)
		Expect(o.Stdout).To(ContainSubstring("NEW behavioural difference: bridge-denied-id-guesses.js on fake:deny-ignored"))
		triage := filepath.Join(GinkgoT().TempDir(), "triage.yaml")
		Expect(os.WriteFile(triage, []byte("triage:\n  - cell: bridge-denied-id-guesses.js\n    owner: fake:deny-ignored\n    class: deviation\n    note: the fake drops the deny policy\n    requirement: CM-GUEST-05\n"), 0o644)).To(Succeed())
		o = diff("--target", "builtin", "--target", "fake:deny-ignored", "--triage", triage)
		Expect(o.Code).To(Equal(0), "stdout:\n%s", o.Stdout)
	})

	DescribeTable("exits 2 on usage",
		func(args ...string) { Expect(diff(args...).Code).To(Equal(2)) },
		Entry("one target", "--target", "builtin"),
		Entry("an unknown flag", "--target", "builtin", "--target", "builtin", "--bogus"),
		Entry("an unknown target", "--target", "builtin", "--target", "nosuch:x"),
		Entry("a bad triage file", "--target", "builtin", "--target", "builtin", "--triage", "/nonexistent.yaml"),
		Entry("--ledger with targets", "--ledger", "../../reports/diff/diff.json", "--target", "builtin", "--target", "builtin"),
	)

	It("triages the committed ledger again without running a target, and exits 0 with the committed triage", func() {
		o := invoke(os.Environ(), "diff", "--ledger", "../../reports/diff/diff.json", "--triage", "../../reports/diff/triage.yaml", "--results-dir", GinkgoT().TempDir())
		Expect(o.Code).To(Equal(0), "stdout:\n%s\nstderr:\n%s", o.Stdout, o.Stderr)
		Expect(o.Stdout).To(ContainSubstring("0 new, 0 changed"))
	})

	It("prints its usage on -h with exit 0", func() {
		o := invoke(os.Environ(), "diff", "-h")
		Expect(o.Code).To(Equal(0))
		Expect(o.Stdout).To(ContainSubstring("usage: codemode-conformance diff --target A --target B"))
	})
})
