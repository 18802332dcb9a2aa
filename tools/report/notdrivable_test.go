package report_test

import (
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/tools/report"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("not drivable", func() {
	notDrivable := func(id string) report.SpecResult {
		s := spec(id, "nd", "skipped")
		s.Message = protocol.NotDrivablePrefix + "runtime.stats: no counters (requirement " + id + ")"
		return s
	}

	It("counts requirements skipped as not drivable, names them, and keeps the overall from success", func() {
		// CM-TEL-01 has feature telemetry: a plain skip of it alone leaves a run successful.
		plain := report.NewConformance(report.Evaluate([]report.SpecResult{spec("CM-EXEC-01", "a", "passed"), spec("CM-TEL-01", "b", "skipped")}, nil), nil, nil)
		Expect(plain.Overall).To(Equal(report.Success), "control: a non-core skip is not a reason for partial")
		Expect(plain.Totals.NotDrivable).To(BeZero())

		c := report.NewConformance(report.Evaluate([]report.SpecResult{spec("CM-EXEC-01", "a", "passed"), notDrivable("CM-TEL-01")}, nil), nil, nil)
		Expect(c.Overall).To(Equal(report.Partial), "a not-drivable requirement can never leave the run at success")
		Expect(c.Totals.Skip).To(Equal(1))
		Expect(c.Totals.NotDrivable).To(Equal(1))
		Expect(c.Reasons).To(ContainElement("not drivable by the target: CM-TEL-01"))
	})

	It("does not count a requirement that also failed, or a not-drivable spec next to a passing one as passing", func() {
		ev := report.Evaluate([]report.SpecResult{spec("CM-EXEC-01", "a", "failed"), notDrivable("CM-EXEC-01"), spec("CM-EXEC-02", "b", "passed"), notDrivable("CM-EXEC-02")}, nil)
		Expect(report.NotDrivable(ev)).To(Equal([]string{"CM-EXEC-02"}))
		Expect(ev.Requirements["CM-EXEC-02"]).To(Equal(report.Skip), "a requirement with a not-drivable spec is not a pass")
		c := report.NewConformance(ev, nil, nil)
		Expect(c.Overall).To(Equal(report.Failure))
	})
})
