package security

import (
	"regexp"

	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/onsi/ginkgo/v2"
)

// missingGuestGlobal matches a failure on a guest global of CM-GUEST-01
// that the cell could not find (e.g. "ReferenceError: ALL_TOOLS is not
// defined").
var missingGuestGlobal = regexp.MustCompile(`ReferenceError\b.*\b(ALL_TOOLS|tools|MCP|namespaces|text|json|yield_control|API)\b`)

// probeCompleted is the precondition of every realm and forge probe: the
// probe's own cell must complete before its report can say anything about
// the security requirement its spec judges. When it does not (the cell
// fails on something unrelated, a caught run-time import ends it, it is
// still waiting after the waits that fit), the spec is blocked, never a
// failure of CM-SEC-01/05, CM-ACT-05 or CM-GUEST-05 (one fault, one
// requirement; independent-target review rows 11–13): by CM-GUEST-01 when a
// guest global is missing, else by CM-EXEC-06, which owns when a cell
// completes. What reaches the harness meanwhile (forged or refused
// tool.invoke, a crash) is still charged by endSpec, which wins over the
// block.
func probeCompleted(res Result, what string) {
	ginkgo.GinkgoHelper()
	if res.Status == result.StatusFailed && missingGuestGlobal.MatchString(res.Error) {
		Blocked("CM-GUEST-01", "%s failed on a missing guest global, so it judged nothing: %s", what, res)
	}
	Precondition("CM-EXEC-06").Expect(res).To(BeCompleted(), "%s must run to completion before its report can be read", what)
}
