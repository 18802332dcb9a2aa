package main_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// referenceBin is codemode-reference, built once for this binary's specs.
var referenceBin = sync.OnceValues(func() (string, error) {
	return gexec.Build("github.com/codemode-conformance/codemode/reference/cmd/codemode-reference")
})

// listenWithToken starts codemode-reference serve --listen 127.0.0.1:0
// with a session token, given in its environment (CODEMODE_REFERENCE_TOKEN)
// or, with allowRemote, as --allow-remote --token-file (the setup of a
// reference that accepts peers of other hosts), and returns its address.
func listenWithToken(token string, allowRemote bool) string {
	GinkgoHelper()
	bin, err := referenceBin()
	Expect(err).NotTo(HaveOccurred())
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "CODEMODE_REFERENCE_TOKEN="+token)
	if allowRemote {
		cmd = exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--allow-remote", "--token-file", file("reference-token", token+"\n"))
		cmd.Env = os.Environ()
	}
	stderr, err := cmd.StderrPipe()
	Expect(err).NotTo(HaveOccurred())
	Expect(cmd.Start()).To(Succeed())
	DeferCleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addrs := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := regexp.MustCompile(`listening on (\S+)`).FindStringSubmatch(sc.Text()); m != nil {
				addrs <- m[1]
			}
		}
	}()
	var addr string
	Eventually(addrs).WithTimeout(time.Minute).Should(Receive(&addr), "serve --listen says where it listens")
	return addr
}

var _ = Describe("a target listening with a session token (issue 28: the harness sends initialize params.token)", func() {
	for _, allowRemote := range []bool{false, true} {
		how := "serve --listen, token in $CODEMODE_REFERENCE_TOKEN"
		if allowRemote {
			how = "serve --listen --allow-remote --token-file"
		}
		Context(how, Ordered, func() { tokenSpecs(allowRemote) })
	}
})

// tokenSpecs are the token specs against one setup of listenWithToken.
func tokenSpecs(allowRemote bool) {
	const token = "s3cret-token-4711"
	var addr string
	BeforeAll(func() { addr = listenWithToken(token, allowRemote) })

	It("is driven with --token-file, and the token reaches no report", func() {
		o := conformance("--target", "tcp:"+addr, "--req", "CM-EXEC-01", "--token-file", file("token", token+"\n"))
		Expect(o.Code).To(Equal(0), "stdout:\n%s", o.Stdout)
		Expect(o.Report.Implementation.Name).To(Equal("codemode-reference"))
		entries, err := os.ReadDir(o.Dir)
		Expect(err).NotTo(HaveOccurred())
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(o.Dir, e.Name()))
			Expect(string(b)).NotTo(ContainSubstring(token), e.Name())
		}
		Expect(o.Stdout + o.Stderr).NotTo(ContainSubstring(token))
	})

	It("is driven with $"+framework.TokenEnv, func() {
		o := conformanceEnv(append(os.Environ(), "NO_COLOR=1", framework.TokenEnv+"="+token), "--target", "tcp:"+addr, "--req", "CM-EXEC-01")
		Expect(o.Code).To(Equal(0), "stdout:\n%s", o.Stdout)
	})

	It("without the token, fails at initialize", func() {
		env := []string{"NO_COLOR=1"}
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, framework.TokenEnv+"=") {
				env = append(env, kv)
			}
		}
		o := conformanceEnv(env, "--target", "tcp:"+addr, "--req", "CM-EXEC-01")
		Expect(o.Code).To(Equal(1))
		Expect(o.Stdout).To(ContainSubstring("initialize"))
	})
}
