package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

func TestConformanceMD(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "conformance-md")
}

var _ = Describe("Render", func() {
	ok := report.SpecResult{Requirement: "CM-EXEC-01", Text: "CM-EXEC-01 a", Location: "/x/suites/e2e/exec.go:10", State: "passed"}

	It("fails when a spec's requirement label was removed", func() {
		unlabelled := ok
		unlabelled.Requirement = ""
		_, err := Render([]report.SpecResult{ok, unlabelled})
		Expect(err).To(MatchError(ContainSubstring("carries no req: label")))
	})
	It("fails on an unknown requirement id", func() {
		bad := ok
		bad.Requirement, bad.Text = "CM-NOPE-01", "other"
		_, err := Render([]report.SpecResult{bad})
		Expect(err).To(MatchError(ContainSubstring("unknown requirement CM-NOPE-01")))
	})
	It("fails when two specs share a name", func() {
		_, err := Render([]report.SpecResult{ok, ok})
		Expect(err).To(MatchError(ContainSubstring("share the name")))
	})
	It("lists covered requirements with their verdict and uncovered ones as not covered", func() {
		md, err := Render([]report.SpecResult{ok})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(md)).To(ContainSubstring("| CM-EXEC-01 | MUST | core | 000 [exec] | pass |"))
		Expect(string(md)).To(ContainSubstring("| CM-EXEC-02 | MUST | core | 000 [exec] | not covered | — |"))
	})
})

// run runs the conformance CLI against target and renders CONFORMANCE.md
// from its report.
func renderFromRun(cli, target string) string {
	dir := GinkgoT().TempDir()
	cmd := exec.Command(cli, "run", "--target", target, "--results-dir", dir)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	Eventually(s).WithTimeout(10 * 60e9).Should(gexec.Exit())
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	Expect(err).NotTo(HaveOccurred())
	var reports []types.Report
	Expect(json.Unmarshal(b, &reports)).To(Succeed())
	md, err := Render(report.Specs(reports[0]))
	Expect(err).NotTo(HaveOccurred())
	return string(md)
}

var _ = Describe("CONFORMANCE.md", Ordered, func() {
	var cli, ref string
	BeforeAll(func() {
		var err error
		cli, err = gexec.Build("github.com/codemode-conformance/codemode/tools/codemode-conformance")
		Expect(err).NotTo(HaveOccurred())
		ref, err = gexec.Build("github.com/codemode-conformance/codemode/reference/cmd/codemode-reference")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(gexec.CleanupBuildArtifacts)
	})

	It("is up to date with a run against the builtin reference", func() {
		committed, err := os.ReadFile("../../CONFORMANCE.md")
		Expect(err).NotTo(HaveOccurred())
		if d := cmp.Diff(string(committed), renderFromRun(cli, "builtin")); d != "" {
			Fail("CONFORMANCE.md is stale; run `make conformance-md` (-committed +fresh):\n" + d)
		}
	})

	It("gets the same verdicts when the reference runs as a separate process over stdio", func() {
		committed, err := os.ReadFile("../../CONFORMANCE.md")
		Expect(err).NotTo(HaveOccurred())
		if d := cmp.Diff(string(committed), renderFromRun(cli, "exec:"+ref+" serve --stdio")); d != "" {
			Fail("verdicts over exec: differ from builtin (-builtin +exec):\n" + d)
		}
	})
})
