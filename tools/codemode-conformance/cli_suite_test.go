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
	RunSpecs(t, suiteDescription)
}

const suiteDescription = "codemode-conformance command"

var _ = BeforeSuite(func() {
	clitest.Build()
	// The release tarball builds while the other specs run (release_test.go).
	startReleaseBuild(suiteDescription, distSpec, "the release tarball alone "+releaseAloneSpec)
})

// The CLI runs of these specs (see package clitest).
type outcome = clitest.Outcome

var (
	conformance    = clitest.Conformance
	conformanceEnv = clitest.ConformanceEnv
	invoke         = clitest.Invoke
	file           = clitest.File
)
