package security_test

import (
	"testing"

	"github.com/codemode-conformance/codemode/suites/framework"
	_ "github.com/codemode-conformance/codemode/suites/security"
)

func TestSecurity(t *testing.T) { framework.RunSuite(t, "codemode security") }
