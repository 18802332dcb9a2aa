package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/codemode-conformance/codemode/fakes/hostile"
	"github.com/codemode-conformance/codemode/internal/clitest"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/goccy/go-yaml"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// hostileEnv makes this test binary the hostile-strings target of
// fakes/hostile on its stdin/stdout (an exec: target: the strings cross a
// real pipe, the invalid UTF-8 raw); its value lists the modes.
const hostileEnv = "CODEMODE_TEST_HOSTILE_TARGET"

func TestMain(m *testing.M) {
	if modes := os.Getenv(hostileEnv); modes != "" {
		ms, err := hostile.ParseModes(modes)
		if err == nil {
			err = hostile.Serve(context.Background(), os.Stdin, os.Stdout, ms)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// hostileRun runs the CLI against the hostile target of fakes/hostile
// named fake (a hostile.Targets name): in process (via "fake") or as this
// test binary (via "exec") with the same modes.
func hostileRun(via, fake string) outcome {
	GinkgoHelper()
	args := []string{"--req", "CM-EXEC-01", "--req", "CM-EXEC-02", "--req", "CM-EXEC-03"}
	if via == "fake" {
		return conformanceEnv(append(os.Environ(), "NO_COLOR=1"), append([]string{"--target", "fake:" + fake}, args...)...)
	}
	var modes []string
	for _, t := range hostile.Targets {
		if t.Name == fake {
			for m := range t.Modes {
				modes = append(modes, string(m))
			}
		}
	}
	Expect(modes).NotTo(BeEmpty(), "fakes/hostile has a target %q", fake)
	self, err := os.Executable()
	Expect(err).NotTo(HaveOccurred())
	env := append(os.Environ(), "NO_COLOR=1", hostileEnv+"="+strings.Join(modes, ","))
	return conformanceEnv(env, append([]string{"--target", "exec:" + self}, args...)...)
}

// unsafeText finds what must never reach a report or the terminal raw:
// C0 controls but \n and \t, DEL, C1 controls, bidi and other format
// characters, line separators, and invalid UTF-8.
func unsafeText(b []byte) string {
	if !utf8.Valid(b) {
		return "invalid UTF-8"
	}
	for _, r := range string(b) {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			return fmt.Sprintf("control character %U", r)
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x2028 || r == 0x2029 || r == 0x200f || r == 0x200e || r == 0xfeff:
			return fmt.Sprintf("format character %U", r)
		}
	}
	return ""
}

// forged finds a line that only the real verdict may print.
var forged = regexp.MustCompile(`(?m)^(Overall: \*\*success\*\*|codemode-conformance: overall success)`)

// verdictLines are the lines that state the overall verdict: in summary.md
// (Overall: **…**) and on the console (its closing line, and summary.md's).
var verdictLines = regexp.MustCompile(`(?m)^(Overall: |codemode-conformance: overall )`)

// markup finds HTML a Markdown renderer (a CI job summary) would render.
var markup = regexp.MustCompile(`(^|[^\\])<(/?script|img|b)\b`)

var _ = Describe("reports of a hostile target (issue 28 N5–N8)", func() {
	for _, t := range []string{"exec", "fake"} {
		Context("reached as "+t+":", Ordered, func() {
			var o outcome
			BeforeAll(func() { o = hostileRun(t, "hostile") })

			It("fails the run, and neither the console nor summary.md carries a raw control, bidi or invalid byte, or a verdict line but the real one", func() {
				Expect(o.Code).To(Equal(1), "stdout:\n%s", o.Stdout)
				Expect(unsafeText([]byte(o.Stdout))).To(BeEmpty(), "stdout")
				Expect(forged.FindString(o.Stdout)).To(BeEmpty(), "stdout:\n%s", o.Stdout)
				Expect(o.Stdout).To(ContainSubstring(`RED\u001b`), "the escapes are shown escaped (summary.md's Markdown escapes on the console too: it prints summary.md)")
				Expect(o.Stdout).To(MatchRegexp(`(?m)^codemode-conformance: overall failure \(exit 1\)`))
				Expect(verdictLines.FindAllString(o.Stdout, -1)).To(Equal([]string{"Overall: ", "codemode-conformance: overall "}), "stdout has summary.md's verdict line and the closing line, nothing else:\n%s", o.Stdout)
				Expect(unsafeText([]byte(o.Summary))).To(BeEmpty(), "summary.md")
				Expect(forged.FindString(o.Summary)).To(BeEmpty(), "summary.md:\n%s", o.Summary)
				Expect(o.Summary).To(ContainSubstring("Overall: **failure**"))
				Expect(verdictLines.FindAllString(o.Summary, -1)).To(HaveLen(1), "summary.md:\n%s", o.Summary)
			})

			It("writes summary.md with the target's strings as text, not Markdown or HTML a job summary renders", func() {
				Expect(markup.FindString(o.Summary)).To(BeEmpty(), "summary.md:\n%s", o.Summary)
				Expect(o.Summary).NotTo(ContainSubstring("**success**"), "the forged verdict is not bold")
				Expect(o.Summary).To(ContainSubstring(`\<script\>`), "the markup is shown escaped")
			})

			It("writes conformance-report.yaml that goccy and PyYAML both read, with the name on one line", func() {
				b, err := os.ReadFile(filepath.Join(o.Dir, "conformance-report.yaml"))
				Expect(err).NotTo(HaveOccurred())
				Expect(unsafeText(b)).To(BeEmpty())
				var c report.Conformance
				Expect(yaml.Unmarshal(b, &c)).To(Succeed())
				Expect(c.Implementation.Name).To(HavePrefix("[name]"))
				Expect(c.Implementation.Name).NotTo(ContainSubstring("\n"))
				Expect(c.Overall).To(Equal(report.Failure))
				if err := exec.Command("python3", "-c", "import yaml").Run(); err != nil {
					Skip("python3 with PyYAML is not installed: " + err.Error())
				}
				py := exec.Command("python3", "-c", "import sys, yaml; d = yaml.safe_load(open(sys.argv[1], encoding='utf-8')); print(d['overall']); print(d['implementation']['name'])", filepath.Join(o.Dir, "conformance-report.yaml"))
				got, err := py.CombinedOutput()
				Expect(err).NotTo(HaveOccurred(), "PyYAML: %s", got)
				lines := strings.Split(strings.TrimSpace(string(got)), "\n")
				Expect(lines).To(HaveLen(2), "PyYAML reads the name on one line: %s", got)
				Expect(lines[0]).To(Equal("failure"))
				Expect(lines[1]).To(Equal(c.Implementation.Name), "PyYAML and goccy read the same name")
			})

			It("writes junit.xml, report.html and report.json with every target string escaped and valid UTF-8", func() {
				for _, f := range []string{"junit.xml", "report.html", "report.json"} {
					b, err := os.ReadFile(filepath.Join(o.Dir, f))
					Expect(err).NotTo(HaveOccurred())
					Expect(unsafeText(b)).To(BeEmpty(), f)
					Expect(string(b)).To(ContainSubstring("[error]"), "%s carries the target's failure", f)
				}
				html, _ := os.ReadFile(filepath.Join(o.Dir, "report.html"))
				Expect(string(html)).NotTo(ContainSubstring(`<script>alert("xss")`))
				Expect(string(html)).NotTo(ContainSubstring(`<img src=x`))
				junit, _ := os.ReadFile(filepath.Join(o.Dir, "junit.xml"))
				Expect(xmlWellFormed(junit)).To(Succeed())
				js, _ := os.ReadFile(filepath.Join(o.Dir, "report.json"))
				Expect(json.Valid(js)).To(BeTrue())
				meta, err := os.ReadFile(filepath.Join(o.Dir, "run-metadata.json"))
				Expect(err).NotTo(HaveOccurred(), "the run wrote run-metadata.json")
				Expect(unsafeText(meta)).To(BeEmpty(), "run-metadata.json holds the target's name and declarations cleaned")
				Expect(json.Valid(meta)).To(BeTrue(), "run-metadata.json is JSON")
			})
		})
	}
})

var _ = Describe("a hostile target that fails the suite before the first spec (issue 28 N5)", func() {
	for _, t := range []string{"exec", "fake"} {
		It("gets its suite error onto the console and into summary.md escaped (reached as "+t+":)", func() {
			o := hostileRun(t, "hostile-badfeature")
			Expect(o.Code).To(Equal(1), "stdout:\n%s", o.Stdout)
			Expect(o.Stdout).To(ContainSubstring("unknown feature"))
			Expect(unsafeText([]byte(o.Stdout))).To(BeEmpty(), "stdout")
			Expect(forged.FindString(o.Stdout)).To(BeEmpty(), "stdout:\n%s", o.Stdout)
			Expect(unsafeText([]byte(o.Summary))).To(BeEmpty(), "summary.md")
			Expect(forged.FindString(o.Summary)).To(BeEmpty(), "summary.md:\n%s", o.Summary)
		})
	}
})

var _ = Describe("reports of a target that sends 10 MB strings (issue 28 N8)", func() {
	for _, t := range []string{"exec", "fake"} {
		It("cuts every string at one bound: no report and no console grows with what the target sends (reached as "+t+":)", func() {
			o := hostileRun(t, "hostile-big")
			Expect(o.Code).To(Equal(1), "stdout:\n%.4000s", o.Stdout)
			Expect(len(o.Stdout)).To(BeNumerically("<", 64<<10), "stdout")
			// 3 requirements' specs, a few strings each, cut at MaxTargetBytes.
			for _, f := range []string{"summary.md", "conformance-report.yaml", "junit.xml", "report.html", "report.json"} {
				fi, err := os.Stat(filepath.Join(o.Dir, f))
				Expect(err).NotTo(HaveOccurred())
				Expect(fi.Size()).To(BeNumerically("<", 4<<20), "%s: %d bytes", f, fi.Size())
			}
			js, _ := os.ReadFile(filepath.Join(o.Dir, "report.json"))
			Expect(json.Valid(js)).To(BeTrue())
			Expect(string(js)).To(ContainSubstring(fmt.Sprintf("cut at %d bytes", report.MaxTargetBytes)))
		})
	}
})

func xmlWellFormed(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		if _, err := d.Token(); err != nil {
			if err.Error() == "EOF" {
				return nil
			}
			return err
		}
	}
}

var _ = Describe("a report.json that cannot be written (issue 28 N10)", func() {
	It("fails the run instead of leaving it a success with a missing or truncated report", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "results")
		Expect(os.MkdirAll(filepath.Join(dir, "report.json"), 0o755)).To(Succeed(), "a directory where report.json goes: the write fails, the probe does not")
		cmd := exec.Command(clitest.CLI, "run", "--results-dir", dir, "--target", "builtin", "--req", "CM-EXEC-01")
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		Eventually(s).WithTimeout(5 * time.Minute).Should(gexec.Exit())
		Expect(s.ExitCode()).To(Equal(1), "CM-EXEC-01 passes on builtin; only the report fails the run")
		Expect(string(s.Err.Contents())).To(ContainSubstring("writing report.json"))
		Expect(string(s.Out.Contents())).To(ContainSubstring("overall failure (exit 1)"))
	})
})

