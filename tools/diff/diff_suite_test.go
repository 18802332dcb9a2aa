package diff_test

import (
	"testing"

	_ "github.com/codemode-conformance/codemode/targets/builtin"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestDiff(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "diff")
}
