package main_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/codemode-conformance/codemode/internal/clitest"

	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/goccy/go-yaml"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// resultsWith writes a results directory whose conformance-report.yaml
// holds the given requirement lines.
func resultsWith(reqs ...report.RequirementLine) string {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	data, err := yaml.Marshal(report.Conformance{Target: "fake:x", Requirements: reqs})
	Expect(err).NotTo(HaveOccurred(), "marshalling a report")
	Expect(os.WriteFile(filepath.Join(dir, "conformance-report.yaml"), data, 0o644)).To(Succeed(), "writing the report")
	return dir
}

var _ = Describe("codemode-conformance baseline", Label("baseline"), func() {
	It("writes one entry per failing spec of a real run, which makes that run partial", func() {
		run := conformance("--target", "fake:no-output-limit", "--req", "CM-LIM-03")
		Expect(run.Code).To(Equal(1), "fake:no-output-limit fails CM-LIM-03")
		out := filepath.Join(GinkgoT().TempDir(), "expected-failures.yaml")
		o := invoke(os.Environ(), "baseline", "--from", run.Dir, "--out", out)
		Expect(o.Code).To(Equal(0), "baseline exits 0; stderr: %s", o.Stderr)
		text, err := os.ReadFile(out)
		Expect(err).NotTo(HaveOccurred(), "baseline wrote --out")
		var failing int
		for _, r := range run.Report.Requirements {
			for _, s := range r.Specs {
				if s.Verdict == report.Fail {
					failing++
					Expect(string(text)).To(ContainSubstring(`name: "`+s.Name+`"`), "the failing spec %q has an entry", s.Name)
				}
			}
		}
		Expect(failing).To(BeNumerically(">", 0), "the run has failing specs to write")
		Expect(string(text)).To(ContainSubstring("# CM-LIM-03\n"), "each entry names its requirement")
		Expect(string(text)).To(ContainSubstring("reason: \"TODO: "), "each entry has a reason placeholder")
		Expect(string(text)).To(ContainSubstring("class: deviation"), "each entry has a class")
		again := conformance("--target", "fake:no-output-limit", "--req", "CM-LIM-03", "--expected-failures", out)
		Expect(again.Code).To(Equal(0), "the written baseline loads and makes the same run partial; stdout:\n%s\nstderr:\n%s", again.Stdout, again.Stderr)
		Expect(again.Report.Overall).To(Equal(report.Partial), "the run with the written baseline is partial")
	})

	It("--update drops entries that now pass, keeps reasons and adds new failures", func() {
		dir := resultsWith(
			report.RequirementLine{ID: "CM-LIM-03", Verdict: report.XFail, Specs: []report.SpecLine{
				{Name: "CM-LIM-03 still failing", Verdict: report.XFail}, {Name: "CM-LIM-03 now passing", Verdict: report.XPass}}},
			report.RequirementLine{ID: "CM-SEC-01", Verdict: report.Pass, Specs: []report.SpecLine{{Name: "CM-SEC-01 a", Verdict: report.Pass}}},
			report.RequirementLine{ID: "CM-EXEC-08", Verdict: report.Fail, Specs: []report.SpecLine{{Name: "CM-EXEC-08 new failure", Verdict: report.Fail}}},
		)
		old := file("old.yaml", `requirements:
  - id: CM-SEC-01
    reason: "fixed since"
  - id: CM-RUN-02
    reason: "not run this time"
specs:
  - name: "CM-LIM-03 still failing"
    reason: "output is not bounded yet (#7)"
    class: decision
  - "CM-LIM-03 now passing"
`)
		o := invoke(os.Environ(), "baseline", "--from", dir, "--update", old)
		Expect(o.Code).To(Equal(0), "baseline --update exits 0; stderr: %s", o.Stderr)
		Expect(o.Stdout).To(ContainSubstring("2 dropped"), "the passing requirement and spec entries are dropped")
		text, err := os.ReadFile(old)
		Expect(err).NotTo(HaveOccurred(), "--update rewrites its file")
		Expect(string(text)).NotTo(ContainSubstring("CM-SEC-01"), "a requirement that now passes is dropped")
		Expect(string(text)).NotTo(ContainSubstring("now passing"), "a spec that now passes is dropped")
		Expect(string(text)).To(ContainSubstring("id: CM-RUN-02\n    reason: \"not run this time\""), "an entry not run is kept with its reason")
		Expect(string(text)).To(ContainSubstring("reason: \"output is not bounded yet (#7)\"\n    class: decision"), "a still-failing entry keeps reason and class")
		Expect(string(text)).To(ContainSubstring(`name: "CM-EXEC-08 new failure"`), "a new failure is added")
	})

	It("--update keeps the file's opening comment and drops an entry whose requirement ran but whose spec no longer exists", func() {
		dir := resultsWith(
			report.RequirementLine{ID: "CM-E2E-03", Verdict: report.Fail, Specs: []report.SpecLine{
				{Name: "CM-E2E-03 the retitled spec", Verdict: report.Fail}}},
		)
		old := file("old.yaml", `# Hand-written: what each class means here.
# A second line.

requirements: []
specs:
  - name: "CM-E2E-03 the old title"
    reason: "deviation: the client tool answers pending"
    class: deviation
  - name: "CM-RUN-02 a requirement this run did not select"
    reason: "kept"
    class: decision
`)
		o := invoke(os.Environ(), "baseline", "--from", dir, "--update", old)
		Expect(o.Code).To(Equal(0), "baseline --update exits 0; stderr: %s", o.Stderr)
		Expect(o.Stdout).To(ContainSubstring("1 dropped: no such spec"), "the entry of the old title is dropped and counted")
		Expect(o.Stdout).To(ContainSubstring(`"CM-E2E-03 the old title"`), "the dropped entry is named, so its reason can be carried over")
		Expect(o.Stdout).To(ContainSubstring(`"deviation: the client tool answers pending"`), "the dropped entry's reason is printed: the rewritten file no longer holds it")
		text, err := os.ReadFile(old)
		Expect(err).NotTo(HaveOccurred(), "--update rewrites its file")
		Expect(string(text)).To(HavePrefix("# Hand-written: what each class means here.\n# A second line.\n\nrequirements:"), "the opening comment is kept as written")
		Expect(string(text)).NotTo(ContainSubstring("the old title"), "an entry no spec can match any more is dropped")
		Expect(string(text)).To(ContainSubstring(`name: "CM-RUN-02 a requirement this run did not select"`), "an entry of a requirement that did not run is kept")
		Expect(string(text)).To(ContainSubstring(`name: "CM-E2E-03 the retitled spec"`), "the retitled spec is added as a new failure")
	})

	It("--update keeps an entry whose spec the run did not select or reach (--label-filter, --fail-fast), though its requirement ran", func() {
		for name, sel := range map[string]report.Selection{
			"--label-filter": {LabelFilter: "suite:limits", Specs: report.SpecCounts{InBuild: 4, Selected: 1, Ran: 1}},
			"--fail-fast":    {Specs: report.SpecCounts{InBuild: 4, Selected: 4, Ran: 1}},
		} {
			dir := GinkgoT().TempDir()
			data, err := yaml.Marshal(report.Conformance{Target: "fake:x", Selection: sel, Requirements: []report.RequirementLine{
				{ID: "CM-LIM-03", Verdict: report.Fail, Specs: []report.SpecLine{{Name: "CM-LIM-03 the limits spec", Verdict: report.Fail}}}}})
			Expect(err).NotTo(HaveOccurred())
			Expect(os.WriteFile(filepath.Join(dir, "conformance-report.yaml"), data, 0o644)).To(Succeed())
			old := file("old.yaml", "specs:\n  - name: \"CM-LIM-03 case ser-huge-value.js: the security spec\"\n    reason: \"precious\"\n    class: deviation\n")
			o := invoke(os.Environ(), "baseline", "--from", dir, "--update", old)
			Expect(o.Code).To(Equal(0), "%s: stderr: %s", name, o.Stderr)
			Expect(o.Stdout).To(ContainSubstring("0 dropped: no such spec"), name)
			text, err := os.ReadFile(old)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(text)).To(ContainSubstring("name: \"CM-LIM-03 case ser-huge-value.js: the security spec\"\n    reason: \"precious\""), "%s: the entry of a spec the run did not run is kept", name)
		}
	})

	It("--update of a file of comments only, without a final line break, writes entries YAML reads", func() {
		dir := resultsWith(report.RequirementLine{ID: "CM-E2E-03", Verdict: report.Fail, Specs: []report.SpecLine{{Name: "CM-E2E-03 a spec", Verdict: report.Fail}}})
		for _, header := range []string{"# only a comment", "# a comment\r\n# and a CRLF one"} {
			old := file("old.yaml", header)
			o := invoke(os.Environ(), "baseline", "--from", dir, "--update", old)
			Expect(o.Code).To(Equal(0), "stderr: %s", o.Stderr)
			text, err := os.ReadFile(old)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(text)).To(HavePrefix(header+"\n"), "the comment is kept, on lines of its own")
			b, err := report.ParseBaseline(text)
			Expect(err).NotTo(HaveOccurred(), "the rewritten file is a baseline:\n%s", text)
			Expect(b.Specs).To(HaveLen(1), "the new failure is an entry, not part of a comment:\n%s", text)
		}
	})

	It("--update that cannot write the whole file (a file size limit) exits 1 and leaves the old file as it was", func() {
		dir := resultsWith(report.RequirementLine{ID: "CM-E2E-03", Verdict: report.Fail, Specs: []report.SpecLine{{Name: "CM-E2E-03 a spec", Verdict: report.Fail}}})
		var b strings.Builder
		b.WriteString("# hand-written\nrequirements: []\nspecs:\n")
		for i := range 40 {
			fmt.Fprintf(&b, "  - name: \"CM-RUN-02 spec %d\"\n    reason: \"%s\"\n", i, strings.Repeat("r", 40))
		}
		old := file("old.yaml", b.String())
		// ulimit -f 1: no file of the process grows past 512 bytes (EFBIG).
		cmd := exec.Command("sh", "-c", `ulimit -f 1 && exec "$0" "$@"`, clitest.CLI, "baseline", "--from", dir, "--update", old)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		Expect(errors.As(err, &exit)).To(BeTrue(), "the write fails: %v\n%s", err, out)
		Expect(exit.ExitCode()).To(Equal(1), "%s", out)
		Expect(string(out)).To(ContainSubstring("old.yaml"), "the error names the file")
		text, err := os.ReadFile(old)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(text)).To(Equal(b.String()), "the old file survives the failed rewrite")
		entries, err := os.ReadDir(filepath.Dir(old))
		Expect(err).NotTo(HaveOccurred())
		for _, e := range entries {
			Expect(e.Name()).NotTo(ContainSubstring(".tmp-"), "no temporary file is left")
		}
	})

	It("exits 1 on a directory without a report and 2 without --from", func() {
		Expect(invoke(os.Environ(), "baseline", "--from", GinkgoT().TempDir()).Code).To(Equal(1), "no conformance-report.yaml")
		Expect(invoke(os.Environ(), "baseline").Code).To(Equal(2), "--from is required")
	})
})
