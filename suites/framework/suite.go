package framework

import (
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// RunSuite runs the registered specs under go test against the target named
// by CODEMODE_TARGET (default builtin). Each suite package's test file calls it.
func RunSuite(t *testing.T, name string) {
	gomega.RegisterFailHandler(ginkgo.Fail)
	Configure(ConfigFromEnv())
	Define()
	ginkgo.RunSpecs(t, name)
}
