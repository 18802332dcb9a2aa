package security

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/onsi/ginkgo/v2"
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
	Internals     int      `json:"internals"`
	GlobalNames   int      `json:"globalNames"`
	FunctionsRead int      `json:"functionsRead"`
}

var _ = Describe("security", "bridge internals", func() {
	It("CM-SEC-01", "no bridge internal the guest can reach leads out of its realm: calling each with requests for a tool outside the run's catalog invokes nothing", func(ctx SpecContext) {
		// Page 000 lists built-in code-mode globals of the runtime's own
		// (__openclaw*), so in-realm internals are reported, not charged;
		// the fault is one that makes the host act beyond the run's catalog.
		public := tools.Named(protocol.SourcePlugin, "vault", "public_note", "A note the run may read.")
		secret := tools.Named(protocol.SourcePlugin, "vault", "secret_note", "A note the run's policy denies.")
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 10000}), Tools: append(tools.Standard(), public, secret),
			Policy: &protocol.Policy{Deny: []string{"secret_note"}}})
		// Probed three times: before any nested call, while one is in flight
		// (a runtime could install its bridge lazily), and after the cell was
		// suspended and resumed (a restored snapshot). The denied tool's ids
		// are guessed from its allowed sibling's (ids are the target's own).
		code := Guest(bridgeJS + `
const pub = id("public_note");
const denied = [...new Set([pub.split("public_note").join("secret_note"), "secret_note", "plugin:vault:secret_note"])];
const before = JSON.parse(await bridgeReport());
let forged = await bridgeForge(denied);
const p = dispatch("slow", {ms: 300, tag: "bridge-probe"});
const during = JSON.parse(await bridgeReport());
forged += await bridgeForge(denied);
await p;
await yield_control("bridge probe");
const resumed = JSON.parse(await bridgeReport());
forged += await bridgeForge(denied);
await call("echo", {tag: "after-forge"});
return JSON.stringify({before, during, resumed, forged});`)
		res, _ := r.RunToCompletion(ctx, code)
		Expect(res).To(BeCompleted(), "the bridge probe must run to completion")
		var s string
		Expect(json.Unmarshal(res.Value, &s)).To(Succeed(), "the probe returns its report as a JSON string: %s", res.Value)
		var got struct {
			Before, During, Resumed bridgeProbe
			Forged                  int
		}
		Expect(json.Unmarshal([]byte(s), &got)).To(Succeed(), "the probe report must decode: %s", s)
		for _, c := range []struct {
			when string
			p    bridgeProbe
		}{{"before any nested call", got.Before}, {"while a nested call is in flight", got.During}, {"after wait resumed the cell", got.Resumed}} {
			Expect(c.p.Unvisited).To(BeZero(), "%s: the walk stopped at its cap with %d values never judged; a bridge internal may hide among them", c.when, c.p.Unvisited)
			Expect(c.p.Visited).To(BeNumerically(">=", 200), "%s: the walk from globalThis must reach every intrinsic and the guest API; it judged %d values", c.when, c.p.Visited)
			if len(c.p.Found) > 0 {
				ginkgo.AddReportEntry("bridge internals "+c.when, strings.Join(c.p.Found, "\n"))
			}
		}
		Expect(fmt.Sprint(got.Before.FunctionsRead)).NotTo(Equal("0"), "the probe must read the source of the guest API's functions (tools.call, text, json, …)")
		Consistently(func() []protocol.InvokeParams { return r.Tools.CallsOf("secret_note") }).WithTimeout(500*time.Millisecond).Should(BeEmpty(),
			"a bridge internal the guest reached made the host invoke secret_note, a tool outside the run's catalog (%d forged calls to %d internals found):\n  %s",
			got.Forged, got.Before.Internals, strings.Join(got.Before.Found, "\n  "))
	})
})
