package broken_test

import (
	"testing"

	"github.com/codemode-conformance/codemode/internal/clitest"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestBroken(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "broken reference variants")
}

var _ = BeforeSuite(func() { clitest.Build() })

// The CLI runs of these specs (see package clitest).
type outcome = clitest.Outcome

var (
	conformance    = clitest.Conformance
	conformanceEnv = clitest.ConformanceEnv
	file           = clitest.File
)
