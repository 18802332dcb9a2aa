package main_test

import (
	"os"
	"path/filepath"

	"github.com/codemode-conformance/codemode/tools/report"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("codemode-conformance init", Label("init"), func() {
	// A focused run, not the whole suite (minutes per language on this
	// machine): two core requirements the skeleton cannot meet, which must
	// come out as clear fails, never errors (a crash) or skips.
	focused := []string{"--req", "CM-ACT-03", "--req", "CM-CFG-06", "--validate-protocol"}

	DescribeTable("writes an adapter that passes smoke and gets clear verdicts from a run",
		func(lang string, target func(dir string) string) {
			dir := filepath.Join(GinkgoT().TempDir(), "adapter")
			o := invoke(os.Environ(), "init", "--lang", lang, dir)
			Expect(o.Code).To(Equal(0), "init --lang %s exits 0; stderr: %s", lang, o.Stderr)
			for _, f := range []string{"expected-failures.yaml", ".github/workflows/conformance.yml"} {
				Expect(filepath.Join(dir, f)).To(BeAnExistingFile(), "init writes %s", f)
			}
			_, err := report.LoadBaseline(filepath.Join(dir, "expected-failures.yaml"))
			Expect(err).NotTo(HaveOccurred(), "the empty baseline init writes must load as --expected-failures")
			Expect(o.Stdout).To(ContainSubstring(target(dir)), "init prints the smoke line for its adapter")

			o = invoke(os.Environ(), "smoke", "--timeout", "90s", "--target", "exec:"+target(dir))
			Expect(o.Code).To(Equal(0), "the %s skeleton passes smoke; stdout:\n%s", lang, o.Stdout)

			run := conformance(append([]string{"--target", "exec:" + target(dir)}, focused...)...)
			Expect(run.Code).To(Equal(1), "the skeleton fails the run; stdout:\n%s", run.Stdout)
			Expect(run.Report.Totals.Error).To(Equal(0), "the skeleton never crashes: no error verdicts; stdout:\n%s", run.Stdout)
			Expect(run.Verdicts()).To(HaveKeyWithValue("CM-ACT-03", report.Fail), "CM-ACT-03 is a clear fail")
			Expect(run.Verdicts()).To(HaveKeyWithValue("CM-CFG-06", report.Fail), "CM-CFG-06 is a clear fail")
			Expect(run.Stdout).To(ContainSubstring("every message the target sent matched spec/schema"), "the skeleton's messages match spec/schema")
		},
		Entry("node", "node", func(d string) string { return "node " + filepath.Join(d, "adapter.mjs") }),
		Entry("python", "python", func(d string) string { return "python3 " + filepath.Join(d, "adapter.py") }),
		Entry("go", "go", func(d string) string { return "go run -C " + d + " ." }),
	)

	It("never overwrites a file", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "adapter.py"), []byte("mine"), 0o644)).To(Succeed(), "writing the user's file")
		o := invoke(os.Environ(), "init", "--lang", "python", dir)
		Expect(o.Code).To(Equal(1), "init refuses to overwrite adapter.py")
		Expect(os.ReadFile(filepath.Join(dir, "adapter.py"))).To(Equal([]byte("mine")), "the user's file is untouched")
	})

	It("exits 2 on an unknown language", func() {
		Expect(invoke(os.Environ(), "init", "--lang", "cobol", GinkgoT().TempDir()).Code).To(Equal(2), "an unknown --lang is a usage error")
	})
})
