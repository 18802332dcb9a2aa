package broken_test

import (
	"testing"

	"github.com/codemode-conformance/codemode/internal/clitest"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestBroken(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, suiteDescription)
}

const suiteDescription = "broken reference variants"

// parallelRuns is how many CLI runs of the variant specs overlap: each
// mostly waits on deadlines (about a third of a core while it runs), so
// three keep 2 busy cores from starving the timing of the builtin run.
const parallelRuns = 3

var _ = BeforeSuite(func() {
	clitest.Build()
	queueRuns(parallelRuns)
})

// The CLI runs of these specs (see package clitest).
type outcome = clitest.Outcome

var (
	conformance    = clitest.Conformance
	conformanceEnv = clitest.ConformanceEnv
	file           = clitest.File
)
