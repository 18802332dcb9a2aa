package report_test

import (
	"bytes"
	"strings"

	"github.com/codemode-conformance/codemode/tools/report"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

var _ = Describe("required features the target lacks", func() {
	spec := func(id string, state types.SpecState, msg string) types.SpecReport {
		return types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: id + " x", LeafNodeLabels: []string{"req:" + id},
			State: state, Failure: types.Failure{Message: msg}}
	}
	judge := func(r types.Report, req report.RequiredFeatures) (report.Conformance, string) {
		GinkgoHelper()
		ev := report.Evaluate(report.Specs(r), nil)
		c := report.NewConformance(ev, nil, nil)
		c.Profile = report.NewProfile("v1", "", "v1")
		c.ApplyRequired(req)
		var out bytes.Buffer
		Expect(report.RenderHTML(&out, r, ev, c)).To(Succeed())
		return c, out.String()
	}

	It("are named at the top of report.html and summary.md, and in the reasons of a failing run", func() {
		r := types.Report{SpecReports: types.SpecReports{spec("CM-SEC-01", types.SpecStateFailed, "an escape reached the host process")}}
		c, page := judge(r, report.RequiredFeatures{Missing: []string{"isolation", "snapshot-executor"}})
		Expect(c.Overall).To(Equal(report.Failure), "overall")
		Expect(c.Reasons).To(ContainElement("required features missing under profile v1: isolation, snapshot-executor (not declared)"), "reasons")
		head, _, _ := strings.Cut(page, "<table>")
		Expect(head).To(ContainSubstring("required features missing: profile v1 requires isolation, snapshot-executor"), "report.html names them before its first table")
		Expect(c.RequiredMarkdown()).To(HavePrefix("- **Required features missing: profile v1 requires isolation, snapshot-executor"), "summary.md's block")
		Expect(c.RequiredMarkdown()).NotTo(ContainSubstring("except"), "neither isolation nor snapshot-executor has a driver: both are judged on behaviour")
	})

	It("name the missing features the harness drives through a surface of its own, which get one verdict each", func() {
		r := types.Report{SpecReports: types.SpecReports{spec("CM-ACT-09", types.SpecStateFailed, "not implemented or not drivable: profile v1 requires feature agent-turn")}}
		c, _ := judge(r, report.RequiredFeatures{Missing: []string{"isolation", "agent-turn", "sandbox"}})
		Expect(c.Features.Required.Lines("v1")).To(ConsistOf(HaveSuffix("judged on behaviour, except agent-turn, sandbox, which the harness drives only through a surface of its own: one failure each, as not implemented or not drivable, and their other requirements blocked")))
	})

	It("make a run that exempted one at best partial, and say so", func() {
		r := types.Report{SpecReports: types.SpecReports{spec("CM-EXEC-01", types.SpecStatePassed, ""), spec("CM-SEC-01", types.SpecStateSkipped, `required feature "isolation" exempted by the user`)}}
		c, page := judge(r, report.RequiredFeatures{Exempted: []string{"isolation"}})
		Expect(c.Overall).To(Equal(report.Partial), "a required feature exempted by the user keeps the run from success")
		Expect(c.Reasons).To(ContainElement("required features exempted by the user: isolation (profile v1 requires them)"), "reasons")
		Expect(page).To(ContainSubstring("required features exempted by the user (--exempt-features): isolation"), "report.html")
		Expect(c.Features.Required).NotTo(BeNil(), "features.required in conformance-report.yaml")
	})

	It("leave every report as it was when nothing is lacking", func() {
		r := types.Report{SpecReports: types.SpecReports{spec("CM-EXEC-01", types.SpecStatePassed, "")}}
		c, page := judge(r, report.RequiredFeatures{})
		Expect(c.Overall).To(Equal(report.Success), "overall")
		Expect(c.Features.Required).To(BeNil(), "no features.required")
		Expect(c.RequiredMarkdown()).To(BeEmpty(), "no summary.md block")
		Expect(page).NotTo(ContainSubstring(`class="required"`), "no report.html block")
	})
})
