package dialect_test

import (
	"testing"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
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
	})
	gomega.RegisterFailHandler(ginkgo.Fail)
	framework.Define()
	ginkgo.RunSpecs(t, "guest dialect")

	g := gomega.NewWithT(t)
	g.Expect(got.Status).To(gomega.Equal(result.StatusCompleted), "the v2 cell must complete without tools/ALL_TOOLS: %s (%s)\n%s", got.Value, got.Error, guest)
	g.Expect(string(got.Value)).To(gomega.MatchJSON(`{"sum": 5, "found": true, "listed": true, "params": ["a", "b"], "echoed": 1}`), "call, search, describe, listTools and dispatch over catalog handles")
}
