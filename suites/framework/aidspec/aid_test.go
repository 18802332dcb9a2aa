// Package aidspec_test proves at the Ginkgo level that a spec reading its
// evidence through another requirement's driver (the session store's
// entries through run.trajectory: framework.TrajectoryAid) is blocked by
// the trajectory's owner, not failed, when the target answers -32601; and
// that a block by a requirement the run does not select says so. Its own
// package, because a process runs Ginkgo's RunSpecs only once.
package aidspec_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/targets"
	"github.com/codemode-conformance/codemode/targets/builtin"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
)

// noTrajectory is the reference, declaring trajectory as it does, except
// that run.trajectory reaches it under another name: it answers -32601, as
// an adapter that declares the feature but wires no method would.
func noTrajectory(ctx context.Context, r io.Reader, w io.WriteCloser) error {
	pr, pw := io.Pipe()
	go func() {
		in := bufio.NewReader(r)
		for {
			line, err := in.ReadBytes('\n')
			line = bytes.Replace(line, []byte(`"method":"run.trajectory"`), []byte(`"method":"run.trajectory-not-wired"`), 1)
			if _, werr := pw.Write(line); werr != nil || err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return builtin.Serve(ctx, pr, w)
}

// recordT keeps Ginkgo's verdict of the inner run to itself.
type recordT struct{ failed bool }

func (r *recordT) Fail() { r.failed = true }

func TestTrajectoryAidIsAPrecondition(t *testing.T) {
	targets.Register("test:no-trajectory", "the reference answering run.trajectory -32601", noTrajectory)
	reports := map[string]ginkgo.SpecReport{}
	ginkgo.ReportAfterEach(func(r ginkgo.SpecReport) { reports[r.LeafNodeText] = r })
	framework.Describe("codemode", "aids", func() {
		framework.It("CM-STO-05", "reads the entries through run.trajectory", func(ctx framework.SpecContext) {
			r := framework.NewRun(ctx, framework.RunOptions{CodeMode: true, Tools: tools.Standard()})
			r.TrajectoryAid(ctx, "the test reads the entries")
			ginkgo.Fail("unreachable: the -32601 answer blocks the spec")
		})
		framework.It("CM-SEC-05", "blocked by a requirement the run does not select", func(ctx framework.SpecContext) {
			framework.Blocked("CM-EXEC-06", "a probe did not complete")
		})
		framework.It("CM-SEC-01", "blocked by a requirement the run selects", func(ctx framework.SpecContext) {
			framework.Blocked("CM-SEC-05", "a probe did not complete")
		})
		framework.It("CM-EXEC-06", "not selected", func(ctx framework.SpecContext) {})
	})
	gomega.RegisterFailHandler(ginkgo.Fail)
	framework.Configure(framework.Config{Target: "test:no-trajectory", Profile: "v2"})
	framework.Define()
	sc, rc := ginkgo.GinkgoConfiguration()
	sc.LabelFilter = "req:CM-STO-05 || req:CM-SEC-05 || req:CM-SEC-01"
	ginkgo.RunSpecs(&recordT{}, "aids", sc, rc)

	g := gomega.NewWithT(t)
	g.Expect(reports).To(gomega.HaveKey("CM-STO-05 reads the entries through run.trajectory"))
	owner := framework.TrajectoryOwner()
	for _, c := range []struct{ text, by, msg string }{
		{"CM-STO-05 reads the entries through run.trajectory", owner, "does not answer `" + protocol.MethodRunTrajectory + "` (-32601"},
		{"CM-STO-05 reads the entries through run.trajectory", owner, "is not selected in this run"},
		{"CM-SEC-05 blocked by a requirement the run does not select", "CM-EXEC-06", "CM-EXEC-06, which owns this precondition, is not selected in this run"},
		{"CM-SEC-01 blocked by a requirement the run selects", "CM-SEC-05", "a probe did not complete"},
	} {
		rep := reports[c.text]
		g.Expect(rep.State).To(gomega.Equal(types.SpecStateSkipped), "%s stops as a block, not a failure: %s", c.text, rep.FailureMessage())
		g.Expect(report.Spec(rep).Outcome()).To(gomega.Equal(report.Blocked), "the report reads %s as blocked", c.text)
		g.Expect(report.Spec(rep).BlockedBy).To(gomega.Equal(c.by), "%s is blocked by the owner of its precondition", c.text)
		g.Expect(rep.FailureMessage()).To(gomega.HavePrefix(evidence.BlockedPrefix+c.by+": "), "%s says what blocks it", c.text)
		g.Expect(rep.FailureMessage()).To(gomega.ContainSubstring(c.msg), "%s", c.text)
	}
	g.Expect(reports["CM-SEC-01 blocked by a requirement the run selects"].FailureMessage()).NotTo(gomega.ContainSubstring("not selected"),
		"a block by a selected requirement adds no note")
}
