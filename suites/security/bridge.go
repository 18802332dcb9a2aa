package security

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codemode-conformance/codemode/fakes/tools"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

// bridgeJS walks everything the guest reaches for the runtime's bridge
// internals (see bridge.js).
//
//go:embed bridge.js
var bridgeJS string

// bridgeProbe is what bridgeReport() in bridge.js returns.
type bridgeProbe struct {
	Visited       int      `json:"visited"`
	Unvisited     int      `json:"unvisited"`
	Found         []string `json:"found"`
	GlobalNames   int      `json:"globalNames"`
	FunctionsRead int      `json:"functionsRead"`
}

var _ = Describe("security", "bridge internals", func() {
	It("CM-SEC-01", "guest code cannot find the runtime's bridge internals: no reachable global, property, prototype or function name drains or answers the guest's requests", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 10000}), Tools: tools.Standard()})
		// Probed three times: before any nested call, while one is in flight
		// (a runtime could install its bridge lazily), and after the cell was
		// suspended and resumed (a restored snapshot).
		code := Guest(bridgeJS + `
const before = JSON.parse(await bridgeReport());
const p = dispatch("slow", {ms: 300, tag: "bridge-probe"});
const during = JSON.parse(await bridgeReport());
await p;
await yield_control("bridge probe");
const resumed = JSON.parse(await bridgeReport());
return JSON.stringify({before, during, resumed});`)
		res, _ := r.RunToCompletion(ctx, code)
		Expect(res).To(BeCompleted(), "the bridge probe must run to completion")
		var s string
		Expect(json.Unmarshal(res.Value, &s)).To(Succeed(), "the probe returns its report as a JSON string: %s", res.Value)
		var got struct{ Before, During, Resumed bridgeProbe }
		Expect(json.Unmarshal([]byte(s), &got)).To(Succeed(), "the probe report must decode: %s", s)
		for _, c := range []struct {
			when string
			p    bridgeProbe
		}{{"before any nested call", got.Before}, {"while a nested call is in flight", got.During}, {"after wait resumed the cell", got.Resumed}} {
			Expect(c.p.Unvisited).To(BeZero(), "%s: the walk stopped at its cap with %d values never judged; a bridge internal may hide among them", c.when, c.p.Unvisited)
			Expect(c.p.Visited).To(BeNumerically(">=", 200), "%s: the walk from globalThis must reach every intrinsic and the guest API; it judged %d values", c.when, c.p.Visited)
			Expect(c.p.Found).To(BeEmpty(), "%s: guest code reaches names that read like the runtime's bridge (the functions that drain the guest's requests and output or settle its nested calls must be held by the host, not reachable from guest code):\n  %s",
				c.when, strings.Join(c.p.Found, "\n  "))
		}
		Expect(fmt.Sprint(got.Before.FunctionsRead)).NotTo(Equal("0"), "the probe must read the source of the guest API's functions (tools.call, text, json, …)")
	})
})
