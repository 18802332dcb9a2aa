package main_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/codemode-conformance/codemode/internal/clitest"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// renderedReports is what a results directory's reports say, in a form two
// runs of the same target share: conformance-report.yaml and summary.md as
// text after report.Normalise (run ids, durations, ports, temporary paths),
// and junit.xml's suite counts, report properties and each testcase's
// name, status and failure or skip message (normalised), without times.
type renderedReports struct {
	Conformance, Summary string
	JUnit                []string
}

func rendered(dir string) renderedReports {
	GinkgoHelper()
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(dir, name))
		Expect(err).NotTo(HaveOccurred(), "%s in %s", name, dir)
		return report.Normalise(string(data))
	}
	out := renderedReports{Conformance: read("conformance-report.yaml"), Summary: read("summary.md")}
	doc := junit(dir)
	for _, s := range doc.TestSuites {
		out.JUnit = append(out.JUnit, "suite "+s.Name+": tests "+strconv.Itoa(s.Tests)+", skipped "+strconv.Itoa(s.Skipped)+", failures "+strconv.Itoa(s.Failures)+", errors "+strconv.Itoa(s.Errors))
		for _, p := range s.Properties.Properties {
			if p.Name == "profile" || p.Name == "catalogueVersion" {
				out.JUnit = append(out.JUnit, "property "+p.Name+"="+p.Value)
			}
		}
		for _, c := range s.TestCases {
			line := c.Status + " " + c.Name
			if c.Failure != nil {
				line += " | failure " + c.Failure.Type + ": " + report.Normalise(c.Failure.Message)
			}
			if c.Skipped != nil {
				line += " | skipped: " + report.Normalise(c.Skipped.Message)
			}
			out.JUnit = append(out.JUnit, line)
		}
	}
	return out
}

// copyDir copies the regular files of src into a new temporary directory.
func copyDir(src string) string {
	GinkgoHelper()
	dst := GinkgoT().TempDir()
	entries, err := os.ReadDir(src)
	Expect(err).NotTo(HaveOccurred(), "reading %s", src)
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		Expect(err).NotTo(HaveOccurred(), "reading %s", e.Name())
		Expect(os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644)).To(Succeed(), "copying %s", e.Name())
	}
	return dst
}

