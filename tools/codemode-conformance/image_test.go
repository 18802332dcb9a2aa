package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/goccy/go-yaml"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// docker runs the docker CLI and returns its trimmed output.
func docker(args ...string) (string, error) {
	out, err := exec.Command("docker", args...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

var _ = Describe("make image", Label("image"), func() {
	It("judges the reference image over a user-defined network as builtin is judged, and leaves no container", func() {
		needDocker("make image")
		dockerImages()

		tag := fmt.Sprintf("ccimg%d", time.Now().UnixNano())
		label := "org.codemode-conformance.test=" + tag
		_, err := docker("network", "create", "--label", label, tag)
		Expect(err).NotTo(HaveOccurred(), "creating the user-defined network")
		DeferCleanup(func() {
			if ids, _ := docker("ps", "-aq", "--filter", "label="+label); ids != "" {
				_, _ = docker(append([]string{"rm", "-f"}, strings.Fields(ids)...)...)
			}
			_, _ = docker("network", "rm", tag)
		})
		_, err = docker("run", "-d", "--rm", "--label", label, "--network", tag, "--name", tag+"-ref", "codemode-reference:local")
		Expect(err).NotTo(HaveOccurred(), "starting the reference image")

		results := GinkgoT().TempDir()
		req := []string{"--req", "CM-EXEC-05", "--req", "CM-RUN-01"}
		args := append([]string{"run", "--rm", "--label", label, "--network", tag, "--user", fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()),
			"-v", results + ":/results", "codemode-conformance:local", "run", "--target", "tcp:" + tag + "-ref:7070", "--results-dir", "/results"}, req...)
		run := exec.Command("docker", args...)
		rs, err := gexec.Start(run, GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred(), "starting the harness image")
		Eventually(rs).WithTimeout(5*60e9).Should(gexec.Exit(0), "the harness image judges the reference image: success")

		data, err := os.ReadFile(filepath.Join(results, "conformance-report.yaml"))
		Expect(err).NotTo(HaveOccurred(), "the harness image writes its reports to the mounted /results")
		var viaImage report.Conformance
		Expect(yaml.Unmarshal(data, &viaImage)).To(Succeed(), "conformance-report.yaml parses")
		builtin := conformance(append([]string{"--target", "builtin"}, req...)...)
		Expect(verdictsOf(viaImage)).To(Equal(builtin.Verdicts()), "the image over TCP gives builtin's verdicts")

		_, _ = docker("rm", "-f", tag+"-ref")
		Eventually(func() string { ids, _ := docker("ps", "-aq", "--filter", "label="+label); return ids }).
			WithTimeout(30*time.Second).Should(BeEmpty(), "no container is left behind")
	})
})

func verdictsOf(c report.Conformance) map[string]report.Verdict {
	out := map[string]report.Verdict{}
	for _, r := range c.Requirements {
		out[r.ID] = r.Verdict
	}
	return out
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
