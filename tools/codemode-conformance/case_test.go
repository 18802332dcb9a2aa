package main_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// corpusCase is the path of a checked-in hostile case.
func corpusCase(name string) string {
	return filepath.Join("..", "..", "suites", "security", "cases", name)
}

var _ = Describe("the case command", func() {
	It("prints its usage on stdout and exits 0 for -h and help case", func() {
		for _, args := range [][]string{{"case", "-h"}, {"help", "case"}} {
			o := invoke(os.Environ(), args...)
			Expect(o.Code).To(Equal(0), "%v: %s", args, o.Stderr)
			Expect(o.Stdout).To(HavePrefix("usage: codemode-conformance case FILE"), "%v prints the case usage", args)
			Expect(o.Stdout).To(ContainSubstring("-target"), "%v lists the flags", args)
			Expect(o.Stdout).To(MatchRegexp(`(?m)^\s+-profile`), "%v: case has a --profile flag", args)
			Expect(o.Stdout).To(ContainSubstring("(run or case --profile; v1 without it)"), "%v: the help says which profile builtin serves", args)
			Expect(strings.Count(o.Stdout, "default")).To(Equal(2), "%v: the help names the default target once in Targets and once in the flag's (default …), never twice for -target:\n%s", args, o.Stdout)
		}
	})

	It("runs one file against builtin, prints the raw result and PASS, and exits 0", func() {
		o := invoke(os.Environ(), "case", corpusCase("dos-sync-loop.js"), "--target", "builtin")
		Expect(o.Code).To(Equal(0), "a case the reference meets must exit 0:\n%s\n%s", o.Stdout, o.Stderr)
		Expect(o.Stdout).To(MatchRegexp(`(?m)^\{"status":"failed",.*"code":"timeout"`), "the raw result JSON comes first")
		Expect(lastLine(o.Stdout)).To(HavePrefix("PASS case dos-sync-loop.js"))
	})

	It("accepts the flags before the file", func() {
		o := invoke(os.Environ(), "case", "--target", "builtin", corpusCase("engine-bigint-asuintn.js"))
		Expect(o.Code).To(Equal(0), "%s\n%s", o.Stdout, o.Stderr)
		Expect(o.Stdout).To(ContainSubstring(`"value":["18446744073709551615"`), "the raw result carries the value")
	})

	It("prints FAIL with expected and actual and exits 1 when the outcome is not met", func() {
		f := file("wrong.js", "/*---\ndescription: expects the wrong value\nrequirements: [CM-EXEC-06]\nclass: engine\nexpect:\n  value: '43'\n---*/\nreturn 42;\n")
		o := invoke(os.Environ(), "case", f, "--target", "builtin")
		Expect(o.Code).To(Equal(1), "a missed outcome must exit 1:\n%s", o.Stdout)
		Expect(o.Stdout).To(ContainSubstring(`"value":42`), "the raw result is printed")
		Expect(o.Stdout).To(ContainSubstring("FAIL case wrong.js"))
		Expect(o.Stdout).To(ContainSubstring("expected: {value: 43}"))
		Expect(o.Stdout).To(ContainSubstring("-want +got"), "the value mismatch comes as a go-cmp diff")
	})

	It("judges a case under --profile: builtin serves v2's catalog global only under --profile v2", func() {
		f := file("catalog.js", "/*---\ndescription: the generation-2 catalog global exists\nrequirements: [CM-TS-06]\nclass: engine\nexpect:\n  value: '\"object\"'\n---*/\nreturn typeof catalog;\n")
		v2 := invoke(os.Environ(), "case", f, "--target", "builtin", "--profile", "v2")
		Expect(v2.Code).To(Equal(0), "builtin under --profile v2 has the catalog global:\n%s\n%s", v2.Stdout, v2.Stderr)
		Expect(lastLine(v2.Stdout)).To(HavePrefix("PASS case catalog.js"))
		v1 := invoke(os.Environ(), "case", f, "--target", "builtin")
		Expect(v1.Code).To(Equal(1), "builtin without --profile serves v1, which has no catalog global:\n%s", v1.Stdout)
		Expect(v1.Stdout).To(ContainSubstring(`"undefined"`), "the v1 cell sees no catalog")
	})

	It("reports a target declaring another profile than --profile as a target error, exit 1", func() {
		o := invoke(os.Environ(), "case", corpusCase("dos-sync-loop.js"), "--target", "fake:queue-skips-policy", "--profile", "v1")
		Expect(o.Code).To(Equal(1), "a profile mismatch is a target error:\n%s\n%s", o.Stdout, o.Stderr)
		Expect(o.Stdout).To(ContainSubstring(`target error: the target implements profile "v2", the case judges profile "v1"`))
	})

	It("catches a deliberately broken target: fake:deny-ignored lets a guessed id reach a denied tool", func() {
		o := invoke(os.Environ(), "case", corpusCase("bridge-denied-id-guesses.js"), "--target", "fake:deny-ignored")
		Expect(o.Code).To(Equal(1), "the broken variant must fail the case:\n%s", o.Stdout)
		Expect(o.Stdout).To(ContainSubstring("FAIL case bridge-denied-id-guesses.js"))
	})

	It("catches a late dispatch: fake:continuation-dispatch sends a call made after the cell's value was determined", func() {
		o := invoke(os.Environ(), "case", corpusCase("bridge-call-after-nested-result.js"), "--target", "fake:continuation-dispatch")
		Expect(o.Code).To(Equal(1), "the broken variant must fail the case:\n%s", o.Stdout)
		Expect(o.Stdout).To(ContainSubstring("CM-NEST-23"))
	})

	DescribeTable("exits 2 on a usage error, naming it on stderr",
		func(mentions string, args ...string) {
			o := invoke(os.Environ(), append([]string{"case"}, args...)...)
			Expect(o.Code).To(Equal(2), "%v: %s%s", args, o.Stdout, o.Stderr)
			Expect(o.Stderr).To(ContainSubstring(mentions))
		},
		Entry("no file", "exactly one FILE"),
		Entry("two files", "exactly one FILE", corpusCase("dos-sync-loop.js"), corpusCase("dos-sync-loop.js")),
		Entry("a missing file", "no such file", "no-such-case.js"),
		Entry("an unknown flag", "-nope", "-nope", corpusCase("dos-sync-loop.js")),
		Entry("an unknown target", "nope", corpusCase("dos-sync-loop.js"), "--target", "nope:x"),
		Entry("an unknown fake", `there is no fake variant named "nope"`, corpusCase("dos-sync-loop.js"), "--target", "fake:nope"),
		Entry("an unknown profile", `--profile: unknown profile "v3"`, corpusCase("dos-sync-loop.js"), "--profile", "v3"),
		Entry("an OpenClaw version that is not pinned", `no pinned OpenClaw version "1.0"`, corpusCase("dos-sync-loop.js"), "--target", "openclaw:1.0"),
	)

	It("exits 2 on a case whose front matter does not load, naming the problem", func() {
		f := file("bad.js", "/*---\ndescription: d\nrequirements: [CM-NOPE-01]\nclass: engine\nexpect: {value: '1'}\n---*/\nreturn 1;\n")
		o := invoke(os.Environ(), "case", f)
		Expect(o.Code).To(Equal(2), "%s", o.Stderr)
		Expect(o.Stderr).To(ContainSubstring("unknown requirement id"))
		Expect(o.Stderr).To(ContainSubstring("CM-NOPE-01"))
	})
})

