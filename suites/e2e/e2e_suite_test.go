package e2e_test

import (
	"testing"

	_ "github.com/codemode-conformance/codemode/suites/e2e"
	"github.com/codemode-conformance/codemode/suites/framework"
	_ "github.com/codemode-conformance/codemode/targets/builtin" // builtin and fake:* (CODEMODE_TARGET)
)

func TestE2E(t *testing.T) { framework.RunSuite(t, "end-to-end plan") }
