package framework

import (
	"fmt"
	"strings"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/onsi/ginkgo/v2"
)

// notDrivable returns the target's reason when it declared surface (or the
// requirement id) not drivable in initialize, else "".
func notDrivable(surface, id string) string {
	tgtMu.Lock()
	defer tgtMu.Unlock()
	for _, n := range lastInit.NotDrivable {
		if (surface != "" && n.Surface == surface) || (id != "" && n.Requirement == id) {
			what := n.Surface
			if what == "" {
				what = n.Requirement
			}
			return what + ": " + n.Reason
		}
	}
	return ""
}

// notDrivableFeature returns the target's reason when it declared feature f
// not drivable in initialize (notDrivable[].feature), else "".
func notDrivableFeature(f string) string {
	tgtMu.Lock()
	defer tgtMu.Unlock()
	for _, n := range lastInit.NotDrivable {
		if n.Feature != "" && n.Feature == f {
			return "feature " + f + ": " + n.Reason
		}
	}
	return ""
}

// currentRequirement is the req: label of the running spec.
func currentRequirement() string {
	for _, l := range ginkgo.CurrentSpecReport().Labels() {
		if strings.HasPrefix(l, evidence.LabelRequirement) {
			return strings.TrimPrefix(l, evidence.LabelRequirement)
		}
	}
	return ""
}

// RequireDrivable skips the running spec when the target declared surface
// not drivable: the report shows its requirement as not drivable, never as
// a pass or a failure of the requirement.
func RequireDrivable(surface string) {
	ginkgo.GinkgoHelper()
	if why := notDrivable(surface, ""); why != "" {
		ginkgo.Skip(fmt.Sprintf("%s%s (requirement %s)", protocol.NotDrivablePrefix, why, currentRequirement()))
	}
}

// Drivable reports whether the target can drive surface (it did not declare
// it not drivable). For specs that use a surface only as an aid, not as
// what they judge (the abuse specs' runtime.stats baseline).
func Drivable(surface string) bool { return notDrivable(surface, "") == "" }
