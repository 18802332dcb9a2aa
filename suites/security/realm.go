package security

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codemode-conformance/codemode/fakes/tools"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// realmJS is the guest-side probe of the sandbox boundary: it walks every
// value the guest can reach and attempts the known escapes (see realm.js).
//
//go:embed realm.js
var realmJS string

// realmReport is what realmReport(part) in realm.js returns.
type realmReport struct {
	// Checked counts the objects and functions the walk judged.
	Checked int           `json:"checked"`
	Escapes []realmEscape `json:"escapes"`
	// Omitted counts escapes beyond the first 60 (the report is the cell's value).
	Omitted int `json:"omitted"`
	// Unvisited counts the queued values a walk cut at its cap never
	// judged; any makes the verdict impossible, so the spec fails.
	Unvisited int `json:"unvisited"`
	// Attempts maps each known escape to "blocked…" or "reached…".
	Attempts map[string]string `json:"attempts"`
	// Surface is the guest API part "delivered" called tools through:
	// "tools" (000's tools.call), "catalog" (001's catalog handles) or
	// "none".
	Surface string `json:"surface"`
}

// realmEscape is one path from a guest value out of the guest realm.
type realmEscape struct {
	Path       string   `json:"path"`
	Why        []string `json:"why"`
	Value      string   `json:"value,omitempty"`
	ReturnThis string   `json:"returnThis,omitempty"`
	Exposes    []string `json:"exposes,omitempty"`
}

// describeEscapes lists escapes one per line for failure messages.
func describeEscapes(rep realmReport) string {
	var b strings.Builder
	for _, e := range rep.Escapes {
		fmt.Fprintf(&b, "  %s", e.Path)
		if e.Value != "" {
			fmt.Fprintf(&b, " (%s)", e.Value)
		}
		fmt.Fprintf(&b, ": %s", strings.Join(e.Why, "; "))
		if e.ReturnThis != "" {
			fmt.Fprintf(&b, "; its Function(\"return this\")() is %s", e.ReturnThis)
		}
		if len(e.Exposes) > 0 {
			fmt.Fprintf(&b, " exposing %s", strings.Join(e.Exposes, ", "))
		}
		b.WriteString("\n")
	}
	if rep.Omitted > 0 {
		fmt.Fprintf(&b, "  … and %d more\n", rep.Omitted)
	}
	return b.String()
}

// probeRealm runs realm.js's realmReport(part) in a cell of r (following
// waits, as a model would) and decodes its report.
func probeRealm(ctx context.Context, r *Run, part string) (realmReport, Result) {
	ginkgo.GinkgoHelper()
	res, _ := r.RunToCompletion(ctx, fmt.Sprintf("%s\nreturn await realmReport(%q);", realmJS, part))
	probeCompleted(res, "the realm probe ("+part+")")
	var rep realmReport
	Precondition("CM-EXEC-06").Expect(json.Unmarshal(res.Value, &rep)).To(Succeed(), "the realm probe returns its report as JSON: %s", res.Value)
	ginkgo.AddReportEntry("realm probe "+part, string(res.Value), ginkgo.ReportEntryVisibilityFailureOrVerbose)
	Expect(rep.Unvisited).To(BeZero(), "the realm walk (%s) stopped at its cap of judged values with %d values never judged: "+
		"an escape may hide among them, so the boundary cannot be declared sound", part, rep.Unvisited)
	return rep, res
}

var _ = Describe("security", "guest realm", func() {
	It("CM-SEC-01", "no value the guest reaches leads out of its realm, and every known escape is blocked", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		rep, _ := probeRealm(ctx, r, "reach")
		Expect(len(rep.Escapes)+rep.Omitted).To(BeZero(), "every value reachable from this, globalThis and the intrinsics must lead back to the guest's own "+
			"Object.prototype, Function.prototype and Function, and every known escape must be blocked; these paths leave the guest realm:\n%s", describeEscapes(rep))
		Expect(rep.Attempts).To(HaveKey(`this.constructor.constructor("return process")()`), "the probe must attempt the constructor escape")
		for name, outcome := range Sorted(rep.Attempts) {
			Expect(outcome).To(HavePrefix("blocked"), "known escape %s must be blocked", name)
		}
		Expect(rep.Checked).To(BeNumerically(">=", 200),
			"the walk from this and globalThis must judge every intrinsic of the guest (Object, Function, Promise, … and their members); it judged %d values", rep.Checked)
	})

	It("CM-SEC-02", "every value the host hands the guest is of the guest realm: tools, helpers, text/json, promises, results and errors", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		rep, _ := probeRealm(ctx, r, "delivered")
		// An escape among the values the host did hand over is this
		// requirement's fault whatever else the cell reached.
		Expect(len(rep.Escapes)+rep.Omitted).To(BeZero(), "every value the host hands over (and every receiver, argument and call site of a host call back "+
			"into guest code) must lead back to the guest's own Object.prototype, Function.prototype and Function; these paths leave the guest realm:\n%s",
			describeEscapes(rep))
		// The calls are the probe's means, not its subject: a cell whose guest
		// API reaches no tool leaves the walk without results and errors to
		// judge, which the API's owner judges, so this comes before the count
		// of judged values (audit 2026-12-02). That tools.call(id) runs the
		// tool is CM-GUEST-05's text; that a catalog handle does is the v2
		// dialect's owner, CM-TS-06 (CM-GUEST-01's decision); a cell with
		// neither lacks the globals of its generation (CM-GUEST-01 under
		// v1, CM-TS-06 under v2, as the dialect blocks).
		owner := map[string]string{"tools": "CM-GUEST-05", "catalog": "CM-TS-06"}[rep.Surface]
		if owner == "" {
			owner = "CM-GUEST-01"
			if Profile() == "v2" {
				owner = "CM-TS-06"
			}
		}
		Precondition(owner).Expect(r.Tools.CallsOf("echo")).NotTo(BeEmpty(), "the probe must have called echo through the guest API of the cell (%s: 000's tools.call, or 001's catalog handles; profile %s): its results are part of the walk", rep.Surface, Profile())
		Expect(rep.Checked).To(BeNumerically(">=", 50),
			"the walk must judge tools, helpers, text/json, tool call promises, results and errors; it judged %d values", rep.Checked)
	})
})
