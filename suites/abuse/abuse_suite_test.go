package abuse_test

import (
	"testing"

	_ "github.com/codemode-conformance/codemode/suites/abuse"
	"github.com/codemode-conformance/codemode/suites/framework"
	_ "github.com/codemode-conformance/codemode/targets/builtin" // builtin and fake:* (CODEMODE_TARGET)
)

func TestAbuse(t *testing.T) { framework.RunSuite(t, "codemode protocol abuse") }
