package broken_test

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"

	"github.com/codemode-conformance/codemode/fakes/broken"
	"github.com/codemode-conformance/codemode/internal/clitest"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/reporters"
	. "github.com/onsi/gomega"
)

// The corpus cases (suites/security/cases) carry req: labels too; these
// specs count the specs of a requirement, so they leave the cases out.
const noCases = "!/^case:/"

const variantsDescribe = "the conformance suite"

// variantSpec is the text of the spec that judges variant v.
func variantSpec(v broken.Variant) string {
	return "reports " + v.Breaks + " failing against fake:" + v.Name + " (" + v.Defect + ") and passing against builtin"
}

// variantArgs runs the specs of the requirement v breaks against it. The
// corpus cases of v.Breaks are left out: the requirement's own specs must
// catch the variant, and the cases would double the run.
func variantArgs(v broken.Variant) []string {
	args := []string{"--target", "fake:" + v.Name, "--req", v.Breaks, "--label-filter", noCases}
	if v.Profile != "" {
		args = append(args, "--profile", v.Profile)
	}
	return args
}

// queued holds the variant runs and builtin runs that BeforeSuite started
// in the background (by variant name; builtin runs by profile): the specs
// of this file mostly wait on deadlines, so queueRuns overlaps them.
var (
	queuedVariants    = map[string]*clitest.Queued{}
	queuedBuiltin     = map[string]*clitest.Queued{}
	queuedBuiltinReqs = map[string]bool{} // the requirements the queued builtin runs judge
)

// queueRuns starts, parallel at a time and in spec order, the run of every
// variant spec this suite run selects and the builtin runs they compare
// with. A spec not queued (e.g. under a parallel Ginkgo run) runs its own.
func queueRuns(parallel int) {
	GinkgoHelper()
	var selected []broken.Variant
	for _, v := range broken.Variants {
		if clitest.WillRun(suiteDescription, variantsDescribe+" "+variantSpec(v)) {
			selected = append(selected, v)
		}
	}
	if len(selected) == 0 {
		return
	}
	q := clitest.NewQueue(parallel)
	for _, v := range selected {
		if _, ok := queuedBuiltin[v.Profile]; !ok {
			// First: the longest run, which every variant of the profile reads.
			queuedBuiltin[v.Profile] = q.Start(builtinArgs(v.Profile, selected)...)
		}
	}
	for _, v := range selected {
		queuedBuiltinReqs[v.Breaks] = true
		queuedVariants[v.Name] = q.Start(variantArgs(v)...)
	}
}

var _ = Describe(variantsDescribe, func() {
	for _, v := range broken.Variants {
		v := v
		It(variantSpec(v), func() {
			var o outcome
			if r, ok := queuedVariants[v.Name]; ok {
				o = r.Wait()
			} else {
				o = conformance(variantArgs(v)...)
			}
			Expect(o.Code).To(Equal(1), "the CLI must exit non-zero for a broken target")
			if v.AfterLastSpec {
				Expect(o.Report.SuiteErrors).To(ContainElement(ContainSubstring(v.Breaks)), "a suite error must name the requirement:\n%s", o.Summary)
			} else {
				Expect(o.Summary).To(MatchRegexp(`\| `+areaOf(v.Breaks)+` \|[^\n]*\| `+v.Breaks), "summary must name the failing requirement:\n%s", o.Summary)
			}
			Expect(o.Report.Overall).To(Equal(report.Failure))
			if v.Spec != "" {
				Expect(specVerdicts(o, v.Breaks)).To(HaveKeyWithValue(ContainSubstring(v.Spec), report.Fail),
					"the spec of %s named %q must be the one that catches the defect:\n%s", v.Breaks, v.Spec, o.Stdout)
			}

			ref := builtinRun(v)
			Expect(ref.Code).NotTo(Equal(2), "the run against builtin must start:\n%s", ref.Stderr)
			Expect(ref.Verdicts()).To(HaveKeyWithValue(v.Breaks, report.Pass), "the same specs must pass against the reference:\n%s", ref.Summary)
			Expect(ref.Report.SuiteErrors).To(BeEmpty(), "the reference must raise no suite error (a defect after the last spec shows there):\n%s", ref.Summary)
		})
	}
})

// builtinRuns holds, per profile, one run against builtin of every
// requirement a variant of that profile breaks (corpus cases left out): each
// variant reads its requirement's verdict there instead of running the
// same specs against the reference again.
var builtinRuns = map[string]outcome{}

func builtinRun(v broken.Variant) outcome {
	GinkgoHelper()
	if o, ok := builtinRuns[v.Profile]; ok {
		return o
	}
	var o outcome
	if r, ok := queuedBuiltin[v.Profile]; ok && queuedBuiltinReqs[v.Breaks] {
		o = r.Wait()
	} else {
		o = conformance(builtinArgs(v.Profile, broken.Variants)...)
	}
	builtinRuns[v.Profile] = o
	return o
}

