package main

import (
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/onsi/ginkgo/v2/types"
)

// A blocked spec's console line says BLOCKED and names the requirement that
// blocked it; a baselined one adds the baseline error.
func TestProgressLineBlocked(t *testing.T) {
	r := types.SpecReport{LeafNodeText: "CM-SEC-05 a", State: types.SpecStateSkipped, Failure: types.Failure{Message: "blocked by CM-EXEC-06: the forging cell must run to completion"}}
	v := report.SpecVerdict{SpecResult: report.SpecResult{Requirement: "CM-SEC-05", Text: "CM-SEC-05 a", BlockedBy: "CM-EXEC-06", Message: r.Failure.Message}, Verdict: report.Blocked}
	line := progressLine(1, r, v, "ef.yaml")
	for _, want := range []string{"BLOCKED CM-SEC-05 a", "not judged (CM-SEC-05): blocked by CM-EXEC-06: the forging cell must run to completion"} {
		if !strings.Contains(line, want) {
			t.Errorf("progress line %q lacks %q", line, want)
		}
	}
	v.BaselineError = "its verdict is blocked by CM-EXEC-06: a blocked verdict cannot be an expected failure"
	if line := progressLine(1, r, v, "ef.yaml"); !strings.Contains(line, "baseline error: ef.yaml lists this spec, but its verdict is blocked by CM-EXEC-06") {
		t.Errorf("progress line %q lacks the baseline error", line)
	}
}
