package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// v1 is a single run under profile v1.
func v1(specs []report.SpecResult) []ProfileRun { return []ProfileRun{{Profile: "v1", Specs: specs}} }

func TestConformanceMD(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "conformance-md")
}

var _ = Describe("render over a fixture", func() {
	reqs := []spec.Requirement{
		{ID: "CM-EXEC-01", Area: "EXEC", Level: "MUST", Feature: "core", Basis: []string{"seed", "openclaw-source"}, Source: "000 [exec]", Text: "covered"},
		{ID: "CM-EXEC-02", Area: "EXEC", Level: "MUST", Feature: "core", Basis: []string{"seed"}, Source: "000 [exec]", Text: "excluded", Excluded: "not observable"},
		{ID: "CM-EXEC-03", Area: "EXEC", Level: "MUST", Feature: "mcp", Basis: []string{"seed"}, Source: "000 [exec]", Text: "planned", Planned: "feature mcp"},
		{ID: "CM-EXEC-04", Area: "EXEC", Level: "SHOULD", Feature: "core", Basis: []string{"hardening"}, Source: "000 [exec]", Text: "optional"},
	}
	ok := report.SpecResult{Requirement: "CM-EXEC-01", Text: "CM-EXEC-01 a", Location: "/x/suites/codemode/exec.go:10", State: "passed"}

	It("renders covered, excluded, planned and uncovered requirements with totals", func() {
		md, err := render(v1([]report.SpecResult{ok}), reqs)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(md)).To(ContainSubstring("**4 requirements: 1 covered, 1 excluded, 2 not yet covered (1 of them MUST, each with a planned: note).**"))
		Expect(string(md)).To(ContainSubstring(fmt.Sprintf("Requirement catalogue **version %d**", spec.Version())), "the file names the catalogue version")
		Expect(string(md)).To(ContainSubstring("By basis (a requirement resting on two counts under both): seed 3 (1 covered), openclaw-source 1 (1 covered), hardening 1 (0 covered)."))
		Expect(string(md)).To(ContainSubstring("| CM-EXEC-01 | MUST | core | seed + openclaw-source | 000 [exec] | pass | `/x/suites/codemode/exec.go:10` |"))
		Expect(string(md)).To(ContainSubstring("| CM-EXEC-02 | MUST | core | seed | 000 [exec] | excluded: not observable | — |"))
		Expect(string(md)).To(ContainSubstring("| CM-EXEC-03 | MUST | mcp | seed | 000 [exec] | not covered (planned: feature mcp) | — |"))
		Expect(string(md)).To(ContainSubstring("| CM-EXEC-04 | SHOULD | core | hardening | 000 [exec] | not covered | — |"))
	})
	It("adds a verdict column per profile run, n/a where the profile does not define the feature", func() {
		ts := report.SpecResult{Requirement: "CM-EXEC-04", Text: "CM-EXEC-04 ts", Location: "/x/suites/codemode/ts.go:3", State: "passed"}
		reqs := append(reqs[:3:3], spec.Requirement{ID: "CM-EXEC-04", Area: "EXEC", Level: "SHOULD", Feature: "typescript", Basis: []string{"hardening"}, Source: "000 [exec]", Text: "ts"})
		failed := ok
		failed.State = "failed"
		skipped := ts
		skipped.State = "skipped"
		md, err := render([]ProfileRun{{Profile: "v1", Specs: []report.SpecResult{ok, ts}}, {Profile: "v2", Specs: []report.SpecResult{failed, skipped}}}, reqs)
		Expect(err).NotTo(HaveOccurred())
		s := string(md)
		Expect(s).To(ContainSubstring("| ID | level | feature | basis | source | verdict v1 | verdict v2 | specs |\n|---|---|---|---|---|---|---|---|"), "one verdict column per profile")
		Expect(s).To(ContainSubstring("| CM-EXEC-01 | MUST | core | seed + openclaw-source | 000 [exec] | pass | fail | `/x/suites/codemode/exec.go:10` |"), "each column has its run's verdict")
		Expect(s).To(ContainSubstring("| CM-EXEC-04 | SHOULD | typescript | hardening | 000 [exec] | pass | n/a (not in v2) | `/x/suites/codemode/ts.go:3` |"), "typescript is no v2 feature")
		Expect(s).To(ContainSubstring("| CM-EXEC-03 | MUST | mcp | seed | 000 [exec] | not covered (planned: feature mcp) | — | — |"), "a note without spec is given once")
		Expect(s).To(ContainSubstring("Column **verdict v2** is the reference judged against profile `v2` (generation 2, page 001"), "the file says what each column is")
		_, err = Render([]ProfileRun{{Profile: "v1", Specs: []report.SpecResult{ok}}, {Profile: "v2", Specs: []report.SpecResult{ok, ts}}})
		Expect(err).To(MatchError(ContainSubstring("hold different specs")), "runs of different builds cannot share a file")
	})

	It("adds a column per peer report: pass, fail (baselined), not drivable, its verdict, or — when it has none", func() {
		peer := Peer{Title: "Other 1.0", Path: "reports/other/conformance-report.yaml", Report: report.Conformance{
			Implementation: report.Peer{Name: "other", Version: "1.0"}, Overall: report.Partial,
			Requirements: []report.RequirementLine{
				{ID: "CM-EXEC-01", Verdict: report.XFail},
				{ID: "CM-EXEC-04", Verdict: report.Skip, Specs: []report.SpecLine{{Verdict: report.Skip, Message: protocol.NotDrivablePrefix + "policy: reason (requirement CM-EXEC-04)"}}},
			},
		}}
		md, err := render(v1([]report.SpecResult{ok}), reqs, peer)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(md)).To(ContainSubstring("Column **Other 1.0** is rendered from the committed `reports/other/conformance-report.yaml` (other 1.0, overall partial"))
		Expect(string(md)).To(ContainSubstring("| ID | level | feature | basis | source | verdict v1 | Other 1.0 | specs |\n|---|---|---|---|---|---|---|---|"))
		Expect(string(md)).To(ContainSubstring("| CM-EXEC-01 | MUST | core | seed + openclaw-source | 000 [exec] | pass | fail (baselined) | `/x/suites/codemode/exec.go:10` |"))
		Expect(string(md)).To(ContainSubstring("| CM-EXEC-02 | MUST | core | seed | 000 [exec] | excluded: not observable | — | — |"))
		Expect(string(md)).To(ContainSubstring("| CM-EXEC-04 | SHOULD | core | hardening | 000 [exec] | not covered | not drivable | — |"))
	})
	It("shows a blocked requirement as blocked by its blocker, and counts blocked per column", func() {
		peer := Peer{Title: "Other 1.0", Path: "reports/other/conformance-report.yaml", Report: report.Conformance{
			Implementation: report.Peer{Name: "other", Version: "1.0"}, Overall: report.Partial, Totals: report.Totals{Pass: 0, Blocked: 1},
			Requirements: []report.RequirementLine{{ID: "CM-EXEC-01", Verdict: report.Blocked, BlockedBy: []string{"CM-EXEC-06"}}},
		}}
		md, err := render(v1([]report.SpecResult{ok}), reqs, peer)
		Expect(err).NotTo(HaveOccurred(), "the file renders")
		Expect(string(md)).To(ContainSubstring("| CM-EXEC-01 | MUST | core | seed + openclaw-source | 000 [exec] | pass | blocked by CM-EXEC-06 | `/x/suites/codemode/exec.go:10` |"), "the peer's cell names the blocker")
		Expect(string(md)).To(ContainSubstring("- Other 1.0: 0 pass, 0 fail, 0 error, 0 xfail, 0 xpass, 1 blocked, 0 skip"), "blocked is counted apart per column")
		Expect(string(md)).To(ContainSubstring(`"blocked by CM-X": a precondition owned by requirement CM-X failed`), "the legend says what blocked means")
	})
	It("names the profile a peer report was judged against, and the committed peers hold a v2 column for OpenClaw 2026.9.6", func() {
		v2peer := Peer{Title: "Other 2.0 (v2)", Path: "reports/other2/conformance-report.yaml", Report: report.Conformance{
			Implementation: report.Peer{Name: "other", Version: "2.0"}, Overall: report.Failure, Profile: report.NewProfile("v2", "v2", "v2"),
			Requirements: []report.RequirementLine{{ID: "CM-EXEC-01", Verdict: report.Fail}},
		}}
		md, err := render(v1([]report.SpecResult{ok}), reqs, v2peer)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(md)).To(ContainSubstring("Column **Other 2.0 (v2)** is rendered from the committed `reports/other2/conformance-report.yaml` (other 2.0, profile v2, overall failure"), "a peer judged against v2 says so")
		Expect(string(md)).To(ContainSubstring("| CM-EXEC-01 | MUST | core | seed + openclaw-source | 000 [exec] | pass | fail | `/x/suites/codemode/exec.go:10` |"), "the v2 peer's verdict is its own column")
		peers, err := LoadPeers("../..", DefaultPeers)
		Expect(err).NotTo(HaveOccurred(), "the committed peer reports must load")
		byTitle := map[string]Peer{}
		for _, p := range peers {
			byTitle[p.Title] = p
		}
		Expect(byTitle).To(HaveKey("OpenClaw 2026.9.6 (v2)"), "CONFORMANCE.md must carry the generation-2 column")
		Expect(byTitle["OpenClaw 2026.9.6 (v2)"].Report.Profile.Name).To(Equal("v2"), "the 2026.9.6 report must be judged against profile v2")
		Expect(byTitle["OpenClaw 2026.9.6 (v2)"].Report.Target).To(Equal("openclaw:2026.9.6"), "the column must come from a run against openclaw:2026.9.6")
	})
	It("fails when a spec's requirement label was removed", func() {
		unlabelled := ok
		unlabelled.Requirement = ""
		_, err := render(v1([]report.SpecResult{unlabelled}), reqs)
		Expect(err).To(MatchError(ContainSubstring("carries no req: label")))
	})
	It("fails when a MUST loses its only spec and has no exclusion", func() {
		_, err := render(v1(nil), reqs)
		Expect(err).To(MatchError(ContainSubstring("MUST requirement CM-EXEC-01 has no spec")))
	})
	It("fails on an unknown requirement id", func() {
		bad := ok
		bad.Requirement, bad.Text = "CM-NOPE-01", "other"
		_, err := render(v1([]report.SpecResult{ok, bad}), reqs)
		Expect(err).To(MatchError(ContainSubstring("unknown requirement CM-NOPE-01")))
	})
	It("fails when two specs share a name", func() {
		_, err := render(v1([]report.SpecResult{ok, ok}), reqs)
		Expect(err).To(MatchError(ContainSubstring("share the name")))
	})
	It("fails when a planned requirement gained a spec", func() {
		planned := report.SpecResult{Requirement: "CM-EXEC-03", Text: "CM-EXEC-03 b", Location: "/x/suites/codemode/exec.go:20", State: "passed"}
		_, err := render(v1([]report.SpecResult{ok, planned}), reqs)
		Expect(err).To(MatchError(ContainSubstring("CM-EXEC-03 has a spec but is still marked planned")))
	})
})

