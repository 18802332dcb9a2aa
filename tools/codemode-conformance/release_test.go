package main_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/codemode-conformance/codemode/internal/clitest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// releaseVersion is the version make dist stamps into the specs' tarball.
const releaseVersion = "v0.0.0-test"

// built holds what the specs build once per suite run and share: the host
// platform's release tarball (make dist-binaries) and the two images (make
// image container-image). A build's failure fails every spec that needs it.
var built struct {
	distDir     string
	tarball     string
	tarballErr  error
	images      bool
	imagesErr   error
	imagesBuilt bool
}

var _ = AfterSuite(func() {
	if releaseBuild.done != nil {
		releaseBuild.cancel()
		<-releaseBuild.done
		_ = os.RemoveAll(releaseBuild.dir)
	}
	if built.distDir != "" {
		_ = os.RemoveAll(built.distDir)
	}
})

// repoRoot is the checkout's root, from this package's directory.
func repoRoot() string {
	GinkgoHelper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	Expect(err).NotTo(HaveOccurred(), "locating the repository root")
	return root
}

// makeTargets runs make in the repository root with args, up to 15 minutes
// (a cold build cache on a loaded machine), and returns its error.
func makeTargets(args ...string) error {
	GinkgoHelper()
	s, err := gexec.Start(exec.Command("make", append([]string{"-C", repoRoot()}, args...)...), GinkgoWriter, GinkgoWriter)
	if err != nil {
		return err
	}
	Eventually(s).WithTimeout(15 * time.Minute).Should(gexec.Exit())
	if s.ExitCode() != 0 {
		return fmt.Errorf("make %s: exit %d", strings.Join(args, " "), s.ExitCode())
	}
	return nil
}

// releaseTarball returns the path of the host platform's release tarball,
// codemode-conformance_<releaseVersion>_<os>_<arch>.tar.gz, built by make
// dist-binaries on first use (one platform only, to keep CPU low; make
// dist builds all four).
func releaseTarball() string {
	GinkgoHelper()
	if built.tarball == "" && built.tarballErr == nil && releaseBuild.done != nil {
		Eventually(releaseBuild.done).WithTimeout(15*time.Minute).Should(BeClosed(), "make dist-binaries, started by BeforeSuite, must end")
		built.distDir, built.tarballErr = releaseBuild.dir, releaseBuild.err
		if built.tarballErr == nil {
			built.tarball = filepath.Join(built.distDir, fmt.Sprintf("codemode-conformance_%s_%s_%s.tar.gz", releaseVersion, runtime.GOOS, runtime.GOARCH))
		}
	}
	if built.tarball == "" && built.tarballErr == nil {
		built.distDir, built.tarballErr = os.MkdirTemp("", "codemode-dist-")
		if built.tarballErr == nil {
			built.tarballErr = makeTargets(distArgs(built.distDir)...)
		}
		if built.tarballErr == nil {
			built.tarball = filepath.Join(built.distDir, fmt.Sprintf("codemode-conformance_%s_%s_%s.tar.gz", releaseVersion, runtime.GOOS, runtime.GOARCH))
		}
	}
	Expect(built.tarballErr).NotTo(HaveOccurred(), "make dist-binaries builds the release tarball")
	Expect(built.tarball).To(BeAnExistingFile(), "make dist-binaries writes the tarball")
	return built.tarball
}

// distArgs are make's arguments for the host platform's release tarball
// in dir.
func distArgs(dir string) []string {
	return []string{"dist-binaries", "DIST=" + dir, "DIST_PLATFORMS=" + runtime.GOOS + "/" + runtime.GOARCH, "DIST_VERSION=" + releaseVersion}
}

// releaseBuild is make dist-binaries started in the background by
// startReleaseBuild: a cold static, -trimpath build of the CLI was 40% of
// this package's time, all of it build, while the other specs mostly wait
// on deadlines; releaseTarball waits for it. done is nil when it was not
// started (releaseTarball then builds on first use).
var releaseBuild struct {
	done   chan struct{}
	dir    string
	err    error
	cancel context.CancelFunc
}

