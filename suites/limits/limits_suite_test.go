package limits_test

import (
	"testing"

	"github.com/codemode-conformance/codemode/suites/framework"
	_ "github.com/codemode-conformance/codemode/suites/limits"
	_ "github.com/codemode-conformance/codemode/targets/builtin" // builtin and fake:* (CODEMODE_TARGET)
)

func TestLimits(t *testing.T) { framework.RunSuite(t, "codemode limits") }
