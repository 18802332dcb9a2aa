package broken_test

import (
	"github.com/codemode-conformance/codemode/fakes/broken"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the conformance suite", func() {
	for _, v := range broken.Variants {
		v := v
		It("reports "+v.Breaks+" failing against fake:"+v.Name+" ("+v.Defect+") and passing against builtin", func() {
			code, summary := conformance("--target", "fake:"+v.Name, "--req", v.Breaks)
			Expect(code).To(Equal(1), "the CLI must exit non-zero for a broken target")
			Expect(summary).To(MatchRegexp(`\| `+areaOf(v.Breaks)+` \|[^\n]*\| `+v.Breaks), "summary must name the failing requirement:\n%s", summary)

			code, summary = conformance("--target", "builtin", "--req", v.Breaks)
			Expect(code).To(Equal(0), "the same specs must pass against the reference:\n%s", summary)
		})
	}
})

func areaOf(id string) string {
	// CM-<AREA>-NN
	return id[3 : len(id)-3]
}