var _ = Describe("codemode-conformance rejudge", Label("rejudge"), func() {
	// fake:no-output-limit fails the specs of CM-LIM-03 and passes
	// CM-EXEC-01's. Baseline A lists CM-EXEC-01 (an xpass: stale) and one
	// LIM-03 spec, so a run with it fails; baseline B lists every LIM-03
	// spec, so a run with it is partial.
	args := []string{"--target", "fake:no-output-limit", "--req", "CM-LIM-03", "--req", "CM-EXEC-01"}

	It("renders the reports a fresh run with the new baseline writes, without running the target again", func() {
		first := conformance(args...)
		Expect(first.Code).To(Equal(1), "fake:no-output-limit fails CM-LIM-03; stdout:\n%s", first.Stdout)
		var lim []string
		for _, r := range first.Report.Requirements {
			if r.ID == "CM-LIM-03" {
				for _, s := range r.Specs {
					lim = append(lim, s.Name)
				}
			}
		}
		Expect(len(lim)).To(BeNumerically(">", 1), "CM-LIM-03 has several specs: %v", lim)
		entries := func(names []string) string {
			var b strings.Builder
			for _, n := range names {
				b.WriteString("  - name: \"" + n + "\"\n    reason: \"no output limit\"\n")
			}
			return b.String()
		}
		a := file("a.yaml", "requirements:\n  - id: CM-EXEC-01\n    reason: \"stale\"\nspecs:\n"+entries(lim[:1]))
		b := file("b.yaml", "requirements: []\nspecs:\n"+entries(lim))

		withA := clitest.StartConformance(append(os.Environ(), "NO_COLOR=1"), append(args, "--expected-failures", a)...)
		withB := clitest.StartConformance(append(os.Environ(), "NO_COLOR=1"), append(args, "--expected-failures", b)...)
		runA, fresh := withA.Wait(), withB.Wait()
		Expect(runA.Code).To(Equal(1), "baseline A: an xpass and unlisted failures fail the run; stdout:\n%s", runA.Stdout)
		Expect(runA.Verdicts()).To(HaveKeyWithValue("CM-EXEC-01", report.XPass), "baseline A makes CM-EXEC-01 an xpass")
		Expect(fresh.Code).To(Equal(0), "baseline B lists every failure: partial; stdout:\n%s", fresh.Stdout)
		Expect(fresh.Report.Overall).To(Equal(report.Partial), "a fresh run with baseline B is partial")
		before := rendered(runA.Dir)

		// Into another directory: runA's own reports stay as they were.
		out := filepath.Join(GinkgoT().TempDir(), "rejudged")
		o := invoke(append(os.Environ(), "NO_COLOR=1"), "rejudge", "--from", runA.Dir, "--expected-failures", b, "--results-dir", out)
		Expect(o.Code).To(Equal(0), "rejudge exits as run for the new overall verdict (partial); stdout:\n%s\nstderr:\n%s", o.Stdout, o.Stderr)
		Expect(lastLine(o.Stdout)).To(HavePrefix("codemode-conformance: overall partial (exit 0)"), "rejudge ends with run's closing line")
		Expect(cmp.Diff(rendered(fresh.Dir), rendered(out))).To(BeEmpty(), "rejudged reports differ from a fresh run with baseline B (-fresh +rejudged)")
		Expect(cmp.Diff(before, rendered(runA.Dir))).To(BeEmpty(), "--results-dir OUT leaves the --from directory alone")
		for _, f := range []string{"report.html", "report.json", "run-metadata.json"} {
			Expect(filepath.Join(out, f)).To(BeARegularFile(), "rejudge writes %s, so that OUT can be rejudged in turn", f)
		}

		// In place (the default), and back to baseline A: the reports of the
		// run with A again.
		o = invoke(append(os.Environ(), "NO_COLOR=1"), "rejudge", "--from", out, "--expected-failures", b)
		Expect(o.Code).To(Equal(0), "rejudge in place; stderr:\n%s", o.Stderr)
		Expect(cmp.Diff(rendered(fresh.Dir), rendered(out))).To(BeEmpty(), "rejudged in place (-fresh +rejudged)")
		o = invoke(append(os.Environ(), "NO_COLOR=1"), "rejudge", "--from", out, "--expected-failures", a)
		Expect(o.Code).To(Equal(1), "back to baseline A: failure, exit 1; stdout:\n%s", o.Stdout)
		Expect(o.Stdout).To(ContainSubstring("XPASS"), "the stale entry's requirement is printed as run prints it")
		Expect(cmp.Diff(before, rendered(out))).To(BeEmpty(), "rejudged with baseline A again (-run with A +rejudged)")
		entries2, err := os.ReadDir(out)
		Expect(err).NotTo(HaveOccurred(), "reading %s", out)
		for _, e := range entries2 {
			Expect(e.Name()).NotTo(HavePrefix(".codemode-conformance-reports-"), "the staging directory is removed")
		}
	})

	It("refuses a results directory without report.json or without run-metadata.json, and leaves it alone", func() {
		base := conformance("--target", "builtin", "--req", "CM-EXEC-01")
		Expect(base.Code).To(Equal(0), "builtin passes CM-EXEC-01: %s", base.Stdout)
		baseline := file("empty.yaml", "requirements: []\nspecs: []\n")
		for _, missing := range []string{"report.json", "run-metadata.json"} {
			dir := copyDir(base.Dir)
			Expect(os.Remove(filepath.Join(dir, missing))).To(Succeed(), "removing %s", missing)
			Expect(os.Remove(filepath.Join(dir, "conformance-report.yaml"))).To(Succeed(), "removing the report, to see that none is written")
			o := invoke(os.Environ(), "rejudge", "--from", dir, "--expected-failures", baseline)
			Expect(o.Code).To(Equal(2), "a results directory without %s is refused: stdout:\n%s\nstderr:\n%s", missing, o.Stdout, o.Stderr)
			Expect(o.Stderr).To(ContainSubstring(missing), "the error names the missing %s", missing)
			Expect(filepath.Join(dir, "conformance-report.yaml")).NotTo(BeAnExistingFile(), "nothing is written without %s", missing)
		}
		Expect(invoke(os.Environ(), "rejudge", "--from", GinkgoT().TempDir(), "--expected-failures", baseline).Code).To(Equal(2), "an empty directory is refused")
		Expect(invoke(os.Environ(), "rejudge", "--from", base.Dir).Code).To(Equal(2), "--expected-failures is required")
		Expect(invoke(os.Environ(), "rejudge", "--expected-failures", baseline).Code).To(Equal(2), "--from is required")
		o := invoke(os.Environ(), "help", "rejudge")
		Expect(o.Code).To(Equal(0), "help rejudge")
		Expect(o.Stdout).To(ContainSubstring("--expected-failures"), "help rejudge prints its usage")
	})

	It("reports baseline errors and a malformed baseline as run does", func() {
		// builtin with typescript exempted: CM-TS-01's spec skips, so an
		// entry for it is a baseline error (the run fails).
		args := []string{"--target", "builtin", "--req", "CM-TS-01", "--req", "CM-EXEC-01", "--exempt-features", "typescript"}
		plain := conformance(args...)
		Expect(plain.Code).To(Equal(0), "CM-TS-01 skips, CM-EXEC-01 passes: partial; stdout:\n%s", plain.Stdout)
		var skipped string
		for _, r := range plain.Report.Requirements {
			if r.ID == "CM-TS-01" && len(r.Specs) > 0 {
				skipped = r.Specs[0].Name
			}
		}
		Expect(skipped).NotTo(BeEmpty(), "the run has CM-TS-01's skipped spec: %v", plain.Report.Requirements)
		bad := file("skipped.yaml", "specs:\n  - name: \""+skipped+"\"\n    reason: \"listed while skipped\"\n")
		fresh := conformance(append(args, "--expected-failures", bad)...)
		Expect(fresh.Code).To(Equal(1), "run: an entry for a skipped spec is a baseline error; stdout:\n%s", fresh.Stdout)
		Expect(fresh.Report.ExpectedFailures).NotTo(BeNil(), "the report records the baseline")
		Expect(fresh.Report.ExpectedFailures.Errors).NotTo(BeEmpty(), "run records the baseline error")

		o := invoke(append(os.Environ(), "NO_COLOR=1"), "rejudge", "--from", plain.Dir, "--expected-failures", bad)
		Expect(o.Code).To(Equal(1), "rejudge: the same baseline error fails it; stdout:\n%s\nstderr:\n%s", o.Stdout, o.Stderr)
		Expect(o.Stdout).To(ContainSubstring("expected-failures baseline errors"), "the summary gives the baseline error as run's does")
		Expect(cmp.Diff(rendered(fresh.Dir), rendered(plain.Dir))).To(BeEmpty(), "rejudged reports differ from run's (-run +rejudged)")

		malformed := file("malformed.yaml", "specs: [unclosed\n")
		r := invoke(os.Environ(), "run", "--results-dir", GinkgoT().TempDir(), "--target", "builtin", "--req", "CM-EXEC-01", "--expected-failures", malformed)
		Expect(r.Code).To(Equal(2), "run: a malformed baseline is exit 2")
		o = invoke(os.Environ(), "rejudge", "--from", plain.Dir, "--expected-failures", malformed)
		Expect(o.Code).To(Equal(2), "rejudge: a malformed baseline is exit 2, as for run")
		Expect(o.Stderr).To(Equal(r.Stderr), "the same error as run's")
	})

	It("refuses a run-metadata.json that no run writes (hostile strings, unknown values) and a report.json of another run, exit 2, writing nothing", func() {
		base := conformance("--target", "builtin", "--req", "CM-EXEC-01")
		Expect(base.Code).To(Equal(0), "builtin passes CM-EXEC-01: %s", base.Stdout)
		other := conformance("--target", "builtin", "--req", "CM-EXEC-02")
		Expect(other.Code).To(Equal(0), "builtin passes CM-EXEC-02: %s", other.Stdout)
		baseline := file("empty.yaml", "requirements: []\nspecs: []\n")
		evil := "x\x1b]52;c;cHduZWQ=\x07\x1b[2J\ncodemode-conformance: overall success (exit 0)\n<script>alert(1)</script>\u202e\xff"
		edits := map[string]func(m map[string]any){
			"target":         func(m map[string]any) { m["target"] = evil },
			"judged":         func(m map[string]any) { m["judged"] = evil },
			"harness":        func(m map[string]any) { m["harness"] = map[string]any{"name": evil, "version": "1"} },
			"implementation": func(m map[string]any) { m["implementation"] = map[string]any{"name": evil} },
			"labelFilter":    func(m map[string]any) { m["labelFilter"] = evil },
			"effective":      func(m map[string]any) { m["effective"] = []any{"core", evil} },
			"featureSource":  func(m map[string]any) { m["featureSource"] = evil },
			"interrupted":    func(m map[string]any) { m["interrupted"] = evil },
			"built": func(m map[string]any) {
				m["built"] = []any{map[string]any{"requirement": "CM-NOPE-99", "selected": true}}
			},
		}
		for field, edit := range edits {
			dir := copyDir(base.Dir)
			path := filepath.Join(dir, "run-metadata.json")
			data, err := os.ReadFile(path)
			Expect(err).NotTo(HaveOccurred())
			var m map[string]any
			Expect(json.Unmarshal(data, &m)).To(Succeed())
			edit(m)
			data, err = json.Marshal(m)
			Expect(err).NotTo(HaveOccurred())
			Expect(os.WriteFile(path, bytes.ReplaceAll(data, []byte(`\ufffd`), []byte("\xff")), 0o644)).To(Succeed())
			before, err := os.ReadFile(filepath.Join(dir, "summary.md"))
			Expect(err).NotTo(HaveOccurred())
			o := invoke(os.Environ(), "rejudge", "--from", dir, "--expected-failures", baseline)
			Expect(o.Code).To(Equal(2), "%s: a run-metadata.json no run writes is refused; stdout:\n%s\nstderr:\n%s", field, o.Stdout, o.Stderr)
			Expect(o.Stderr).To(ContainSubstring("unusable results"), field)
			Expect(o.Stderr).To(ContainSubstring(field), "the error names the field")
			Expect(unsafeText([]byte(o.Stdout+o.Stderr))).To(BeEmpty(), "%s: the console carries no raw escape", field)
			Expect(forged.FindString(o.Stdout+o.Stderr)).To(BeEmpty(), "%s: no forged verdict line", field)
			after, err := os.ReadFile(filepath.Join(dir, "summary.md"))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(after)).To(Equal(string(before)), "%s: nothing is written", field)
		}

		// report.json of one run, run-metadata.json of another.
		dir := copyDir(base.Dir)
		data, err := os.ReadFile(filepath.Join(other.Dir, "report.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(dir, "report.json"), data, 0o644)).To(Succeed())
		o := invoke(os.Environ(), "rejudge", "--from", dir, "--expected-failures", baseline)
		Expect(o.Code).To(Equal(2), "a report.json and a run-metadata.json of two runs are refused; stdout:\n%s\nstderr:\n%s", o.Stdout, o.Stderr)
		Expect(o.Stderr).To(ContainSubstring("different runs"))
	})

	It("replaces no report when one of their names in the results directory is a directory (exit 1, naming it)", func() {
		base := conformance("--target", "builtin", "--req", "CM-EXEC-01")
		Expect(base.Code).To(Equal(0), "builtin passes CM-EXEC-01: %s", base.Stdout)
		dir := copyDir(base.Dir)
		Expect(os.Remove(filepath.Join(dir, "summary.md"))).To(Succeed())
		Expect(os.MkdirAll(filepath.Join(dir, "summary.md", "x"), 0o755)).To(Succeed())
		before := map[string]string{}
		for _, f := range []string{"conformance-report.yaml", "junit.xml", "report.html", "report.json", "run-metadata.json"} {
			data, err := os.ReadFile(filepath.Join(dir, f))
			Expect(err).NotTo(HaveOccurred())
			before[f] = string(data)
		}
		baseline := file("listed.yaml", "requirements:\n  - id: CM-EXEC-01\n    reason: \"stale\"\n")
		o := invoke(os.Environ(), "rejudge", "--from", dir, "--expected-failures", baseline)
		Expect(o.Code).To(Equal(1), "a report that cannot be written fails; stdout:\n%s\nstderr:\n%s", o.Stdout, o.Stderr)
		Expect(o.Stderr).To(ContainSubstring("summary.md"), "the error names the file")
		for f, want := range before {
			data, err := os.ReadFile(filepath.Join(dir, f))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(data) == want).To(BeTrue(), "%s was replaced although summary.md could not be", f)
		}
	})
})
