package codemode_test

import (
	"testing"

	_ "github.com/codemode-conformance/codemode/suites/codemode"
	"github.com/codemode-conformance/codemode/suites/framework"
	_ "github.com/codemode-conformance/codemode/targets/builtin" // builtin and fake:* (CODEMODE_TARGET)
)

func TestCodemode(t *testing.T) { framework.RunSuite(t, "codemode exec/wait contract") }
