package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// distSpec is the full text of the make dist spec.
const distSpec = "make dist builds a self-contained release binary that runs version and a --req run outside the checkout"

var _ = Describe("make dist", Label("dist"), func() {
	It(strings.TrimPrefix(distSpec, "make dist "), func() {
		// Unpack into a directory outside the checkout and run from there.
		away := GinkgoT().TempDir()
		tar := exec.Command("tar", "-xzf", releaseTarball(), "-C", away, "--strip-components=1")
		Expect(tar.Run()).To(Succeed(), "the tarball unpacks")
		bin := filepath.Join(away, "codemode-conformance")

		v := exec.Command(bin, "version")
		v.Dir = away
		out, err := v.Output()
		Expect(err).NotTo(HaveOccurred(), "version runs")
		Expect(string(out)).To(HavePrefix("codemode-conformance "+releaseVersion+"\n"), "the version is stamped by make dist")
		Expect(string(out)).To(ContainSubstring("quickjs.wasm sha256 "), "the engine is embedded")

		r := exec.Command(bin, "run", "--target", "builtin", "--req", "CM-EXEC-05", "--results-dir", "results")
		r.Dir = away
		r.Env = append(os.Environ(), "NO_COLOR=1")
		rs, err := gexec.Start(r, GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred(), "starting the release binary")
		Eventually(rs).WithTimeout(3*time.Minute).Should(gexec.Exit(0), "the release binary judges builtin from outside the checkout")
		for _, f := range []string{"conformance-report.yaml", "summary.md", "junit.xml", "report.html"} {
			Expect(filepath.Join(away, "results", f)).To(BeAnExistingFile(), "the run writes %s", f)
		}
	})
})
