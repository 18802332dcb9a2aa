package dialect_test

import (
	"testing"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/codemode-conformance/codemode/suites/framework"
	_ "github.com/codemode-conformance/codemode/targets/builtin" // the reference, in process
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// A cell whose body hides 000's guest API (a const tools and ALL_TOOLS of
// its own, undefined) still reaches its tools through the v2 dialect,
// which calls the reference's catalog handles (spec/protocol.md §12.13);
// under v1 the same cell's dialect finds no tools global and throws the
// missing-surface Error that makes a spec blocked by CM-GUEST-01.
const hidden = `const tools = undefined, ALL_TOOLS = undefined;
const sum = (await call("add", {a: 2, b: 3})).sum;
const found = (await search("add two numbers")).map((t) => t.name);
const d = await describe("add");
return {sum, found: found.includes("add"), listed: listTools().some((t) => t.name === "echo"), params: Object.keys(d.parameters.properties).sort(), echoed: (await dispatch("echo", {m: 1})).m};`

func TestDialectRendersOntoTheProfilesSurface(t *testing.T) {
	framework.Configure(framework.Config{Target: "builtin", Profile: "v2"})
	var got result.Result
	var guest string
	framework.Describe("codemode", "guest dialect self-test", func() {
		framework.It("CM-TS-06", "the v2 dialect runs on the reference's catalog handles", func(ctx framework.SpecContext) {
			r := framework.NewRun(ctx, framework.RunOptions{CodeMode: true, Tools: tools.Standard()})
			guest = framework.Guest(hidden)
			res, _ := r.RunToCompletion(ctx, guest)
			got = res.Result
		})
		// A target without the v2 surface (here: a body hiding catalog, and
		// 000's tools, through which the dialect would reach a target
		// declaring tools-api): the
		// dialect is a precondition, so the spec is blocked by CM-TS-06, the
		// owner of the catalog handles; a spec of CM-TS-06 itself fails.
		framework.It("CM-NEST-01", "a missing v2 surface blocks a spec that only relies on it", func(ctx framework.SpecContext) {
			r := framework.NewRun(ctx, framework.RunOptions{CodeMode: true, Tools: tools.Standard()})
			r.Exec(ctx, framework.Guest(`const catalog = undefined, tools = undefined; return await call("add", {a: 1, b: 1});`))
			ginkgo.Fail("unreachable: the missing dialect surface stops the spec as blocked")
		})
		framework.It("CM-TS-06", "a missing v2 surface fails a spec of its owner", func(ctx framework.SpecContext) {
			r := framework.NewRun(ctx, framework.RunOptions{CodeMode: true, Tools: tools.Standard()})
			res := r.Exec(ctx, framework.Guest(`const catalog = undefined, tools = undefined; return await call("add", {a: 1, b: 1});`))
			gomega.Expect(string(res.Status)).To(gomega.Equal("failed"), "the owner's spec sees the failed cell itself")
		})
	})
	reports := map[string]ginkgo.SpecReport{}
	ginkgo.ReportAfterEach(func(r ginkgo.SpecReport) { reports[r.LeafNodeText] = r })
	gomega.RegisterFailHandler(ginkgo.Fail)
	framework.Define()
	ginkgo.RunSpecs(&recordT{}, "guest dialect")

	g := gomega.NewWithT(t)
	g.Expect(got.Status).To(gomega.Equal(result.StatusCompleted), "the v2 cell must complete without tools/ALL_TOOLS: %s (%s)\n%s", got.Value, got.Error, guest)
	g.Expect(string(got.Value)).To(gomega.MatchJSON(`{"sum": 5, "found": true, "listed": true, "params": ["a", "b"], "echoed": 1}`), "call, search, describe, listTools and dispatch over catalog handles")

	blocked := reports["CM-NEST-01 a missing v2 surface blocks a spec that only relies on it"]
	var b evidence.Blocked
	for _, e := range blocked.ReportEntries {
		if e.Name == evidence.BlockedEntry {
			g.Expect(evidence.Decode(e.Value, &b)).To(gomega.Succeed(), "the blocked entry decodes")
		}
	}
	g.Expect(b.By).To(gomega.Equal("CM-TS-06"), "a spec relying on the v2 dialect is blocked by CM-TS-06 when the catalog is missing: %s", blocked.FailureMessage())
	g.Expect(b.Message).To(gomega.ContainSubstring("no catalog global"), "the block says what was missing")
	g.Expect(blocked.Failed()).To(gomega.BeFalse(), "blocked, not failed: %s", blocked.FailureMessage())
	own := reports["CM-TS-06 a missing v2 surface fails a spec of its owner"]
	g.Expect(own.Failed()).To(gomega.BeFalse(), "the owner's spec is not blocked by itself and sees the failed cell: %s", own.FailureMessage())
}

// recordT keeps Ginkgo's verdict of the inner run to itself: a blocked spec
// is a skip.
type recordT struct{ failed bool }

func (r *recordT) Fail() { r.failed = true }