// runProcs is each run's --procs: the waits of the parallel specs overlap
// (a serial run is about a third CPU, two thirds deadlines), the Serial
// ones still run alone at the end of their run, and the verdicts are a
// serial run's (tools/codemode-conformance's procs test): the file must
// come out the same.
const runProcs = 2

// cliRun is a conformance run of the CLI in the background: the runs of
// this file spend most of their time waiting on deadlines, not computing,
// so two at a time overlap well (more starve the 1 s cells of some specs on
// 2 busy cores).
type cliRun struct {
	profile string
	dir     string
	done    chan struct{} // closed when the CLI exited
	err     error         // starting or waiting for it
}

// startRuns starts the CLI against each target under its profile (pairs
// of target and profile), two at a time, in order; ctx ends them.
func startRuns(ctx context.Context, cli string, pairs ...string) []*cliRun {
	GinkgoHelper()
	slots := make(chan struct{}, 2)
	var runs []*cliRun
	var cmds []*exec.Cmd
	for i := 0; i+1 < len(pairs); i += 2 {
		r := &cliRun{profile: pairs[i+1], dir: GinkgoT().TempDir(), done: make(chan struct{})}
		cmd := exec.CommandContext(ctx, cli, "run", "--target", pairs[i], "--profile", r.profile, "--procs", fmt.Sprint(runProcs), "--results-dir", r.dir)
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		cmd.Stdout, cmd.Stderr = GinkgoWriter, GinkgoWriter
		runs, cmds = append(runs, r), append(cmds, cmd)
	}
	go func() {
		for i, r := range runs {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				for _, r := range runs[i:] {
					r.err = ctx.Err()
					close(r.done)
				}
				return
			}
			go func() {
				defer close(r.done)
				defer func() { <-slots }()
				if err := cmds[i].Run(); err != nil && cmds[i].ProcessState == nil {
					r.err = err // a run that fails (exit 1) still wrote its report
				}
			}()
		}
	}()
	return runs
}

