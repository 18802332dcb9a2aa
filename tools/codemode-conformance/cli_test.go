package main_test

import (
	"encoding/xml"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/codemode-conformance/codemode/internal/clitest"
	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/targets/openclaw"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/reporters"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// plainEnv is the environment without the variables that turn colour off,
// so that only the check for a terminal can.
func plainEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NO_COLOR=") && !strings.HasPrefix(kv, "CI=") {
			env = append(env, kv)
		}
	}
	return env
}

// junit reads junit.xml from a results directory.
func junit(dir string) reporters.JUnitTestSuites {
	GinkgoHelper()
	var doc reporters.JUnitTestSuites
	data, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	Expect(err).NotTo(HaveOccurred())
	Expect(xml.Unmarshal(data, &doc)).To(Succeed())
	return doc
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// The corpus cases (suites/security/cases) carry req: labels too; these
// specs count the specs of a requirement, so they leave the cases out.
const noCases = "!/^case:/"

var _ = Describe("the command line", func() {
	DescribeTable("prints usage on stdout and exits 0 when help is asked for",
		func(args ...string) {
			o := invoke(os.Environ(), args...)
			Expect(o.Code).To(Equal(0), "%s", o.Stderr)
			Expect(o.Stdout).To(HavePrefix("usage: codemode-conformance run [flags]"))
			Expect(o.Stdout).To(ContainSubstring("-label-filter"))
		},
		Entry("--help", "--help"), Entry("-h", "-h"), Entry("help", "help"), Entry("run --help", "run", "--help"), Entry("run -h", "run", "-h"),
	)

	DescribeTable("exits 2 with usage on stderr on a usage error",
		func(message string, args ...string) {
			o := invoke(os.Environ(), args...)
			Expect(o.Code).To(Equal(2))
			Expect(o.Stdout).To(BeEmpty())
			Expect(o.Stderr).To(ContainSubstring(message))
		},
		Entry("no command", "usage: codemode-conformance run"),
		Entry("unknown command", `unknown command "frob"`, "frob"),
		Entry("unknown flag", "flag provided but not defined: -bogus", "run", "--bogus"),
		Entry("unknown fake", `unknown target "fake:target": there is no fake variant named "target" (`, "run", "--target", "fake:target"),
		Entry("results dir that takes no file (checked before the run)", "--results-dir /proc/self is not writable", "run", "--target", "builtin", "--results-dir", "/proc/self"),
		Entry("OpenClaw version that is not pinned", `unknown target "openclaw:1.0": no pinned OpenClaw version "1.0" (pinned: `+strings.Join(openclaw.Versions(), ", ")+")", "run", "--target", "openclaw:1.0"),
		Entry("list without what to list", "usage: codemode-conformance list fakes", "list"),
		Entry("list of something else", `list: unknown subcommand "targets" (want fakes, alone)`, "list", "targets"),
		Entry("list of two things", `list: unknown subcommand "fakes targets" (want fakes, alone)`, "list", "fakes", "targets"),
		Entry("help on something that is no command", `no help on "frob": not a command`, "help", "frob"),
	)

	DescribeTable("prints list's usage on stdout and exits 0 when its help is asked for",
		func(args ...string) {
			o := invoke(os.Environ(), args...)
			Expect(o.Code).To(Equal(0), "%v: %s", args, o.Stderr)
			Expect(o.Stdout).To(HavePrefix("usage: codemode-conformance list fakes"), "%v prints list's usage", args)
			Expect(o.Stdout).To(MatchRegexp(`(?m)^\s+fakes\s`), "%v names the subcommands", args)
		},
		Entry("list --help", "list", "--help"), Entry("list -h", "list", "-h"), Entry("list fakes -h", "list", "fakes", "-h"), Entry("help list", "help", "list"),
	)

	DescribeTable("answers -h, help CMD and a bad flag the same way for every subcommand",
		func(cmd, usagePrefix string) {
			for _, args := range [][]string{{cmd, "-h"}, {cmd, "--help"}, {"help", cmd}} {
				o := invoke(os.Environ(), args...)
				Expect(o.Code).To(Equal(0), "%v: %s", args, o.Stderr)
				Expect(o.Stdout).To(HavePrefix(usagePrefix), "%v prints %s's usage on stdout", args, cmd)
				Expect(o.Stderr).To(BeEmpty(), "%v writes nothing to stderr", args)
			}
			o := invoke(os.Environ(), cmd, "--bogus")
			Expect(o.Code).To(Equal(2), "a bad flag is a usage error")
			Expect(o.Stdout).To(BeEmpty())
			Expect(o.Stderr).To(Equal("flag provided but not defined: -bogus\nsee codemode-conformance "+cmd+" -h\n"), "the error and where the help is")
		},
		Entry("run", "run", "usage: codemode-conformance run [flags]"),
		Entry("smoke", "smoke", "usage: codemode-conformance smoke"),
		Entry("init", "init", "usage: codemode-conformance init"),
		Entry("baseline", "baseline", "usage: codemode-conformance baseline"),
		Entry("rejudge", "rejudge", "usage: codemode-conformance rejudge"),
		Entry("version", "version", "usage: codemode-conformance version"),
		Entry("bench", "bench", "usage: codemode-conformance bench"),
		Entry("bench-load", "bench-load", "usage: codemode-conformance bench-load"),
		Entry("case", "case", "usage: codemode-conformance case"),
		Entry("diff", "diff", "usage: codemode-conformance diff"),
		Entry("list", "list", "usage: codemode-conformance list"),
	)

	It("wraps the run help's exit status paragraph without ragged lines", func() {
		o := invoke(os.Environ(), "run", "--help")
		Expect(o.Code).To(Equal(0), "%s", o.Stderr)
		_, after, ok := strings.Cut(o.Stdout, "Exit status:")
		Expect(ok).To(BeTrue(), "the help has an Exit status paragraph:\n%s", o.Stdout)
		para, _, _ := strings.Cut(after, "\n\n")
		lines := strings.Split(para, "\n")
		for _, l := range lines[:len(lines)-1] {
			Expect(len(l)).To(BeNumerically(">", 55), "every line but the last of the paragraph is filled:\n%s", para)
		}
	})

	It("lists every fake:<variant> with list fakes, and its help names them in short", func() {
		o := invoke(os.Environ(), "list", "fakes")
		Expect(o.Code).To(Equal(0), "%s", o.Stderr)
		Expect(o.Stdout).To(MatchRegexp(`(?m)^fake:queue-skips-policy\s+CM-NEST-16\s+v2\s+a call that has to queue`), "each line names the target, the requirement it breaks, its profile and its defect")
		Expect(o.Stdout).To(MatchRegexp(`(?m)^fake:deny-ignored\s+CM-GUEST-05\s+v1\s+`))
		help := invoke(os.Environ(), "help")
		Expect(help.Stdout).To(ContainSubstring("list them with: codemode-conformance list fakes"), "the help points to the list")
		for _, line := range strings.Split(help.Stdout, "\n") {
			Expect(len(line)).To(BeNumerically("<", 400), "no help line lists every variant:\n%s", line)
		}
	})

	DescribeTable("rejects a malformed --label-filter with exit 2 and says where, before running anything",
		func(filter, message string) {
			o := conformance("--label-filter", filter)
			Expect(o.Code).To(Equal(2))
			Expect(o.Stderr).To(ContainSubstring(message))
			Expect(filepath.Join(o.Dir, "conformance-report.yaml")).NotTo(BeAnExistingFile(), "nothing runs")
		},
		Entry("an unclosed group", "area:(", "invalid --label-filter \"area:(\": Missing set operation\n  area:(\n      ^"),
		Entry("a dangling operator", "area:LIM &&", `invalid --label-filter "area:LIM &&"`),
		Entry("a lone paren", "(", `invalid --label-filter "("`),
	)

	It("records the selection, explains the not-run column and ends with the harness's verdict, without colour when stdout is not a terminal", func() {
		o := conformanceEnv(plainEnv(), "--target", "builtin", "--req", "CM-EXEC-01", "--req", "CM-EXEC-02")
		Expect(o.Code).To(Equal(0), "%s\n%s", o.Stdout, o.Stderr)
		catalogue := len(spec.Requirements())

		sel := o.Report.Selection
		Expect(sel.Req).To(Equal([]string{"CM-EXEC-01", "CM-EXEC-02"}))
		Expect(sel.Complete).To(BeFalse())
		Expect(sel.Requirements.Catalogue).To(Equal(catalogue))
		Expect(sel.Requirements.WithSpecs).To(BeNumerically(">", 2))
		Expect([]int{sel.Requirements.Selected, sel.Requirements.Ran}).To(Equal([]int{2, 2}))
		Expect(sel.Specs.Ran).To(Equal(sel.Specs.Selected))
		Expect(sel.Specs.InBuild).To(BeNumerically(">", sel.Specs.Selected))
		Expect(sel.NotRun.Total()).To(Equal(catalogue - 2))
		Expect(sel.NotRun.FilteredOut).To(Equal(sel.Requirements.WithSpecs - 2))
		Expect(sel.NotRun.NotReached).To(Equal(0))
		Expect(o.Report.Overall).To(Equal(report.Success), "the overall verdict judges the selection")
		y, err := os.ReadFile(filepath.Join(o.Dir, "conformance-report.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(y)).To(ContainSubstring("selection:\n  req:\n  - CM-EXEC-01\n  - CM-EXEC-02\n  complete: false\n"))

		Expect(o.Summary).To(ContainSubstring("Selection: --req CM-EXEC-01 --req CM-EXEC-02: "))
		Expect(o.Summary).To(ContainSubstring("The overall verdict judges these only."))
		// "N have no spec yet" appears only while a requirement is planned (none is since the executor specs).
		Expect(o.Summary).To(MatchRegexp(`%d requirements not tested by this run \(the "not run" column\): (\d+ have no spec yet \(see CONFORMANCE.md\), )?\d+ excluded`, catalogue-2))

		Expect(o.Stdout).NotTo(ContainSubstring("\x1b["), "no ANSI codes when stdout is a pipe")
		Expect(o.Stdout).To(MatchRegexp(`(?m)^\[  1\] PASS  CM-EXEC-0`), "the first progress line starts on its own line")
		Expect(o.Stdout).To(MatchRegexp(`(?m)^\[  2\] PASS  CM-EXEC-0`))
		Expect(lastLine(o.Stdout)).To(MatchRegexp(`^codemode-conformance: overall success \(exit 0\) — 2 of \d+ requirements with specs ran$`))
	})

	It("rejects an unknown name in --features or --exempt-features with exit 2, listing the known features, before running anything", func() {
		o := conformance("--target", "builtin", "--req", "CM-EXEC-01", "--features", "core,yeild", "--exempt-features", "nope", "--label-filter", noCases)
		Expect(o.Code).To(Equal(2), "an unknown feature name is a usage error; stdout:\n%s", o.Stdout)
		Expect(o.Stderr).To(ContainSubstring(`--features: unknown feature "yeild"; --exempt-features: unknown feature "nope"`), "both flags' unknown names are named")
		Expect(o.Stderr).To(MatchRegexp(`known features: [a-z-, ]*\bcore\b[a-z-, ]*\bfault-injection\b[a-z-, ]*\byield\b`), "the error lists the known features")
		Expect(filepath.Join(o.Dir, "conformance-report.yaml")).NotTo(BeAnExistingFile(), "nothing runs")
	})

	// declarer is an exec: target that declares profile and features in
	// initialize and answers everything else with a protocol error.
	declarer := func(profile, features string) string {
		return "exec:sh " + file("target.sh", `while IFS= read -r l; do
  id=$(printf '%s' "$l" | sed -n 's/^.*"id":\([0-9]*\).*$/\1/p')
  [ -z "$id" ] && continue
  case "$l" in
    *'"initialize"'*) echo '{"jsonrpc":"2.0","id":'"$id"',"result":{"protocolVersion":"1","implementation":{"name":"declarer","version":"0"},"profile":"`+profile+`","features":[`+features+`]}}' ;;
    *) echo '{"jsonrpc":"2.0","id":'"$id"',"error":{"code":-32601,"message":"not implemented"}}' ;;
  esac
done
`)
	}

	DescribeTable("a declaration that breaks protocol.md §9 is a target error: nothing runs, the suite error says why",
		func(profile, features, args, want string) {
			o := conformance(append([]string{"--target", declarer(profile, features), "--req", "CM-EXEC-01"}, strings.Fields(args)...)...)
			Expect(o.Code).To(Equal(1), "a target error fails the run; stdout:\n%s", o.Stdout)
			Expect(o.Report.SuiteErrors).To(ContainElement(ContainSubstring(want)), "the suite error names the offending declaration")
			Expect(o.Report.Totals.Pass+o.Report.Totals.Fail).To(Equal(0), "no spec runs against a target error")
		},
		Entry("an unknown declared feature (a typo)", "v1", `"core","bogus","yield"`, "", `target error: features [core bogus yield] (declared) under profile v1: unknown feature: bogus`),
		Entry("typescript with javascript-only", "v2", `"core","typescript","javascript-only"`, "", "mutually exclusive features: typescript and javascript-only"),
		Entry("pending-call-limit with bridge-queue", "v2", `"core","pending-call-limit","bridge-queue"`, "", "mutually exclusive features: pending-call-limit and bridge-queue"),
		Entry("a feature outside the declared profile", "v2", `"core","typescript"`, "", "feature not in profile v2: typescript"),
		Entry("another profile than --profile", "v1", `"core"`, "--profile v2", `the target implements profile "v1", the run judges profile "v2"`),
	)

	It("judges the profile the target declares and names it in every report; builtin serves --profile", func() {
		o := conformance("--target", "builtin", "--profile", "v2", "--req", "CM-EXEC-01", "--req", "CM-TS-01", "--label-filter", "!/^case:/")
		Expect(o.Code).To(Equal(0), "stdout:\n%s", o.Stdout)
		Expect(o.Verdicts()).To(Equal(map[string]report.Verdict{"CM-EXEC-01": report.Pass, "CM-TS-01": report.Skip}), "typescript is no v2 feature:\n%s", o.Stdout)
		Expect(lastLine(o.Stdout)).To(MatchRegexp(`— 1 of \d+ requirements with specs ran; 1 requirement was skipped \(1 outside profile v2\)$`), "the closing line does not count a skipped requirement as ran, and says why it was skipped")
		Expect(o.Summary).To(ContainSubstring("1 requirement skipped: 1 outside profile v2 (feature typescript)"), "summary.md says why, with the feature")
		Expect(o.Report.Profile).To(Equal(report.Profile{Name: "v2", Generation: 2, Page: "001", OpenClaw: "2026.8 to 2026.9.6", Declared: "v2", Requested: "v2"}), "conformance-report.yaml names the judged profile")
		Expect(o.Report.Features.Declared).To(ContainElement("javascript-only"), "the reference under v2 declares v2's features")
		Expect(o.Report.Features.Declared).NotTo(ContainElement("typescript"), "and not v1's")
		Expect(o.Summary).To(ContainSubstring("Profile: v2 (generation 2, page 001, OpenClaw 2026.8 to 2026.9.6; declared by the target: v2)"), "summary.md names it")
		html, err := os.ReadFile(filepath.Join(o.Dir, "report.html"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(html)).To(ContainSubstring("<th>profile</th><td>v2 (generation 2"), "report.html names it")
		junit, err := os.ReadFile(filepath.Join(o.Dir, "junit.xml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(junit)).To(ContainSubstring(`<property name="profile" value="v2">`), "junit.xml carries it as a testsuite property")
	})

	It("rejects an unknown --profile with exit 2", func() {
		o := conformance("--target", "builtin", "--profile", "v3", "--req", "CM-EXEC-01")
		Expect(o.Code).To(Equal(2), "stdout:\n%s", o.Stdout)
		Expect(o.Stderr).To(ContainSubstring(`--profile: unknown profile "v3" (known: v1, v2)`), "the error names the known profiles")
	})

	It("prints one line per spec and a one-line reason for each spec that did not pass; the details go to the reports only", func() {
		o := conformance("--target", "fake:no-output-limit", "--req", "CM-LIM-03", "--req", "CM-EXEC-01", "--req", "CM-TS-01", "--exempt-features", "typescript", "--label-filter", noCases)
		Expect(o.Code).To(Equal(1), "CM-LIM-03 fails against fake:no-output-limit; stdout:\n%s", o.Stdout)
		before, _, found := strings.Cut(o.Stdout, "\n# Conformance summary\n")
		Expect(found).To(BeTrue(), "stdout has the summary table:\n%s", o.Stdout)
		var progress, reasons, banner []string
		for _, line := range strings.Split(strings.TrimSpace(before), "\n")[1:] { // [0] is Ginkgo's header
			switch {
			case regexp.MustCompile(`^\[\s*\d+\] (PASS|FAIL|ERROR|SKIP|XFAIL|XPASS) +CM-`).MatchString(line):
				progress = append(progress, line)
			case strings.HasPrefix(line, "        ") && strings.HasSuffix(line, " (see report.html)"):
				reasons = append(reasons, line)
			case strings.HasPrefix(line, "!! required features exempted by the user"): // before the first spec (required.go)
				banner = append(banner, line)
			default:
				Fail(fmt.Sprintf("stdout has a line that is neither a progress line nor a reason: %q\nstdout:\n%s", line, o.Stdout))
			}
		}
		Expect(progress).To(HaveLen(3), "one progress line per spec:\n%s", before)
		Expect(reasons).To(HaveLen(2), "one reason line for the fail and one for the skip:\n%s", before)
		Expect(reasons).To(HaveEach(WithTransform(utf8.RuneCountInString, BeNumerically("<=", 8+201+len(" (see report.html)")))), "reasons are cut to about 200 characters")
		Expect(before).To(MatchRegexp(`FAIL  CM-LIM-03 [^\n]*\n        5000 bytes of text must exceed maxOutputBytes 2048: expected status "failed" with code "output_limit_exceeded"`),
			"the fail's reason is the assertion's description, then the start of the matcher's message")
		Expect(before).To(MatchRegexp(`SKIP  CM-TS-01 [^\n]*\n        skipped: required feature "typescript" exempted by the user`), "the skip's reason")
		Expect(banner).To(HaveLen(1), "v1 requires typescript: one line before the first spec says the user exempted it:\n%s", before)
		Expect(o.Stdout).NotTo(ContainSubstring("run.prepare"), "no transcript on stdout")
		Expect(o.Stdout).NotTo(ContainSubstring("Summarizing"), "Ginkgo's list of failures repeats the progress lines")
		Expect(o.Stdout).NotTo(MatchRegexp(`(?m)^Ran \d+ of \d+ Specs`), "Ginkgo's closing counts are dropped: the summary counts by verdict")
		Expect(o.Stdout).NotTo(ContainSubstring("FAIL!"), "Ginkgo's banner never contradicts the harness's verdict")
		Expect(lastLine(o.Stdout)).To(HavePrefix("codemode-conformance: overall failure (exit 1)"), "the harness's verdict is the last line")

		js, err := os.ReadFile(filepath.Join(o.Dir, "report.json"))
		Expect(err).NotTo(HaveOccurred(), "the CLI wrote no report.json")
		Expect(string(js)).To(ContainSubstring(`run.prepare`), "report.json keeps the transcript")
		Expect(string(js)).To(ContainSubstring(`expected status \"failed\" with code \"output_limit_exceeded\"`), "report.json keeps the failure")
		doc := junit(o.Dir)
		var failed []reporters.JUnitTestCase
		for _, tc := range doc.TestSuites[0].TestCases {
			if tc.Failure != nil {
				failed = append(failed, tc)
			}
		}
		Expect(failed).To(HaveLen(1), "junit.xml has the failing testcase")
		Expect(failed[0].Failure.Description).To(ContainSubstring(`expected status "failed" with code "output_limit_exceeded"`), "junit.xml keeps the failure")
		Expect(failed[0].SystemErr).To(ContainSubstring("run.prepare"), "junit.xml keeps the transcript")
	})

	It("fails a run in which every selected spec was skipped: nothing was tested", func() {
		o := conformance("--target", "builtin", "--req", "CM-TS-01", "--exempt-features", "typescript", "--label-filter", noCases)
		Expect(o.Code).To(Equal(1), "a run that tested nothing must not exit 0; stdout:\n%s", o.Stdout)
		Expect(o.Report.Overall).To(Equal(report.Failure))
		Expect(o.Report.Reasons).To(ContainElement("nothing tested: every selected requirement was skipped: CM-TS-01"))
		Expect(lastLine(o.Stdout)).To(Equal(`codemode-conformance: overall failure (exit 1) — nothing tested: all 1 selected spec was skipped`))
	})

	It("does not look like success when no spec matched", func() {
		o := conformance("--target", "builtin", "--label-filter", "area:NOPE")
		Expect(o.Code).To(Equal(1))
		Expect(o.Report.Overall).To(Equal(report.Failure))
		Expect(o.Report.Selection.Specs.Selected).To(Equal(0))
		Expect(o.Report.Selection.LabelFilter).To(Equal("area:NOPE"))
		Expect(lastLine(o.Stdout)).To(Equal(`codemode-conformance: overall failure (exit 1) — no spec matched --label-filter "area:NOPE"`))
	})

	It("names a failed initialize in summary.md and counts the selected requirements as not reached", func() {
		o := conformance("--target", "exec:false", "--req", "CM-EXEC-01", "--label-filter", noCases)
		Expect(o.Code).To(Equal(1))
		Expect(o.Summary).To(ContainSubstring("Target: `exec:false` (initialize failed)\n"))
		Expect(o.Report.SuiteErrors).NotTo(BeEmpty())
		Expect(o.Report.Selection.NotRun.NotReached).To(Equal(1))
		Expect(o.Report.Selection.Requirements.Ran).To(Equal(0))
		Expect(lastLine(o.Stdout)).To(ContainSubstring("no spec ran: the suite failed before the specs"))
	})
})

var _ = Describe("junit.xml and the closing line with a baseline", func() {
	const listed = "requirements:\n  - id: CM-LIM-03\n    reason: output limit not implemented yet\n"

	It("shows an xfail as skipped with its reason, counts it in the closing line, and prints no Ginkgo FAIL! for a partial run", func() {
		o := conformance("--target", "fake:no-output-limit", "--req", "CM-LIM-03", "--expected-failures", file("known.yaml", listed), "--label-filter", noCases)
		Expect(o.Code).To(Equal(0), "%s", o.Stdout)
		doc := junit(o.Dir)
		Expect([]int{doc.Tests, doc.Failures, doc.Errors}).To(Equal([]int{1, 0, 0}), "an xfail does not fail junit.xml")
		tc := doc.TestSuites[0].TestCases[0]
		Expect(tc.Skipped).NotTo(BeNil())
		Expect(tc.Skipped.Message).To(HavePrefix("xfail: expected failure (output limit not implemented yet): "))
		Expect(tc.Status).To(Equal("xfail"))
		Expect(doc.TestSuites[0].Skipped).To(Equal(1))
		Expect(lastLine(o.Stdout)).To(MatchRegexp(`^codemode-conformance: overall partial \(exit 0\) — 1 of \d+ requirements with specs ran; 1 expected failure \(xfail\)$`))
		Expect(o.Stdout).NotTo(ContainSubstring("FAIL!"), "a partial run shows no Ginkgo FAIL! line")
	})

	It("shows an xpass of a listed requirement as a failure: stale expected failure", func() {
		o := conformance("--target", "builtin", "--req", "CM-LIM-03", "--expected-failures", file("known.yaml", listed), "--label-filter", noCases)
		Expect(o.Code).To(Equal(1), "%s", o.Stdout)
		Expect(cmp.Diff(map[string]report.Verdict{"CM-LIM-03": report.XPass}, o.Verdicts())).To(BeEmpty())
		Expect(o.Report.Requirements[0].Specs[0].Verdict).To(Equal(report.XPass), "the passing spec of a stale requirement entry is an xpass too")
		doc := junit(o.Dir)
		Expect([]int{doc.Tests, doc.Failures}).To(Equal([]int{1, 1}), "junit.xml must not be green for a failing run")
		tc := doc.TestSuites[0].TestCases[0]
		Expect(tc.Failure).NotTo(BeNil())
		Expect(tc.Failure.Type).To(Equal("xpass"))
		Expect(tc.Failure.Message).To(HavePrefix("stale expected failure"))
		Expect(lastLine(o.Stdout)).To(HaveSuffix("1 stale expected failure (xpass)"))
		Expect(lastLine(o.Stdout)).To(HavePrefix("codemode-conformance: overall failure (exit 1) — "))
	})
})

var _ = Describe("report.html", func() {
	It("shows the failing spec with its requirement, guest code and transcript, escaped", func() {
		o := conformance("--target", "fake:no-output-limit", "--req", "CM-LIM-03", "--label-filter", noCases)
		Expect(o.Code).To(Equal(1), "%s", o.Stdout)
		data, err := os.ReadFile(filepath.Join(o.Dir, "report.html"))
		Expect(err).NotTo(HaveOccurred(), "the CLI wrote no report.html")
		page := string(data)
		Expect(page).To(HavePrefix("<!DOCTYPE html>"))
		Expect(page).To(ContainSubstring("<code>fake:no-output-limit</code>"))
		Expect(page).To(ContainSubstring(`<span class="v v-failure">failure</span>`))
		Expect(page).To(ContainSubstring(`<h3>CM-LIM-03 <span class="v v-fail">fail</span></h3>`))
		req, _ := spec.Lookup("CM-LIM-03")
		Expect(page).To(ContainSubstring(html.EscapeString(req.Text)), "the requirement's text")
		Expect(page).To(MatchRegexp(`<p class="label">Guest code</p>\n<pre class="code">[^<]*repeat`), "the failing exec's guest code")
		Expect(page).To(MatchRegexp(`Transcript of run <code>run-[0-9-]+</code>`))
		Expect(page).To(ContainSubstring("→ <code>run.prepare</code>"))
		Expect(page).To(ContainSubstring("→ <code>tool.exec</code> <span class=\"muted\">← completed</span>"), "the exec that should have failed, and what it returned")
		Expect(strings.ToLower(page)).NotTo(ContainSubstring("<script"))
		Expect(o.Stdout).To(ContainSubstring("(see report.html)"), "the reason line points to report.html")
	})
})

// groupMembers lists the live (not zombie) processes in process group pgid.
func groupMembers(pgid int) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces, so split
		// after its closing parenthesis.
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, err := strconv.Atoi(f[2]); err == nil && g == pgid {
			out = append(out, e.Name()+" "+s[:i+1])
		}
	}
	return out
}

var _ = Describe("stopping the harness", func() {
	// The target answers initialize, starts a child, ignores SIGTERM and
	// end of input, and never answers anything else: only killing its
	// process group ends it.
	const script = `trap '' TERM
echo $$ > "$1"
read -r line
echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"1","implementation":{"name":"hang","version":"0"},"features":[]}}'
sleep 1000 &
while :; do sleep 1; done
`
	DescribeTable("kills the target's whole process tree, writes the reports and exits non-zero within 2 s, without a goroutine dump",
		func(sig syscall.Signal) {
			dir := GinkgoT().TempDir()
			pidFile := filepath.Join(dir, "pid")
			target := "exec:sh " + file("hang.sh", script) + " " + pidFile
			cmd := exec.Command(clitest.CLI, "run", "--results-dir", filepath.Join(dir, "results"), "--target", target, "--req", "CM-EXEC-01")
			cmd.Env = append(os.Environ(), "NO_COLOR=1")
			s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
			Expect(err).NotTo(HaveOccurred())
			var pgid int
			Eventually(func() error {
				b, err := os.ReadFile(pidFile)
				if err == nil {
					pgid, err = strconv.Atoi(strings.TrimSpace(string(b)))
				}
				return err
			}).WithTimeout(30*time.Second).Should(Succeed(), "the target started")
			Eventually(func() []string { return groupMembers(pgid) }).WithTimeout(30*time.Second).Should(HaveLen(3),
				"the target runs with its child and its loop's sleep, in its own process group")
			s.Signal(sig)
			// Issue 27: a CI that kills after a short grace period still gets
			// the reports.
			Eventually(s).WithTimeout(2*time.Second).WithPolling(20*time.Millisecond).Should(gexec.Exit(), "the harness stops within 2 s of %v", sig)
			Expect(s.ExitCode()).NotTo(Equal(0), "a run stopped by %v must not look like success", sig)
			for _, f := range []string{"conformance-report.yaml", "summary.md", "junit.xml", "report.html"} {
				Expect(filepath.Join(dir, "results", f)).To(BeAnExistingFile(), "the stopped run wrote %s", f)
			}
			Expect(string(s.Out.Contents())+string(s.Err.Contents())).NotTo(MatchRegexp(`goroutine \d+ \[`), "no goroutine dump")
			Eventually(func() []string { return groupMembers(pgid) }).WithTimeout(10*time.Second).Should(BeEmpty(),
				"no process of the target's group may outlive the harness")
			Expect(string(s.Err.Contents())).To(ContainSubstring("killed the target processes"))
			// rejudge keeps the interruption (run-metadata.json): still a failure.
			r := invoke(append(os.Environ(), "NO_COLOR=1"), "rejudge", "--from", filepath.Join(dir, "results"), "--expected-failures", file("none.yaml", "specs: []\n"))
			Expect(r.Code).To(Equal(1), "a rejudged interrupted run is still a failure; stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
			Expect(r.Stdout).To(ContainSubstring("interrupted by "+map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT"}[sig]), "the rejudged summary says the run was interrupted")
		},
		Entry("SIGTERM", syscall.SIGTERM),
		Entry("SIGINT", syscall.SIGINT),
	)
})

var _ = Describe("a target that hangs", Ordered, ContinueOnFailure, func() {
	// Both runs wait out call deadlines (timeoutMs + 15 s per hung spec):
	// they start together and overlap.
	var hangOnce, hangCells *clitest.Pending
	var start time.Time
	BeforeAll(func() {
		start = time.Now()
		// CM-EXEC-01, not CM-LIM-01: for CM-LIM-01 a hang is the violation (HangIsFailure).
		hangOnce = clitest.StartConformance(append(os.Environ(), "NO_COLOR=1"), "--target", "fake:hang-once", "--req", "CM-EXEC-01", "--req", "CM-LIM-03", "--req", "CM-LIM-05", "--label-filter", noCases)
		hangCells = clitest.StartConformance(append(os.Environ(), "NO_COLOR=1"), "--target", "fake:hang-cells", "--req", "CM-EXEC-01", "--req", "CM-LIM-01", "--req", "CM-ACT-01", "--label-filter", noCases)
	})

	It("is killed when a call times out; the spec that hung it is an error and later specs run against a fresh target", func() {
		o := hangOnce.Wait()
		Expect(o.Code).To(Equal(1), "%s", o.Stdout)
		lines := regexp.MustCompile(`\[\s*(\d+)\] (\w+)\s+(CM-[A-Z]+-\d+)`).FindAllStringSubmatch(o.Stdout, -1)
		Expect(lines).To(HaveLen(3), "one progress line per spec:\n%s", o.Stdout)
		Expect(lines[0][2]).To(Equal("ERROR"), "the first exec hangs the target:\n%s", o.Stdout)
		Expect(o.Stdout).To(ContainSubstring("target unresponsive: no answer to tool.exec within"))
		want := map[string]report.Verdict{"CM-EXEC-01": report.Pass, "CM-LIM-03": report.Pass, "CM-LIM-05": report.Pass}
		want[lines[0][3]] = report.Error
		Expect(cmp.Diff(want, o.Verdicts())).To(BeEmpty(), "later specs do not inherit the hang")
	})

	It("that hangs on every cell still gives a run in bounded time, each spec an error of its own", func() {
		o := hangCells.Wait()
		took := time.Since(start) // at least the run's time
		Expect(o.Code).To(Equal(1), "%s", o.Stdout)
		Expect(o.Verdicts()).To(HaveKeyWithValue("CM-EXEC-01", report.Error), "%s", o.Stdout)
		Expect(o.Verdicts()).To(HaveKeyWithValue("CM-LIM-01", report.Fail), "CM-LIM-01 forbids blocking the runtime, so its hang is a failure of the requirement (HangIsFailure), not an error:\n%s", o.Stdout)
		Expect(o.Verdicts()).To(HaveKeyWithValue("CM-ACT-01", report.Pass), "a spec without exec passes against the fresh target:\n%s", o.Stdout)
		Expect(strings.Count(o.Stdout, "error, not a failure of")).To(Equal(1), "only CM-EXEC-01's hang is an error, not a failure of its requirement:\n%s", o.Stdout)
		// Each hung spec ends at its first exec's deadline (timeoutMs +
		// 15 s of slack), far within the per-spec deadline.
		Expect(took).To(BeNumerically("<", 2*time.Minute), "the run must be bounded by the call deadlines")
	})
})

var _ = Describe("--fail-fast", func() {
	It("stops after the first failing spec and says so", func() {
		// Fast requirements of one spec each from several containers; three
		// of them fail on fake:no-output-limit (CM-LIM-03, CM-CFG-04,
		// CM-TEL-01). The container order moves as containers are added, so
		// a run without --fail-fast first shows where the first failure is.
		sel := []string{"CM-LIM-03", "CM-CFG-04", "CM-TEL-01", "CM-LIM-04", "CM-CAT-01", "CM-SEC-03", "CM-EXEC-02", "CM-GUEST-07", "CM-LIM-05", "CM-NS-01", "CM-NS-02"}
		args := []string{"--target", "fake:no-output-limit", "--label-filter", noCases}
		for _, id := range sel {
			args = append(args, "--req", id)
		}
		progress := regexp.MustCompile(`\[\s*(\d+)\] (\w+)\s+(CM-[A-Z]+-\d+)`)
		full := conformance(args...)
		all := progress.FindAllStringSubmatch(full.Stdout, -1)
		Expect(all).To(HaveLen(len(sel)), "the run without --fail-fast runs every selected spec:\n%s", full.Stdout)
		first := slices.IndexFunc(all, func(l []string) bool { return l[2] == "FAIL" })
		Expect(first).To(BeNumerically(">=", 0), "a spec fails on fake:no-output-limit:\n%s", full.Stdout)
		Expect(first).To(BeNumerically("<", len(all)-1), "a selected spec must come after the first failure, or stopping is not observable:\n%s", full.Stdout)

		o := conformance(append(args, "--fail-fast")...)
		Expect(o.Code).To(Equal(1), "%s", o.Stdout)
		lines := progress.FindAllStringSubmatch(o.Stdout, -1)
		Expect(lines).To(HaveLen(first+1), "the run ends at the first failure:\n%s", o.Stdout)
		want := map[string]report.Verdict{all[first][3]: report.Fail}
		for _, l := range lines[:len(lines)-1] {
			want[l[3]] = report.Pass
		}
		Expect(lines[len(lines)-1][2:]).To(Equal(all[first][2:]), "the last spec that ran is the first failing one:\n%s", o.Stdout)
		Expect(o.Verdicts()).To(Equal(want), "nothing runs after the failure")
		Expect(o.Report.Selection.Specs.Selected).To(Equal(len(sel)))
		notRun := len(sel) - len(lines)
		Expect(o.Report.Reasons).To(ContainElement(fmt.Sprintf("stopped after the first failing spec (--fail-fast): %d selected %s did not run", notRun, map[bool]string{true: "spec", false: "specs"}[notRun == 1])))
		Expect(o.Summary).To(ContainSubstring("--fail-fast"))

		// rejudge keeps how the run was cut short (run-metadata.json).
		r := invoke(append(os.Environ(), "NO_COLOR=1"), "rejudge", "--from", o.Dir, "--expected-failures", file("none.yaml", "specs: []\n"))
		Expect(r.Code).To(Equal(1), "rejudged: still a failure; stderr:\n%s", r.Stderr)
		Expect(r.Stdout).To(ContainSubstring(fmt.Sprintf("stopped after the first failing spec (--fail-fast): %d selected", notRun)), "the rejudged summary says the run stopped early")
	})
})

var _ = Describe("a target that dies between two calls", func() {
	It("charges the spec during which it died, not the next one, and runs every later spec", func() {
		o := conformance("--target", "fake:crash-after-answer", "--req", "CM-EXEC-01", "--req", "CM-LIM-05", "--req", "CM-LIM-03", "--label-filter", noCases)
		Expect(o.Code).To(Equal(1), "%s", o.Stdout)
		lines := regexp.MustCompile(`\[\s*(\d+)\] (\w+)\s+(CM-[A-Z]+-\d+)`).FindAllStringSubmatch(o.Stdout, -1)
		Expect(lines).To(HaveLen(3), "one progress line per spec:\n%s", o.Stdout)
		// Whatever the order of the containers (new ones move it), the spec
		// that ran first sent the first exec and is charged with the crash.
		Expect(lines[0][2]).To(Equal("ERROR"), "the first exec's spec is charged with the crash:\n%s", o.Stdout)
		want := map[string]report.Verdict{"CM-EXEC-01": report.Pass, "CM-LIM-03": report.Pass, "CM-LIM-05": report.Pass}
		want[lines[0][3]] = report.Error
		Expect(cmp.Diff(want, o.Verdicts())).To(BeEmpty(),
			"later specs run against a fresh target:\n%s", o.Stdout)
	})
})

var _ = Describe("a target that dies before any cell of a spec", func() {
	It("is an error of every spec, also of HangIsFailure specs and raw-connection specs, never a failure of their requirements", func() {
		// Answers initialize, then exits on the next request: every spec
		// loses it at run.prepare (or the alive check), before guest code.
		die := "exec:sh " + file("die.sh", `IFS= read -r l
id=$(printf '%s' "$l" | sed -n 's/^.*"id":\([0-9]*\).*$/\1/p')
echo '{"jsonrpc":"2.0","id":'"$id"',"result":{"protocolVersion":"1","implementation":{"name":"die","version":"0"},"profile":"v1","features":["core"]}}'
IFS= read -r l
exit 3
`)
		// CM-RUN-09's specs use a raw connection; CM-LIM-01 and the
		// corpus cases of CM-LIM-03 are HangIsFailure.
		o := conformance("--target", die, "--req", "CM-RUN-09", "--req", "CM-LIM-03", "--req", "CM-LIM-01")
		Expect(o.Code).To(Equal(1), "%s", o.Stdout)
		Expect(o.Stdout).NotTo(MatchRegexp(`\[\s*\d+\] FAIL `), "a target lost before any cell is no failure of the spec's requirement:\n%s", o.Stdout)
		Expect(o.Verdicts()).To(And(HaveKey("CM-RUN-09"), HaveKey("CM-LIM-03"), HaveKey("CM-LIM-01")), "%s", o.Stdout)
		for id, v := range o.Verdicts() { // the corpus cases also name other requirements
			Expect(v).To(Equal(report.Error), "%s: %s", id, o.Stdout)
		}
		Expect(o.Stdout).To(ContainSubstring("target connection lost during run.prepare (raw connection)"), "the raw connection names the call it lost the target in")
	})
})

var _ = Describe("a target that forges nested calls", func() {
	It("fails the spec during which the forged tool.invoke arrived, naming the requirements and the request", func() {
		o := conformance("--target", "fake:forged-invoke", "--req", "CM-EXEC-01", "--req", "CM-CFG-01", "--label-filter", noCases)
		Expect(o.Code).To(Equal(1), "%s", o.Stdout)
		Expect(cmp.Diff(map[string]report.Verdict{"CM-EXEC-01": report.Fail, "CM-CFG-01": report.Pass}, o.Verdicts())).To(BeEmpty(),
			"a forged invoke is a failure of the target, not an error; a spec without exec sends none:\n%s", o.Stdout)
		Expect(o.Stdout).To(ContainSubstring(`[CM-ACT-05] tool.invoke of tool "secret_of_another_run"`), "the console's reason line names the requirement and the tool")
		junit, err := os.ReadFile(filepath.Join(o.Dir, "junit.xml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(junit)).To(ContainSubstring(`no tool openclaw:core:secret_of_another_run was declared in this run&#39;s run.prepare`),
			"the full failure (in the reports, not on the console) says why the harness refused the invoke")
	})
})

var _ = Describe("a target that forges a nested call after the last spec", func() {
	It("fails the run with a suite error naming the refused tool.invoke, though every spec passed", func() {
		o := conformance("--target", "fake:forged-invoke-at-shutdown", "--req", "CM-CFG-01", "--label-filter", noCases)
		Expect(o.Code).To(Equal(1), "a refusal during shutdown must fail the run:\n%s", o.Stdout)
		Expect(o.Verdicts()).To(Equal(map[string]report.Verdict{"CM-CFG-01": report.Pass}), "no spec is charged with it:\n%s", o.Stdout)
		Expect(o.Report.Overall).To(Equal(report.Failure))
		Expect(o.Report.SuiteErrors).To(ContainElement(SatisfyAll(HavePrefix("[AfterSuite]"), ContainSubstring(`[CM-ACT-05, CM-SEC-05] tool.invoke of tool "wipe_disk"`),
			ContainSubstring(`no run "no-such-run" was prepared`))), "the suite error names the requirements, the tool and why it was refused")
	})
})
