package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/codemode-conformance/codemode/tools/sources"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// copyFixture copies testdata/name to a temporary folder (the tool writes
// TRIAGE.md there) and returns its path.
func copyFixture(name string) string {
	dst := filepath.Join(GinkgoT().TempDir(), name)
	src := filepath.Join("testdata", name)
	Expect(filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})).To(Succeed())
	return dst
}

func build(name string) Triage {
	f, err := Load(filepath.Join("testdata", name))
	Expect(err).NotTo(HaveOccurred())
	return Build(f)
}

func rowOf(t Triage, id string) Row {
	for _, r := range t.Rows {
		if r.ID == id {
			return r
		}
	}
	Fail("no row for " + id)
	return Row{}
}

// triage runs the command and returns its exit status and stderr.
func triage(args ...string) (int, string) {
	var out, errs bytes.Buffer
	code := run(args, &out, &errs)
	return code, errs.String()
}

var _ = Describe("the Current verdicts table", func() {
	It("has one row per requirement that does not pass, in the report's order", func() {
		var ids []string
		for _, r := range build("clean").Rows {
			ids = append(ids, r.ID)
		}
		Expect(ids).To(Equal([]string{"CM-CFG-07", "CM-CFG-08", "CM-CFG-09", "CM-EXEC-01", "CM-EXEC-04", "CM-LIM-02", "CM-LIM-03", "CM-SEC-03"}))
	})

	It("gives every row a class: the baseline's, or what its verdict says", func() {
		t := build("clean")
		got := map[string]string{}
		for _, r := range t.Rows {
			got[r.ID] = r.Class
		}
		Expect(cmp.Diff(map[string]string{
			"CM-CFG-07":  "not drivable",
			"CM-CFG-08":  "not in profile",
			"CM-CFG-09":  "not declared",
			"CM-EXEC-01": "blocked by CM-EXEC-05",
			"CM-EXEC-04": "deviation",
			"CM-LIM-02":  "deviation",
			"CM-LIM-03":  "decision", // a specs: entry's class
			"CM-SEC-03":  "passes now",
		}, got)).To(BeEmpty())
		Expect(rowOf(t, "CM-EXEC-04").Finding).To(Equal(`deviation: module access fails with invalid\_input, not module\_access\_denied`))
		Expect(rowOf(t, "CM-CFG-07").Finding).To(ContainSubstring("loadQuickJsRuntime"), "a not-drivable row names the missing function, from the report's reason")
	})

	It("gives the first failing spec and its failing value as evidence, and the seed citation", func() {
		r := rowOf(build("clean"), "CM-EXEC-04")
		Expect(r.Evidence).To(HavePrefix("CM-EXEC-04 module loading fails with module\\_access\\_denied: got code"))
		Expect(r.Seed).To(HavePrefix("000 \\[exec\\]"))
	})

	It("Markdown-escapes what the target sent, in the run line and the rows", func() {
		md := build("clean").Markdown()
		body := strings.NewReplacer(BeginMarker, "", EndMarker, "").Replace(md)
		Expect(body).NotTo(MatchRegexp(`(^|[^\\])[<\[*]`), "no unescaped HTML, link or emphasis")
		Expect(md).To(ContainSubstring(`\<script\>alert(1)\</script\> \` + "`x\\` \\*\\*y\\*\\*"))
		Expect(md).To(ContainSubstring(`evil\|impl`))
		for _, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(line, "| CM-") {
				Expect(strings.Count(strings.ReplaceAll(line, `\|`, ""), "|")).To(Equal(7), "six cells: %s", line)
			}
		}
	})

	It("takes the run line from the report and junit.xml", func() {
		h := build("clean").Header
		Expect(h).To(ContainSubstring("target `openclaw:fixture`"))
		Expect(h).To(ContainSubstring("profile v1"))
		Expect(h).To(ContainSubstring("2026-12-02 03:43:31–03:45:36 (2 min 5 s"))
		Expect(h).To(ContainSubstring("requirements: 1 pass, 0 fail, 0 error, 3 xfail, 1 xpass, 1 blocked, 3 skip (1 not drivable); overall failure."))
	})

	It("names the hand check of a failing security or limits row: from the baseline's clause or a script's case", func() {
		t := build("clean")
		Expect(rowOf(t, "CM-LIM-02").HandCheck).To(Equal("handcheck/seclim.mjs CM-LIM-02"))
		Expect(rowOf(t, "CM-LIM-03").HandCheck).To(Equal("handcheck/seclim.mjs CM-LIM-03"))
		Expect(rowOf(t, "CM-SEC-03").NeedsHandCheck).To(BeFalse(), "an xpass has no finding to reproduce")
		Expect(t.Markdown()).To(ContainSubstring("— hand check: `handcheck/seclim.mjs CM-LIM-02` |"))
		Expect(t.Problems).To(BeEmpty())
	})
})

var _ = Describe("the checks", func() {
	var problems []string
	BeforeEach(func() { problems = build("dirty").Problems })

	has := func(sub string) {
		GinkgoHelper()
		Expect(problems).To(ContainElement(ContainSubstring(sub)), strings.Join(problems, "\n"))
	}

	It("finds a security or limits row without a hand check, and a clause naming a script that does not exist", func() {
		has("CM-SEC-01: a security or limits row with no hand check")
		has(`CM-LIM-02: its baseline entry names hand check "handcheck/missing.mjs CM-LIM-02", and handcheck/missing.mjs does not exist`)
	})

	It("finds a not-drivable reason that names no OpenClaw function, and a failure no entry holds", func() {
		has("CM-CFG-07: not drivable, but its reason names no OpenClaw function")
		has("CM-SEC-01: fails and expected-failures.yaml has no entry")
	})

	It("finds baseline entries that list a skipped, blocked or not-drivable verdict", func() {
		has("expected-failures.yaml requirement CM-EXEC-01: its verdict is blocked by CM-EXEC-05")
		has(`expected-failures.yaml spec "CM-CFG-08 a cell stays on its executor": its verdict is skip`)
		has(`expected-failures.yaml spec "CM-CFG-07 an engine that cannot load": not drivable in the report`)
		has(`expected-failures.yaml spec "CM-CFG-07 an engine that cannot load": its reason says it is not drivable`)
		has(`expected-failures.yaml requirement CM-NEST-05: its spec "CM-NEST-05 a call that cannot be made" is not drivable`)
		Expect(problems).To(HaveLen(9), strings.Join(problems, "\n"))
	})
})

var _ = Describe("the command", func() {
	It("rewrites only the block between the markers, and a second run changes nothing", func() {
		dir := copyFixture("clean")
		path := filepath.Join(dir, "TRIAGE.md")
		before, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		code, errs := triage("--report", dir)
		Expect(code).To(Equal(0), errs)
		first, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(first)).NotTo(ContainSubstring("an old table"))
		Expect(string(first)).To(ContainSubstring("| CM-LIM-03 | xfail | decision |"))
		outside := func(s string) string {
			i, j := strings.Index(s, BeginMarker), strings.Index(s, EndMarker)
			return s[:i] + s[j:]
		}
		Expect(outside(string(first))).To(Equal(outside(string(before))), "the hand-written text around the table is kept")

		code, errs = triage("--report", dir)
		Expect(code).To(Equal(0), errs)
		second, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(second).To(Equal(first), "stable output")
		code, errs = triage("--check", "--report", dir)
		Expect(code).To(Equal(0), errs)
	})

	It("--check fails on a stale table and on a failed check, naming the rows, and writes nothing", func() {
		dir := copyFixture("clean")
		code, errs := triage("--check", "--report", dir)
		Expect(code).To(Equal(1))
		Expect(errs).To(ContainSubstring("generated table is stale"))
		b, err := os.ReadFile(filepath.Join(dir, "TRIAGE.md"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(ContainSubstring("an old table"))

		code, errs = triage("--check", "--report", filepath.Join("testdata", "dirty"))
		Expect(code).To(Equal(1))
		Expect(errs).To(ContainSubstring("testdata/dirty: CM-SEC-01: a security or limits row with no hand check"))
	})

	It("refuses a TRIAGE.md without the markers, and bad usage", func() {
		dir := copyFixture("clean")
		Expect(os.WriteFile(filepath.Join(dir, "TRIAGE.md"), []byte("# no markers\n"), 0o644)).To(Succeed())
		code, errs := triage("--report", dir)
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("want one BEGIN marker"))
		_, err := Splice("x", "y")
		Expect(err).To(MatchError(ErrMarkers))
		code, _ = triage()
		Expect(code).To(Equal(2))
	})
})

var _ = Describe("the committed OpenClaw reports", func() {
	It("load, have the markers, and get one row per requirement that does not pass", func() {
		for _, peer := range sources.DefaultPeers {
			_, path, _ := strings.Cut(peer, "=")
			dir := filepath.Join("..", "..", filepath.Dir(path))
			f, err := Load(dir)
			Expect(err).NotTo(HaveOccurred(), dir)
			t := Build(f)
			notPass := 0
			for _, r := range f.Report.Requirements {
				if r.Verdict != report.Pass {
					notPass++
				}
			}
			Expect(t.Rows).To(HaveLen(notPass), dir)
			doc, err := os.ReadFile(filepath.Join(dir, "TRIAGE.md"))
			Expect(err).NotTo(HaveOccurred())
			_, err = Splice(string(doc), t.Markdown())
			Expect(err).NotTo(HaveOccurred(), dir)
		}
	})
})

var _ = DescribeTable("the command of a hand check clause leaves the prose after it out",
	func(clause, want string) {
		Expect(strings.Join(command(clause), " ")).To(Equal(want))
	},
	Entry("script and case", "handcheck/seclim.mjs CM-LIM-02", "handcheck/seclim.mjs CM-LIM-02"),
	Entry("options before the case", "../x/handcheck/seclim.mjs --executor quickjs --warm CM-LIM-02 CM-LIM-03", "../x/handcheck/seclim.mjs --executor quickjs --warm CM-LIM-02 CM-LIM-03"),
	Entry("prose after the case", `handcheck/seclim.mjs CM-LIM-04 gives {depth: 0}`, "handcheck/seclim.mjs CM-LIM-04"),
	Entry("prose after the script", "handcheck/seclim.mjs shows it", "handcheck/seclim.mjs"),
)