var _ = Describe("the case and smoke commands against a hostile target (issue 28 N5)", func() {
	// noRaw checks what a command printed: no raw control, bidi or invalid
	// byte, and no verdict line of the target's own.
	noRaw := func(o outcome) {
		GinkgoHelper()
		Expect(unsafeText([]byte(o.Stdout))).To(BeEmpty(), "stdout:\n%s", o.Stdout)
		Expect(unsafeText([]byte(o.Stderr))).To(BeEmpty(), "stderr:\n%s", o.Stderr)
		Expect(forged.FindString(o.Stdout)).To(BeEmpty(), "stdout:\n%s", o.Stdout)
	}

	It("case prints the target's raw result and its failure escaped", func() {
		o := invoke(append(os.Environ(), "NO_COLOR=1"), "case", corpusCase("dos-sync-loop.js"), "--target", "fake:hostile")
		Expect(o.Code).To(Equal(1), "%s\n%s", o.Stdout, o.Stderr)
		Expect(o.Stdout).To(ContainSubstring("[error]"), "the target's error is shown")
		Expect(o.Stdout).To(MatchRegexp(`(?m)^FAIL case dos-sync-loop.js: `))
		noRaw(o)
	})

	It("smoke quotes a hostile feature name and a hostile failure escaped", func() {
		for _, target := range []string{"fake:hostile-badfeature", "fake:hostile"} {
			o := invoke(append(os.Environ(), "NO_COLOR=1"), "smoke", "--timeout", "60s", "--target", target)
			Expect(o.Code).To(Equal(1), "%s: %s\n%s", target, o.Stdout, o.Stderr)
			Expect(o.Stdout).To(MatchRegexp(`(?m)^FAIL `), "%s: a step fails:\n%s", target, o.Stdout)
			noRaw(o)
		}
	})
})