// builtinArgs runs, against builtin, the specs of every requirement one of
// variants of profile breaks (corpus cases left out).
func builtinArgs(profile string, variants []broken.Variant) []string {
	// --procs 2: this is the longest run of the package (the specs of
	// every broken requirement), mostly deadlines; the verdicts are a
	// serial run's (tools/codemode-conformance's procs test).
	args := []string{"--target", "builtin", "--label-filter", noCases, "--procs", "2"}
	if profile != "" {
		args = append(args, "--profile", profile)
	}
	seen := map[string]bool{}
	for _, v := range variants {
		if v.Profile == profile && !seen[v.Breaks] {
			seen[v.Breaks] = true
			args = append(args, "--req", v.Breaks)
		}
	}
	return args
}

var _ = Describe("an expected-failures baseline", func() {
	const listed = "requirements:\n  - id: CM-LIM-03\n    reason: output limit not implemented yet\n"
	run := []string{"--req", "CM-LIM-03", "--req", "CM-LIM-01", "--label-filter", noCases}

	It("turns a listed failure into xfail: the run passes, at best partial", func() {
		o := conformance(append([]string{"--target", "fake:no-output-limit", "--expected-failures", file("known.yaml", listed)}, run...)...)
		Expect(o.Code).To(Equal(0), "%s", o.Stdout)
		Expect(cmp.Diff(map[string]report.Verdict{"CM-LIM-03": report.XFail, "CM-LIM-01": report.Pass}, o.Verdicts())).To(BeEmpty())
		Expect(o.Report.Overall).To(Equal(report.Partial))
		Expect(o.Report.Totals).To(Equal(report.Totals{Pass: 1, XFail: 1}))
		Expect(o.Report.Requirements[1].Expected).To(Equal("output limit not implemented yet"))
		Expect(o.Stdout).To(MatchRegexp(`XFAIL CM-LIM-03 `))
		Expect(o.Summary).To(MatchRegexp(`\| LIM \| Limits \| 1 \| 0 \| 0 \| 1 \| 0 \|`), "summary.md counts the xfail")
	})

	It("turns a listed requirement that passes into xpass: the stale entry fails the run", func() {
		o := conformance(append([]string{"--target", "builtin", "--expected-failures", file("known.yaml", listed)}, run...)...)
		Expect(o.Code).To(Equal(1), "%s", o.Stdout)
		Expect(cmp.Diff(map[string]report.Verdict{"CM-LIM-03": report.XPass, "CM-LIM-01": report.Pass}, o.Verdicts())).To(BeEmpty())
		Expect(o.Report.Overall).To(Equal(report.Failure))
		Expect(o.Report.Reasons).To(ContainElement(ContainSubstring("stale expected failures (xpass: they pass now): CM-LIM-03")))
		Expect(o.Stdout).To(MatchRegexp(`(?m)^XPASS CM-LIM-03 \(the requirement: 1 spec, all passed\)\n\s+listed in \S+known.yaml \(output limit not implemented yet\): remove the stale entry`),
			"the listed requirement's xpass is on the console, not only a PASS progress line")
		Expect(o.Stdout).NotTo(MatchRegexp(`(?m)^XPASS CM-LIM-01`), "the unlisted requirement is no xpass")
	})

	It("turns a listed spec that passes into xpass", func() {
		o := conformance("--target", "builtin", "--req", "CM-LIM-03", "--expected-failures",
			file("known.yaml", "specs:\n  - \"CM-LIM-03 output beyond maxOutputBytes fails on completed cells, for the final value and before suspending\"\n"))
		Expect(o.Code).To(Equal(1), "%s", o.Stdout)
		Expect(o.Verdicts()).To(Equal(map[string]report.Verdict{"CM-LIM-03": report.XPass}))
		Expect(o.Stdout).To(MatchRegexp(`XPASS CM-LIM-03 `))
	})

	It("leaves an unlisted failure a failure", func() {
		o := conformance(append([]string{"--target", "fake:no-output-limit"}, run...)...)
		Expect(o.Code).To(Equal(1))
		Expect(cmp.Diff(map[string]report.Verdict{"CM-LIM-03": report.Fail, "CM-LIM-01": report.Pass}, o.Verdicts())).To(BeEmpty())
		Expect(o.Report.Overall).To(Equal(report.Failure))
		Expect(o.Report.ExpectedFailures).To(BeNil())
	})

	DescribeTable("is rejected with exit 2 and a precise message when it is malformed",
		func(content, message string) {
			o := conformance("--target", "builtin", "--req", "CM-LIM-03", "--expected-failures", file("bad.yaml", content))
			Expect(o.Code).To(Equal(2))
			Expect(o.Stderr).To(ContainSubstring(message))
			Expect(filepath.Join(o.Dir, "conformance-report.yaml")).NotTo(BeAnExistingFile(), "nothing runs")
		},
		Entry("unknown requirement ID", "requirements: [CM-LIM-03, CM-LIM-99]", `requirements[1]: unknown requirement ID "CM-LIM-99"`),
		Entry("spec name without a requirement ID", "specs: [\"output beyond maxOutputBytes\"]", "does not contain a known requirement ID"),
		Entry("unknown key", "requirements: [CM-LIM-03]\nreason: x\n", `unknown field "reason"`),
		Entry("not YAML", "requirements: [CM-LIM-03", "not a valid file"),
	)

	It("is rejected with exit 2 when the file is missing", func() {
		o := conformance("--expected-failures", filepath.Join(GinkgoT().TempDir(), "missing.yaml"))
		Expect(o.Code).To(Equal(2))
		Expect(o.Stderr).To(ContainSubstring("missing.yaml: no such file"))
	})
})

