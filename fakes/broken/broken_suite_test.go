package broken_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

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

// conformance runs the CLI and returns its exit code and the summary it wrote.
func conformance(args ...string) (int, string) {
	dir := GinkgoT().TempDir()
	cmd := exec.Command(cli, append([]string{"run", "--results-dir", dir}, args...)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	Eventually(s).WithTimeout(5 * 60e9).Should(gexec.Exit())
	summary, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	Expect(err).NotTo(HaveOccurred(), "the CLI wrote no summary.md")
	return s.ExitCode(), string(summary)
}
