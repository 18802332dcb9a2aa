package main

import (
	"strings"

	"github.com/codemode-conformance/codemode/conformance"
	"github.com/codemode-conformance/codemode/suites/framework"
)

// requiredBanner is what the console prints before the first spec's line:
// the required features of the judged profile the target lacks (missing,
// exempted by the user, not drivable), one line each, or "".
func requiredBanner() string {
	r := conformance.RequiredFeatures()
	lines := r.Lines(framework.Profile())
	if len(lines) == 0 {
		return ""
	}
	return "!! " + strings.Join(lines, "\n!! ") + "\n"
}
