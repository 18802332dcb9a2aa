package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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

// A --procs worker killed outright (SIGKILL, the OOM killer) writes no
// report. The specs it had taken are then errors of the run, "lost with
// worker N", not skips "run by another process": a skip would hide that
// they were never judged. Its claim dir does not stay in $TMPDIR either.
var _ = Describe("run --procs with a worker killed outright", func() {
	It("reports the specs the worker had taken as lost with it, errors, and leaves no claim dir", func() {
		dir := GinkgoT().TempDir()
		tmp := filepath.Join(dir, "tmp")
		Expect(os.Mkdir(tmp, 0o755)).To(Succeed())
		// Answers initialize, then nothing: each process's first spec
		// hangs until the signal.
		script := file("hang-kill.sh", `read -r line
echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"1","implementation":{"name":"hang","version":"0"},"features":[]}}'
while :; do sleep 1; done
`)
		cmd := exec.Command(clitest.CLI, "run", "--results-dir", filepath.Join(dir, "results"), "--target", "exec:sh "+script,
			"--req", "CM-EXEC-01", "--req", "CM-EXEC-02", "--procs", "2")
		cmd.Env = append(os.Environ(), "NO_COLOR=1", "TMPDIR="+tmp)
		s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		claim := regexp.MustCompile(`^[0-9a-f]{24}$`)
		Eventually(func() bool { // worker 1 claimed a spec
			procsDirs, _ := filepath.Glob(filepath.Join(tmp, "codemode-conformance-procs-*"))
			for _, d := range procsDirs {
				es, _ := os.ReadDir(d)
				for _, e := range es {
					if b, _ := os.ReadFile(filepath.Join(d, e.Name())); claim.MatchString(e.Name()) && string(b) == "1" {
						return true
					}
				}
			}
			return false
		}).WithTimeout(60*time.Second).WithPolling(50*time.Millisecond).Should(BeTrue(), "worker 1 claimed a spec")
		worker := workerPid(tmp, 1)
		Expect(worker).NotTo(BeZero(), "worker 1's process")
		Expect(syscall.Kill(worker, syscall.SIGKILL)).To(Succeed())
		// Then stop the run (the CLI only: worker 0's spec is interrupted).
		Eventually(func() bool { return syscall.Kill(worker, 0) != nil || zombie(worker) }).WithTimeout(10 * time.Second).Should(BeTrue())
		Expect(cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
		Eventually(s).WithTimeout(20*time.Second).Should(gexec.Exit(1), "the stopped run exits 1")
		out := string(s.Out.Contents())
		Expect(out).To(MatchRegexp(`(?m)^\[\s*\d+\] ERROR\s+CM-EXEC-0[12] .*\n\s+error, not a failure of CM-EXEC-0[12]: lost with worker 1 of --procs 2`), "the spec worker 1 had taken is an error lost with it:\n%s", out)
		Expect(out).NotTo(ContainSubstring("run by another process"), "no spec is left a skip claimed elsewhere:\n%s", out)
		Expect(out).To(ContainSubstring("worker 1 of --procs 2 ended without its report"), "the run's suite error names the lost worker")
		Expect(filepath.Join(dir, "results", "conformance-report.yaml")).To(BeAnExistingFile(), "the run wrote its reports")
		Expect(os.ReadDir(tmp)).To(BeEmpty(), "no claim dir is left in $TMPDIR")
	})
})

// workerPid is the pid of worker index of the run whose $TMPDIR is tmp
// (its environment names both), 0 when there is none.
func workerPid(tmp string, index int) int {
	want := fmt.Sprintf(`"Index":%d`, index)
	ds, _ := os.ReadDir("/proc")
	for _, d := range ds {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err != nil {
			continue
		}
		var worker, ours bool
		for _, kv := range strings.Split(string(b), "\x00") {
			worker = worker || strings.HasPrefix(kv, "CODEMODE_CONFORMANCE_WORKER=") && strings.Contains(kv, want)
			ours = ours || kv == "TMPDIR="+tmp
		}
		if worker && ours {
			return pid
		}
	}
	return 0
}

// zombie: pid has exited and waits for its parent to reap it.
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err != nil || strings.Contains(string(b), ") Z ")
}