// targetBytes is how many bytes of fakes/hostile's big strings a report
// carries: each is "[tag]" and then B's, cut at report.MaxTargetBytes.
func targetBytes(b []byte) int {
	n := 0
	for _, m := range bigRun.FindAll(b, -1) {
		n += len(m)
	}
	return n
}

var bigRun = regexp.MustCompile(`B{64,}`)

// reportVerdicts is every verdict a run's reports state, per format: the
// requirements' and specs' of conformance-report.yaml, junit.xml's
// testcases (name and verdict property) and report.json's spec states.
func reportVerdicts(o outcome) map[string][]string {
	GinkgoHelper()
	out := map[string][]string{"overall": {string(o.Report.Overall)}}
	for _, r := range o.Report.Requirements {
		out["yaml"] = append(out["yaml"], r.ID+"="+string(r.Verdict))
		for _, s := range r.Specs {
			out["yaml"] = append(out["yaml"], r.ID+"/"+s.Name+"="+string(s.Verdict))
		}
	}
	junit, err := os.ReadFile(filepath.Join(o.Dir, "junit.xml"))
	Expect(err).NotTo(HaveOccurred())
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name   string `xml:"name,attr"`
				Status string `xml:"status,attr"`
				Props  []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"properties>property"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	Expect(xml.Unmarshal(junit, &doc)).To(Succeed())
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			line := c.Name + " status=" + c.Status
			for _, p := range c.Props {
				if p.Name == "verdict" || p.Name == "requirement" {
					line += " " + p.Name + "=" + p.Value
				}
			}
			out["junit"] = append(out["junit"], line)
		}
	}
	js, err := os.ReadFile(filepath.Join(o.Dir, "report.json"))
	Expect(err).NotTo(HaveOccurred())
	var reps []struct {
		SpecReports []struct {
			LeafNodeText string
			State        string
		}
	}
	Expect(json.Unmarshal(js, &reps)).To(Succeed())
	for _, r := range reps {
		for _, s := range r.SpecReports {
			out["json"] = append(out["json"], s.LeafNodeText+"="+s.State)
		}
	}
	out["summary"] = verdictLines.FindAllString(o.Summary, -1)
	for _, l := range strings.Split(o.Summary, "\n") {
		if strings.HasPrefix(l, "|") || strings.HasPrefix(l, "Overall:") {
			out["summary"] = append(out["summary"], l)
		}
	}
	return out
}

