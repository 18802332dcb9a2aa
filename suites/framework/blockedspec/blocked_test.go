// Package blockedspec_test proves at the Ginkgo level that a failed
// precondition (framework.Precondition, framework.Blocked) stops a spec as
// blocked by the owning requirement, and that tools/report reads that
// verdict from the typed entry: its own package, because a process runs
// Ginkgo's RunSpecs only once.
package blockedspec_test

import (
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/codemode-conformance/codemode/suites/framework"
	_ "github.com/codemode-conformance/codemode/targets/builtin"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
)

// recordT keeps Ginkgo's verdict of the inner run to itself: some specs
// under test are meant to fail.
type recordT struct{ failed bool }

func (r *recordT) Fail() { r.failed = true }

func TestFailedPreconditionIsBlocked(t *testing.T) {
	reports := map[string]ginkgo.SpecReport{}
	ginkgo.ReportAfterEach(func(r ginkgo.SpecReport) { reports[r.LeafNodeText] = r })
	framework.Describe("codemode", "preconditions", func() {
		framework.It("CM-SEC-05", "an Expect of a precondition", func(ctx framework.SpecContext) {
			framework.Precondition("CM-EXEC-01").Expect("waiting").To(gomega.Equal("completed"), "the probe cell must complete")
			ginkgo.Fail("unreachable: the precondition stops the spec")
		})
		framework.It("CM-SEC-01", "Blocked with a message", func(ctx framework.SpecContext) {
			framework.Blocked("CM-EXEC-06", "the probe cell is still %s after %d waits", "waiting", 3)
		})
		framework.It("CM-ACT-05", "an Eventually of a precondition", func(ctx framework.SpecContext) {
			framework.Precondition("CM-GUEST-01").Eventually(func() bool { return false }).
				WithTimeout(50*time.Millisecond).WithPolling(10*time.Millisecond).Should(gomega.BeTrue(), "tools.call must exist")
		})
		framework.It("CM-SEC-03", "a passing precondition", func(ctx framework.SpecContext) {
			framework.Precondition("CM-EXEC-01").Expect(1).To(gomega.Equal(1), "holds")
		})
		framework.It("CM-GUEST-05", "a failure after the block", func(ctx framework.SpecContext) {
			ginkgo.DeferCleanup(func() { ginkgo.Fail("the spec's cleanup failed") })
			framework.Blocked("CM-EXEC-01", "blocked first")
		})
		framework.It("CM-EXEC-01", "blocked by its own requirement", func(ctx framework.SpecContext) {
			framework.Blocked("CM-EXEC-01", "a misuse")
		})
	})
	gomega.RegisterFailHandler(ginkgo.Fail)
	framework.Configure(framework.Config{Target: "builtin"})
	framework.Define()
	ginkgo.RunSpecs(&recordT{}, "preconditions")

	g := gomega.NewWithT(t)
	g.Expect(reports).To(gomega.HaveLen(6), "every spec ran")
	blocked := func(text string) (evidence.Blocked, bool) {
		for _, e := range reports[text].ReportEntries {
			if e.Name == evidence.BlockedEntry {
				var b evidence.Blocked
				g.Expect(evidence.Decode(e.Value, &b)).To(gomega.Succeed(), "the entry decodes")
				return b, true
			}
		}
		return evidence.Blocked{}, false
	}
	for _, c := range []struct{ text, by, msg string }{
		{"CM-SEC-05 an Expect of a precondition", "CM-EXEC-01", "the probe cell must complete"},
		{"CM-SEC-01 Blocked with a message", "CM-EXEC-06", "the probe cell is still waiting after 3 waits"},
		{"CM-ACT-05 an Eventually of a precondition", "CM-GUEST-01", "tools.call must exist"},
	} {
		rep := reports[c.text]
		b, ok := blocked(c.text)
		g.Expect(ok).To(gomega.BeTrue(), "%s carries the blocked entry", c.text)
		g.Expect(b.By).To(gomega.Equal(c.by), "%s is blocked by the owner of the precondition", c.text)
		g.Expect(b.Message).To(gomega.ContainSubstring(c.msg), "%s keeps the failure message", c.text)
		g.Expect(rep.State).To(gomega.Equal(types.SpecStateSkipped), "%s stops as a skip, not a failure: %s", c.text, rep.FailureMessage())
		g.Expect(rep.FailureMessage()).To(gomega.HavePrefix(evidence.BlockedPrefix+c.by+": "), "%s says what blocks it", c.text)
		g.Expect(report.Spec(rep).Outcome()).To(gomega.Equal(report.Blocked), "the report reads %s as blocked", c.text)
		g.Expect(report.Spec(rep).BlockedBy).To(gomega.Equal(c.by), "the report names the blocking requirement of %s", c.text)
	}
	g.Expect(reports["CM-SEC-03 a passing precondition"].State).To(gomega.Equal(types.SpecStatePassed), "a precondition that holds changes nothing")
	_, ok := blocked("CM-SEC-03 a passing precondition")
	g.Expect(ok).To(gomega.BeFalse(), "a precondition that holds adds no entry")
	after := report.Spec(reports["CM-GUEST-05 a failure after the block"])
	g.Expect(after.Outcome()).To(gomega.Equal(report.Fail), "a failure after the block wins: the spec fails (%s: %s)", after.State, after.Message)
	own := reports["CM-EXEC-01 blocked by its own requirement"]
	g.Expect(own.State).To(gomega.Equal(types.SpecStatePanicked), "a spec cannot be blocked by its own requirement: %s", own.FailureMessage())
}
