package namespaces_test

import (
	"testing"

	"github.com/codemode-conformance/codemode/suites/framework"
	_ "github.com/codemode-conformance/codemode/suites/namespaces"
	_ "github.com/codemode-conformance/codemode/targets/builtin" // builtin and fake:* (CODEMODE_TARGET)
)

func TestNamespaces(t *testing.T) { framework.RunSuite(t, "codemode namespaces") }