// wait waits for the run to end and returns its specs.
func (r *cliRun) wait() ProfileRun {
	GinkgoHelper()
	Eventually(r.done).WithTimeout(20*60e9).Should(BeClosed(), "the run must end within 20 minutes")
	Expect(r.err).NotTo(HaveOccurred(), "running the CLI")
	b, err := os.ReadFile(filepath.Join(r.dir, "report.json"))
	Expect(err).NotTo(HaveOccurred(), "the run wrote no report.json")
	var reports []types.Report
	Expect(json.Unmarshal(b, &reports)).To(Succeed(), "report.json must decode")
	return ProfileRun{Profile: r.profile, Specs: report.Specs(reports[0])}
}

// renderFromRuns renders CONFORMANCE.md from a v1 and a v2 run (as make
// conformance-md does) with the committed peer reports.
func renderFromRuns(v1, v2 *cliRun) string {
	GinkgoHelper()
	runs := []ProfileRun{v1.wait(), v2.wait()}
	peers, err := LoadPeers("../..", DefaultPeers)
	Expect(err).NotTo(HaveOccurred(), "the committed peer reports must load")
	md, err := Render(runs, peers...)
	Expect(err).NotTo(HaveOccurred(), "the runs must render")
	return string(md)
}

var _ = Describe("CONFORMANCE.md", Ordered, func() {
	var builtinV1, builtinV2 *cliRun
	BeforeAll(func() {
		cli, err := gexec.Build("github.com/codemode-conformance/codemode/tools/codemode-conformance")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(gexec.CleanupBuildArtifacts)
		// Both runs at once; they end with the container. The same runs over
		// exec: are package overexec's, which go test runs beside this one.
		ctx, cancel := context.WithCancel(context.Background())
		DeferCleanup(cancel)
		runs := startRuns(ctx, cli, "builtin", "v1", "builtin", "v2")
		builtinV1, builtinV2 = runs[0], runs[1]
	})

	It("is up to date with a run against the builtin reference", func() {
		committed, err := os.ReadFile("../../CONFORMANCE.md")
		Expect(err).NotTo(HaveOccurred())
		if d := cmp.Diff(string(committed), renderFromRuns(builtinV1, builtinV2)); d != "" {
			Fail("CONFORMANCE.md is stale; run `make conformance-md` (-committed +fresh):\n" + d)
		}
	})
})
