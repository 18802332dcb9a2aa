package main_test

import (
	"testing"

	"github.com/codemode-conformance/codemode/internal/clitest"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The command's own tests: exit codes, usage, console lines, junit.xml,
// report.html, signals and run control, each through the built binary.
func TestCLI(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "codemode-conformance command")
}

var _ = BeforeSuite(func() { clitest.Build() })

// The CLI runs of these specs (see package clitest).
type outcome = clitest.Outcome

var (
	conformance    = clitest.Conformance
	conformanceEnv = clitest.ConformanceEnv
	invoke         = clitest.Invoke
	file           = clitest.File
)
