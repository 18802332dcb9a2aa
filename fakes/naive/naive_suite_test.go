package naive_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/fakes/naive"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/goccy/go-yaml"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

func TestNaive(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "the naive Node.js target")
}

var cli string

var _ = BeforeSuite(func() {
	if _, err := naive.Target(); errors.Is(err, naive.ErrNoNode) {
		Skip(fmt.Sprintf("%v: these specs run the naive target with node (CI has Node.js on PATH)", err))
	}
	var err error
	cli, err = gexec.Build("github.com/codemode-conformance/codemode/tools/codemode-conformance")
	Expect(err).NotTo(HaveOccurred(), "building the conformance CLI")
	DeferCleanup(gexec.CleanupBuildArtifacts)
})

// runBudget bounds one CLI run against the naive target: every run selects a
// few requirements, so even one that hangs the target must end well within
// it once the harness has per-spec deadlines.
const runBudget = 3 * time.Minute

// outcome is what one CLI run against the naive target left.
type outcome struct {
	Code           int
	Stdout, Stderr string
	Report         report.Conformance
	raw            map[string]any // conformance-report.yaml, undecoded
	specs          []types.SpecReport
}

var runSeq atomic.Int64

// conformance runs the CLI against the naive target with args (--req …) and
// returns its exit code and reports. The target's processes carry a tag
// unique to this run; any still alive when the spec ends are killed by pid,
// and the run must not leave any behind.
func conformance(args ...string) outcome {
	GinkgoHelper()
	return conformanceOf(nil, args...)
}

// conformanceOf is conformance with targetArgs for target.mjs (naive.CoreOnly).
func conformanceOf(targetArgs []string, args ...string) outcome {
	GinkgoHelper()
	return conformanceAt("", targetArgs, args...)
}

// conformanceAt is conformanceOf with script instead of target.mjs ("":
// target.mjs), run with node (a test asset wrapping target.mjs, which
// passes the arguments on).
func conformanceAt(script string, targetArgs []string, args ...string) outcome {
	GinkgoHelper()
	tag := fmt.Sprintf("--naive-run=%d-%d", os.Getpid(), runSeq.Add(1))
	target, err := naive.Target(append([]string{tag}, targetArgs...)...)
	Expect(err).NotTo(HaveOccurred(), "locating node and target.mjs")
	if script != "" {
		target = strings.Replace(target, naive.Script(), script, 1)
	}
	dir := GinkgoT().TempDir()
	cmd := exec.Command(cli, append([]string{"run", "--results-dir", dir, "--target", target}, args...)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred(), "starting the CLI")
	DeferCleanup(func() {
		// No assertions here: whatever happened, nothing of this run may
		// outlive the spec.
		if s.ExitCode() == -1 {
			s.Terminate()
			select {
			case <-s.Exited:
			case <-time.After(10 * time.Second):
				s.Kill()
				<-s.Exited
			}
		}
		for _, pid := range tagged(tag) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	Eventually(s).WithTimeout(runBudget).Should(gexec.Exit(),
		"the run %v did not end within %s: a target that hangs must cost the spec that hung it a bounded time, not the whole run", args, runBudget)
	Eventually(func() []int { return tagged(tag) }).WithTimeout(15*time.Second).Should(BeEmpty(),
		"processes of the naive target outlived the CLI run")
	o := outcome{Code: s.ExitCode(), Stdout: string(s.Out.Contents()), Stderr: string(s.Err.Contents())}
	y, err := os.ReadFile(filepath.Join(dir, "conformance-report.yaml"))
	Expect(err).NotTo(HaveOccurred(), "the CLI wrote no conformance-report.yaml (exit %d):\n%s\n%s", o.Code, o.Stdout, o.Stderr)
	Expect(yaml.Unmarshal(y, &o.Report)).To(Succeed(), "conformance-report.yaml:\n%s", y)
	Expect(yaml.Unmarshal(y, &o.raw)).To(Succeed(), "conformance-report.yaml:\n%s", y)
	j, err := os.ReadFile(filepath.Join(dir, "report.json"))
	Expect(err).NotTo(HaveOccurred(), "the CLI wrote no report.json")
	var reports []types.Report
	Expect(json.Unmarshal(j, &reports)).To(Succeed(), "report.json is Ginkgo's report")
	for _, r := range reports {
		for _, sr := range r.SpecReports {
			if sr.LeafNodeType == types.NodeTypeIt && report.Selected(sr) {
				o.specs = append(o.specs, sr)
			}
		}
	}
	sort.SliceStable(o.specs, func(i, j int) bool { return o.specs[i].StartTime.Before(o.specs[j].StartTime) })
	return o
}

// tagged lists the pids whose command line contains tag.
func tagged(tag string) []int {
	var out []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), tag) {
			out = append(out, pid)
		}
	}
	return out
}

// requirement returns the report line of id, failing the spec when the run
// did not report it.
func (o outcome) requirement(id string) report.RequirementLine {
	GinkgoHelper()
	for _, r := range o.Report.Requirements {
		if r.ID == id {
			return r
		}
	}
	Fail(fmt.Sprintf("the report has no verdict for %s; requirements reported: %v\n%s", id, o.verdicts(), o.Stdout))
	return report.RequirementLine{}
}

// verdicts maps requirement IDs to their verdicts.
func (o outcome) verdicts() map[string]report.Verdict {
	out := map[string]report.Verdict{}
	for _, r := range o.Report.Requirements {
		out[r.ID] = r.Verdict
	}
	return out
}

// selfReported says whether the report marks requirement id as judged on
// what the target reports about itself (a marker anywhere in its entry).
func (o outcome) selfReported(id string) bool {
	reqs, _ := o.raw["requirements"].([]any)
	for _, r := range reqs {
		m, _ := r.(map[string]any)
		if m["id"] == id {
			b, _ := json.Marshal(m)
			return strings.Contains(strings.ToLower(string(b)), "self-reported")
		}
	}
	return false
}

// specLines describes every spec of the run in start order, for failure
// messages.
func (o outcome) specLines() string {
	var b strings.Builder
	for _, s := range o.specs {
		fmt.Fprintf(&b, "  %s %s %s\n", s.StartTime.Format("15:04:05.000"), s.State, s.LeafNodeText)
	}
	return b.String()
}
