package conformance

import (
	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/tools/report"
)

// RequiredFeatures is what the judged profile requires that the run lacks
// (framework.RequiredFeatures, protocol.md §9), as the reports record it;
// empty before the suite connected to the target.
func RequiredFeatures() report.RequiredFeatures {
	g := framework.RequiredFeatures()
	return report.RequiredFeatures{Missing: g.Missing, Exempted: g.Exempted, NotDrivable: g.NotDrivable}
}
