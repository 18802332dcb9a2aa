// Package clitest runs the codemode-conformance command in Ginkgo specs and
// reads what it wrote: the exit code, stdout, stderr, summary.md and
// conformance-report.yaml. The CLI's own tests (tools/codemode-conformance)
// and the broken-variant tests (fakes/broken) share it.
package clitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/goccy/go-yaml"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// CLI is the path of the command built by Build.
var CLI string

// Build builds the command (call it from BeforeSuite); the binary is
// removed when the suite ends.
func Build() {
	ginkgo.GinkgoHelper()
	var err error
	CLI, err = gexec.Build("github.com/codemode-conformance/codemode/tools/codemode-conformance")
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "building codemode-conformance")
	ginkgo.DeferCleanup(gexec.CleanupBuildArtifacts)
}

// Outcome is what one CLI run left: its exit code, output and reports.
type Outcome struct {
	Code           int
	Stdout, Stderr string
	Dir            string // the results directory
	Summary        string // summary.md
	Report         report.Conformance
}

// Conformance runs `codemode-conformance run` with args (NO_COLOR set) into
// a fresh results directory and returns its exit code and the reports it
// wrote (none when it exits 2).
func Conformance(args ...string) Outcome {
	ginkgo.GinkgoHelper()
	return ConformanceEnv(append(os.Environ(), "NO_COLOR=1"), args...)
}

// ConformanceEnv is Conformance with the CLI's environment given.
func ConformanceEnv(env []string, args ...string) Outcome {
	ginkgo.GinkgoHelper()
	return StartConformance(env, args...).Wait()
}

// Pending is a CLI run started in the background (StartConformance).
type Pending struct {
	s   *gexec.Session
	dir string
}

// StartConformance starts what ConformanceEnv runs and returns at once, so
// that runs which mostly wait on deadlines overlap; Wait collects it. The
// CLI is killed when the node that started it ends.
func StartConformance(env []string, args ...string) *Pending {
	ginkgo.GinkgoHelper()
	dir := ginkgo.GinkgoT().TempDir()
	return &Pending{s: start(env, append([]string{"run", "--results-dir", dir}, args...)...), dir: dir}
}

// Wait waits for the run (up to 5 minutes) and returns its exit code and
// the reports it wrote (none when it exits 2).
func (p *Pending) Wait() Outcome {
	ginkgo.GinkgoHelper()
	return p.WaitUpTo(5 * time.Minute)
}

// WaitUpTo is Wait for a run that may take up to d (a whole-catalogue run
// against a slow target).
func (p *Pending) WaitUpTo(d time.Duration) Outcome {
	ginkgo.GinkgoHelper()
	o := waitUpTo(p.s, d)
	o.Dir = p.dir
	return readReports(o)
}

// readReports fills in o's summary and report from its results directory
// (o.Dir), unless the run exited 2 (it wrote none).
func readReports(o Outcome) Outcome {
	ginkgo.GinkgoHelper()
	if o.Code == 2 {
		return o
	}
	summary, err := os.ReadFile(filepath.Join(o.Dir, "summary.md"))
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the CLI wrote no summary.md")
	o.Summary = string(summary)
	y, err := os.ReadFile(filepath.Join(o.Dir, "conformance-report.yaml"))
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the CLI wrote no conformance-report.yaml")
	gomega.Expect(yaml.Unmarshal(y, &o.Report)).To(gomega.Succeed(), "conformance-report.yaml:\n%s", y)
	return o
}

// Invoke runs the CLI with exactly args and returns its exit code and
// output (it waits up to 5 minutes).
func Invoke(env []string, args ...string) Outcome {
	ginkgo.GinkgoHelper()
	return wait(start(env, args...))
}

func start(env []string, args ...string) *gexec.Session {
	ginkgo.GinkgoHelper()
	cmd := exec.Command(CLI, args...)
	cmd.Env = env
	s, err := gexec.Start(cmd, ginkgo.GinkgoWriter, ginkgo.GinkgoWriter)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "starting %s", CLI)
	ginkgo.DeferCleanup(func() { s.Kill() })
	return s
}

func wait(s *gexec.Session) Outcome {
	ginkgo.GinkgoHelper()
	return waitUpTo(s, 5*time.Minute)
}

func waitUpTo(s *gexec.Session, d time.Duration) Outcome {
	ginkgo.GinkgoHelper()
	gomega.Eventually(s).WithTimeout(d).Should(gexec.Exit(), "the CLI must exit within %s", d)
	return Outcome{Code: s.ExitCode(), Stdout: string(s.Out.Contents()), Stderr: string(s.Err.Contents())}
}

// Verdicts maps requirement IDs to their verdicts in the report.
func (o Outcome) Verdicts() map[string]report.Verdict {
	out := map[string]report.Verdict{}
	for _, r := range o.Report.Requirements {
		out[r.ID] = r.Verdict
	}
	return out
}

// File writes content to a temporary file and returns its path.
func File(name, content string) string {
	ginkgo.GinkgoHelper()
	p := filepath.Join(ginkgo.GinkgoT().TempDir(), name)
	gomega.Expect(os.WriteFile(p, []byte(content), 0o644)).To(gomega.Succeed(), "writing %s", p)
	return p
}