// startReleaseBuild starts make dist-binaries when this suite run selects
// a spec that needs the tarball (clitest.WillRun: it answers false under a
// label filter, and the spec then builds it itself). The build is killed,
// with every process it started, when the suite ends.
func startReleaseBuild(suite string, specs ...string) {
	GinkgoHelper()
	if !slices.ContainsFunc(specs, func(s string) bool { return clitest.WillRun(suite, s) }) {
		return
	}
	dir, err := os.MkdirTemp("", "codemode-dist-")
	Expect(err).NotTo(HaveOccurred(), "making the release tarball's directory")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "make", append([]string{"-C", repoRoot()}, distArgs(dir)...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	releaseBuild.done, releaseBuild.dir, releaseBuild.cancel = make(chan struct{}), dir, cancel
	go func() {
		defer close(releaseBuild.done)
		if err := cmd.Run(); err != nil {
			releaseBuild.err = fmt.Errorf("make %s: %w\n%s", strings.Join(distArgs(dir), " "), err, out.Bytes())
		}
	}()
}

// needDocker skips the spec, saying why, when no Docker daemon answers.
func needDocker(what string) {
	GinkgoHelper()
	if out, err := docker("info"); err != nil {
		Skip("no Docker daemon answers (docker info: " + firstLine(out) + "): " + what + " is not checked here")
	}
}

// dockerImages builds codemode-conformance:local and codemode-reference:local
// (make image container-image) on first use; later specs reuse them.
func dockerImages() {
	GinkgoHelper()
	if !built.imagesBuilt {
		built.imagesBuilt = true
		built.imagesErr = makeTargets("image", "container-image")
	}
	Expect(built.imagesErr).NotTo(HaveOccurred(), "make image container-image builds both images")
}

// newUser is an empty home directory holding only the unpacked release
// tarball, and the environment of a user with nothing else: no Go, no
// npm, no checkout; PATH has the system's tools (python3 for an init
// adapter, docker for a container target).
type newUser struct {
	home string
	env  []string
	end  time.Time // the acceptance budget: every step must end by then
}

func unpackRelease(budget time.Duration) newUser {
	GinkgoHelper()
	tarball := releaseTarball() // built before the clock starts: the user downloads it
	u := newUser{home: GinkgoT().TempDir(), end: time.Now().Add(budget)}
	u.env = []string{"HOME=" + u.home, "PATH=/usr/local/bin:/usr/bin:/bin", "NO_COLOR=1"}
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		u.env = append(u.env, "DOCKER_HOST="+h)
	}
	local := filepath.Join(u.home, filepath.Base(tarball))
	if os.Link(tarball, local) != nil { // another file system: copy it
		b, err := os.ReadFile(tarball)
		Expect(err).NotTo(HaveOccurred(), "reading the tarball")
		Expect(os.WriteFile(local, b, 0o644)).To(Succeed(), "copying the tarball")
	}
	u.sh(0, "tar", "-xzf", filepath.Base(tarball), "--strip-components=1")
	Expect(filepath.Join(u.home, "codemode-conformance")).To(BeAnExistingFile(), "the tarball holds the CLI")
	return u
}

// sh runs name args in the user's home directory within the budget and
// expects exit code want; it returns stdout.
func (u newUser) sh(want int, name string, args ...string) string {
	GinkgoHelper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = u.home, u.env
	s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred(), "starting %s", name)
	DeferCleanup(func() { s.Kill() })
	left := time.Until(u.end)
	Eventually(s).WithTimeout(max(left, time.Second)).Should(gexec.Exit(), "%s %s must end within the 5-minute budget", name, strings.Join(args, " "))
	Expect(s.ExitCode()).To(Equal(want), "%s %s exits %d; stdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), want, s.Out.Contents(), s.Err.Contents())
	return string(s.Out.Contents())
}

// cli runs the unpacked codemode-conformance.
func (u newUser) cli(want int, args ...string) string {
	GinkgoHelper()
	return u.sh(want, "./codemode-conformance", args...)
}

// releaseAloneSpec is the text of the release tarball's first spec.
const releaseAloneSpec = "lets a new user in an empty directory write an adapter, judge it as an exec: target and write its baseline"

var _ = Describe("the release tarball alone", Label("release"), func() {
	const budget = 5 * time.Minute // issue 26's acceptance: a new user, in under 5 minutes

	It(releaseAloneSpec, func() {
		u := unpackRelease(budget)
		Expect(u.cli(0, "version")).To(HavePrefix("codemode-conformance "+releaseVersion+"\n"), "version prints the stamped release")
		u.cli(0, "init", "--lang", "python", "adapter")
		target := "exec:python3 adapter/adapter.py"
		// smoke's own 10 s budget includes python's start; a loaded CI machine gets more.
		u.cli(0, "smoke", "--timeout", "60s", "--target", target)
		req := []string{"--target", target, "--req", "CM-ACT-03", "--req", "CM-CFG-06"}
		out := u.cli(1, append([]string{"run", "--results-dir", "first"}, req...)...)
		Expect(out).To(ContainSubstring("overall failure"), "the skeleton fails the two requirements")
		u.cli(0, "baseline", "--from", "first", "--update", "adapter/expected-failures.yaml")
		base, err := os.ReadFile(filepath.Join(u.home, "adapter", "expected-failures.yaml"))
		Expect(err).NotTo(HaveOccurred(), "baseline updates the file init wrote")
		Expect(string(base)).To(And(ContainSubstring("# CM-ACT-03\n"), ContainSubstring("# CM-CFG-06\n")), "the baseline lists the failing specs")
		out = u.cli(0, append([]string{"run", "--results-dir", "second", "--expected-failures", "adapter/expected-failures.yaml"}, req...)...)
		Expect(out).To(ContainSubstring("overall partial"), "with the written baseline the same run is partial")
		for _, f := range []string{"conformance-report.yaml", "summary.md", "junit.xml", "report.html"} {
			Expect(filepath.Join(u.home, "second", f)).To(BeAnExistingFile(), "the run writes %s", f)
		}
	})

	It("judges a container target, and leaves no container behind", func() {
		needDocker("a container target")
		dockerImages() // the reference image stands in for the user's own
		u := unpackRelease(budget)
		target := "container:codemode-reference:local"
		out := u.cli(0, "run", "--results-dir", "out", "--target", target, "--req", "CM-EXEC-05", "--req", "CM-RUN-01")
		Expect(out).To(ContainSubstring("overall success"), "the reference image passes")
		Expect(filepath.Join(u.home, "out", "conformance-report.yaml")).To(BeAnExistingFile(), "the run writes its report")
		Eventually(func() string {
			ids, _ := docker("ps", "-aq", "--filter", "label=org.codemode-conformance.target="+target)
			return ids
		}).WithTimeout(30*time.Second).Should(BeEmpty(), "the run removes every container it started")
	})
})