var _ = Describe("reports of a target whose strings pass a report's budget (issue 28 N8)", Ordered, func() {
	const budget = 80 << 10 // one 64 KiB string fits, the next does not
	var full, small outcome
	BeforeAll(func() {
		args := []string{"--target", "fake:hostile-big", "--req", "CM-EXEC-01", "--req", "CM-EXEC-02", "--req", "CM-EXEC-03"}
		full = conformance(args...)
		small = conformance(append(args, "--report-budget", fmt.Sprint(budget))...)
	})

	It("keeps every report within its budget of target bytes, valid UTF-8 and parseable, saying what it left out", func() {
		Expect(small.Code).To(Equal(1), "stdout:\n%.4000s", small.Stdout)
		for _, f := range []string{"summary.md", "conformance-report.yaml", "junit.xml", "report.html", "report.json"} {
			b, err := os.ReadFile(filepath.Join(small.Dir, f))
			Expect(err).NotTo(HaveOccurred())
			Expect(targetBytes(b)).To(BeNumerically("<=", budget), "%s carries more of the target's strings than its budget", f)
			Expect(unsafeText(b)).To(BeEmpty(), f)
			if f == "junit.xml" || f == "report.html" || f == "report.json" {
				fb, _ := os.ReadFile(filepath.Join(full.Dir, f))
				Expect(targetBytes(fb)).To(BeNumerically(">", budget), "%s at the default budget: the test needs more target bytes than the small budget", f)
				Expect(strings.Contains(string(b), "(left out: ")).To(BeTrue(), "%s says what it left out", f)
			}
		}
		junit, _ := os.ReadFile(filepath.Join(small.Dir, "junit.xml"))
		Expect(xmlWellFormed(junit)).To(Succeed())
		js, _ := os.ReadFile(filepath.Join(small.Dir, "report.json"))
		Expect(json.Valid(js)).To(BeTrue())
		y, _ := os.ReadFile(filepath.Join(small.Dir, "conformance-report.yaml"))
		var c report.Conformance
		Expect(yaml.Unmarshal(y, &c)).To(Succeed())
		if exec.Command("python3", "-c", "import yaml").Run() == nil {
			py := exec.Command("python3", "-c", "import sys, yaml; yaml.safe_load(open(sys.argv[1], encoding='utf-8'))", filepath.Join(small.Dir, "conformance-report.yaml"))
			got, err := py.CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), "PyYAML: %s", got)
		}
	})

	It("loses no verdict: every report states the same verdicts as at the default budget", func() {
		want, got := reportVerdicts(full), reportVerdicts(small)
		Expect(want["yaml"]).NotTo(BeEmpty())
		Expect(want["junit"]).NotTo(BeEmpty())
		Expect(got).To(Equal(want))
	})
})