var _ = Describe("a target that crashes mid-run", func() {
	It("reports the spec it crashed under as error, reconnects, and runs every later spec", func() {
		// Requirements with one spec each and none declared HangIsFailure
		// (there a crash is a failure of the requirement, not an error), so
		// whichever spec runs first is the one charged with an error.
		o := conformance("--target", "fake:crash", "--req", "CM-EXEC-01", "--req", "CM-LIM-03", "--req", "CM-LIM-05", "--label-filter", noCases)
		Expect(o.Code).To(Equal(1), "%s", o.Stdout)
		lines := regexp.MustCompile(`\[\s*(\d+)\] (\w+)\s+(CM-[A-Z]+-\d+)`).FindAllStringSubmatch(o.Stdout, -1)
		Expect(lines).To(HaveLen(3), "one progress line per spec:\n%s", o.Stdout)
		Expect(lines[0][2]).To(Equal("ERROR"), "the first exec crashes the target")
		first := lines[0][3]
		want := map[string]report.Verdict{"CM-EXEC-01": report.Pass, "CM-LIM-03": report.Pass, "CM-LIM-05": report.Pass}
		want[first] = report.Error
		Expect(cmp.Diff(want, o.Verdicts())).To(BeEmpty(), "later specs run against the reconnected target and pass")
		Expect(o.Report.Overall).To(Equal(report.Failure))
		Expect(o.Report.Reasons).To(ContainElement("errors (harness fault or target crash): " + first))
		Expect(o.Summary).To(MatchRegexp(`\| \*\*total\*\* \| \| 2 \| 0 \| 1 \|`), "summary.md counts the error apart from failures")

		var junit reporters.JUnitTestSuites
		data, err := os.ReadFile(filepath.Join(o.Dir, "junit.xml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(xml.Unmarshal(data, &junit)).To(Succeed())
		Expect(junit.Tests).To(Equal(3), "junit.xml holds only the specs that ran")
		Expect(junit.Errors).To(Equal(1))
		Expect(junit.Failures).To(Equal(0))
		for _, tc := range junit.TestSuites[0].TestCases {
			id := regexp.MustCompile(`req:(CM-[A-Z]+-\d+)`).FindStringSubmatch(tc.Name)
			Expect(id).NotTo(BeNil(), "testcase %q carries its requirement ID", tc.Name)
			Expect(tc.Properties.WithName("requirement")).To(Equal(id[1]))
			if id[1] == first {
				Expect(tc.Error).NotTo(BeNil())
				Expect(tc.Error.Type).To(Equal("error"))
				Expect(tc.Error.Message).To(ContainSubstring("target connection lost"))
			}
		}
	})
})

var _ = Describe("a target whose tools.call resolves an envelope", func() {
	It("fails CM-GUEST-05 only: the specs of other requirements read tool results through callValue", func() {
		// Requirements whose cells read fields of tools.call and helper results
		// (CM-GUEST-11, CM-CAT-06 and CM-EXEC-16 also read the __proto__ key,
		// prototype-named tools and the shell exec's result through it).
		others := []string{"CM-GUEST-06", "CM-GUEST-11", "CM-TS-01", "CM-NEST-04", "CM-CAT-04", "CM-CAT-06", "CM-EXEC-16", "CM-ACT-05"}
		args := []string{"--target", "fake:result-envelope", "--req", "CM-GUEST-05", "--label-filter", noCases}
		want := map[string]report.Verdict{"CM-GUEST-05": report.Fail}
		for _, id := range others {
			args = append(args, "--req", id)
			want[id] = report.Pass
		}
		o := conformance(args...)
		Expect(o.Code).To(Equal(1), "the envelope must fail the run through CM-GUEST-05:\n%s", o.Stdout)
		Expect(cmp.Diff(want, o.Verdicts())).To(BeEmpty(), "one fault, one failing requirement (-want +got):\n%s", o.Stdout)
	})
})

// specVerdicts maps the names of the specs of requirement id to their
// verdicts in the report.
func specVerdicts(o outcome, id string) map[string]report.Verdict {
	out := map[string]report.Verdict{}
	for _, r := range o.Report.Requirements {
		if r.ID == id {
			for _, s := range r.Specs {
				out[s.Name] = s.Verdict
			}
		}
	}
	return out
}

func areaOf(id string) string {
	// CM-<AREA>-NN
	return id[3 : len(id)-3]
}
