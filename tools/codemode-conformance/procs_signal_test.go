package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"time"

	"github.com/codemode-conformance/codemode/internal/clitest"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// A terminal's Ctrl-C reaches every process of the run's group: a --procs
// worker gets that SIGINT and the one the CLI passes on. The two are one
// stop, not the "second signal" that exits at once: the worker still
// writes its report, so the spec it was running is an interrupted error
// (not a skip "run by another process"), and no claim dir is left behind.
var _ = Describe("run --procs stopped by a Ctrl-C to the whole process group", func() {
	It("keeps the serial worker's report", func() {
		dir := GinkgoT().TempDir()
		tmp := filepath.Join(dir, "tmp")
		Expect(os.Mkdir(tmp, 0o755)).To(Succeed())
		// Answers initialize, then nothing: CM-RUN-09's (Serial) spec hangs
		// in the serial worker until the signal.
		script := file("hang-procs.sh", `read -r line
echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"1","implementation":{"name":"hang","version":"0"},"features":[]}}'
while :; do sleep 1; done
`)
		cmd := exec.Command(clitest.CLI, "run", "--results-dir", filepath.Join(dir, "results"), "--target", "exec:sh "+script, "--req", "CM-RUN-09", "--procs", "2")
		cmd.Env = append(os.Environ(), "NO_COLOR=1", "TMPDIR="+tmp)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a group of its own, as a shell job has
		s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		claim := regexp.MustCompile(`^[0-9a-f]{24}$`)
		Eventually(func() bool { // the serial worker claimed its first spec
			procsDirs, _ := filepath.Glob(filepath.Join(tmp, "codemode-conformance-procs-*"))
			for _, d := range procsDirs {
				es, _ := os.ReadDir(d)
				for _, e := range es {
					if claim.MatchString(e.Name()) {
						_, err := os.Stat(filepath.Join(d, "worker-2.log"))
						return err == nil
					}
				}
			}
			return false
		}).WithTimeout(60*time.Second).WithPolling(50*time.Millisecond).Should(BeTrue(), "the serial worker claimed a spec")
		Expect(syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)).To(Succeed())
		Eventually(s).WithTimeout(20*time.Second).Should(gexec.Exit(1), "the stopped run exits 1")
		out := string(s.Out.Contents())
		Expect(out).NotTo(ContainSubstring("without its report"), "the serial worker wrote its report")
		Expect(out).To(MatchRegexp(`ERROR\s+CM-RUN-09`), "the interrupted spec is an error of the run")
		Expect(filepath.Join(dir, "results", "conformance-report.yaml")).To(BeAnExistingFile(), "the stopped run wrote its reports")
		Expect(os.ReadDir(tmp)).To(BeEmpty(), "no claim dir is left in $TMPDIR")
	})
})
