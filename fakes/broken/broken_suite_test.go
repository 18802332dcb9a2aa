package broken_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/goccy/go-yaml"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

func TestBroken(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "broken reference variants")
}

var cli string

var _ = BeforeSuite(func() {
	var err error
	cli, err = gexec.Build("github.com/codemode-conformance/codemode/tools/codemode-conformance")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(gexec.CleanupBuildArtifacts)
})

// outcome is what one CLI run left: its exit code, output and reports.
type outcome struct {
	Code           int
	Stdout, Stderr string
	Dir            string // the results directory
	Summary        string // summary.md
	Report         report.Conformance
}

// conformance runs the CLI and returns its exit code and the reports it
// wrote (none when it exits 2).
func conformance(args ...string) outcome {
	GinkgoHelper()
	return conformanceEnv(append(os.Environ(), "NO_COLOR=1"), args...)
}

// conformanceEnv is conformance with the CLI's environment given.
func conformanceEnv(env []string, args ...string) outcome {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	o := invoke(env, append([]string{"run", "--results-dir", dir}, args...)...)
	o.Dir = dir
	if o.Code == 2 {
		return o
	}
	summary, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	Expect(err).NotTo(HaveOccurred(), "the CLI wrote no summary.md")
	o.Summary = string(summary)
	y, err := os.ReadFile(filepath.Join(dir, "conformance-report.yaml"))
	Expect(err).NotTo(HaveOccurred(), "the CLI wrote no conformance-report.yaml")
	Expect(yaml.Unmarshal(y, &o.Report)).To(Succeed(), "conformance-report.yaml:\n%s", y)
	return o
}

// invoke runs the CLI with exactly args and returns its exit code and
// output.
func invoke(env []string, args ...string) outcome {
	GinkgoHelper()
	cmd := exec.Command(cli, args...)
	cmd.Env = env
	s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	Eventually(s).WithTimeout(5 * 60e9).Should(gexec.Exit())
	return outcome{Code: s.ExitCode(), Stdout: string(s.Out.Contents()), Stderr: string(s.Err.Contents())}
}

// verdicts maps requirement IDs to their verdicts in the report.
func (o outcome) verdicts() map[string]report.Verdict {
	out := map[string]report.Verdict{}
	for _, r := range o.Report.Requirements {
		out[r.ID] = r.Verdict
	}
	return out
}

// file writes content to a temporary file and returns its path.
func file(name, content string) string {
	GinkgoHelper()
	p := filepath.Join(GinkgoT().TempDir(), name)
	Expect(os.WriteFile(p, []byte(content), 0o644)).To(Succeed())
	return p
}
