package main_test

import (
	"os"
	"os/exec"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("run --validate-protocol", Label("validate-protocol"), func() {
	It("passes the reference", func() {
		o := conformance("--target", "builtin", "--req", "CM-EXEC-05", "--req", "CM-NEST-01", "--validate-protocol")
		Expect(o.Code).To(Equal(0), "the reference's messages match spec/schema; stdout:\n%s", o.Stdout)
		Expect(o.Stdout).To(ContainSubstring("every message the target sent matched spec/schema"), "the check says it ran")
	})

	It("passes fakes/naive", func() {
		node, err := exec.LookPath("node")
		if err != nil {
			Skip("node is not on PATH: fakes/naive needs it")
		}
		script, _ := filepath.Abs(filepath.Join("..", "..", "fakes", "naive", "target.mjs"))
		o := conformance("--target", "exec:"+node+" "+script, "--req", "CM-EXEC-05", "--req", "CM-NEST-01", "--validate-protocol")
		Expect(o.Stdout).To(ContainSubstring("every message the target sent matched spec/schema"), "fakes/naive's messages match spec/schema; stdout:\n%s", o.Stdout)
	})

	It("reports the first violation of fake:malformed-result with the message and the schema path", func() {
		o := conformance("--target", "fake:malformed-result", "--req", "CM-EXEC-05", "--validate-protocol")
		Expect(o.Code).To(Equal(1), "a violation fails the run")
		want := `the result of tool.exec breaks spec/schema/tool.result.json`
		Expect(o.Stdout).To(ContainSubstring("first violation: "), "the violation is printed")
		Expect(o.Stdout).To(ContainSubstring(want), "it names the schema")
		Expect(o.Stdout).To(ContainSubstring(`missing properties: ["telemetry"]`), "it names what the path lacks")
		Expect(o.Stdout).To(ContainSubstring(`message: {"id":`), "it quotes the message")
		b, err := os.ReadFile(filepath.Join(o.Dir, "protocol-violation.txt"))
		Expect(err).NotTo(HaveOccurred(), "the violation is written to the results directory")
		Expect(string(b)).To(ContainSubstring(want), "protocol-violation.txt holds it")
	})
})
