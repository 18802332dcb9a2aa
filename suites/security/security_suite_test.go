package security_test

import (
	"testing"

	"github.com/codemode-conformance/codemode/suites/framework"
	_ "github.com/codemode-conformance/codemode/suites/security"
	_ "github.com/codemode-conformance/codemode/targets/builtin" // builtin and fake:* (CODEMODE_TARGET)
)

func TestSecurity(t *testing.T) { framework.RunSuite(t, "codemode security") }
