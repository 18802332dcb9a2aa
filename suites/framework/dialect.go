package framework

import (
	"encoding/json"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/codemode-conformance/codemode/suites/framework/dialect"
)

// dialectToken stands for the guest dialect in a cell made by Guest until
// Rendered replaces it with the dialect of the run's profile. It is a
// comment, so a cell sent without rendering fails on a missing helper, not
// on a syntax error.
const dialectToken = "/*codemode-dialect*/"

// Rendered is code with the guest dialect of the profile the run judges in
// place of Guest's placeholder (code without one is returned unchanged).
// modelCall renders every exec input; a spec that hands a cell to someone
// else (a fake model provider's script) renders it itself.
//
// Before the run's profile is known (Profile is "") code is returned
// unchanged.
func Rendered(code string) string {
	p := Profile()
	if p == "" || !strings.Contains(code, dialectToken) {
		return code
	}
	return strings.ReplaceAll(code, dialectToken, dialect.Prelude(p))
}

// renderedInput is a model input (JSON) with every dialect placeholder of
// its strings rendered (Rendered).
func renderedInput(in json.RawMessage) json.RawMessage {
	if !strings.Contains(string(in), dialectToken) {
		return in
	}
	p := Profile()
	if p == "" {
		p = spec.DefaultProfile
	}
	pre, _ := json.Marshal(dialect.Prelude(p))
	return json.RawMessage(strings.ReplaceAll(string(in), dialectToken, string(pre[1:len(pre)-1])))
}

// checkDialect stops the spec as blocked when a failed result's error is a
// dialect helper's missing surface (dialect.BlockedBy): the spec relied on
// the guest API of its profile, which another requirement judges. A spec
// of that requirement itself fails as usual.
func checkDialect(res Result) {
	if res.Status != result.StatusFailed {
		return
	}
	req, what, ok := dialect.BlockedBy(res.Error)
	if !ok || req == currentRequirement() {
		return
	}
	blockDialect(req, "the guest dialect of profile %s needs what the target lacks: %s (%s)", Profile(), what, res.Error)
}

// blockDialect stops the spec as blocked by req (a variable so a test can
// watch it).
var blockDialect = Blocked
