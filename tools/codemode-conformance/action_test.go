package main_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/codemode-conformance/codemode/internal/clitest"
	"github.com/goccy/go-yaml"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// actionFile is the part of action.yml the simulation reads.
type actionFile struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID   string            `yaml:"id"`
			If   string            `yaml:"if"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			Env  map[string]string `yaml:"env"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// actionRun is what a simulated run of the action left.
type actionRun struct {
	exit    int               // the exit status of the first step that failed, 0 if none
	outputs map[string]string // steps.<id>.outputs.<name>
	summary string            // $GITHUB_STEP_SUMMARY
	uses    []string          // the uses: steps, which the simulation does not run
	log     string
}

var expr = regexp.MustCompile(`\$\{\{\s*([^}]+?)\s*\}\}`)

// runAction runs action.yml's run steps in order under a simulated GITHUB_*
// environment (GITHUB_OUTPUT per step, GITHUB_STEP_SUMMARY, RUNNER_TEMP),
// resolving the ${{ }} forms the action uses: inputs.*, github.action_path
// and steps.*.outputs.*. uses: steps are recorded, not run.
func runAction(root, workdir string, inputs map[string]string) actionRun {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	Expect(err).NotTo(HaveOccurred(), "reading action.yml")
	var a actionFile
	Expect(yaml.Unmarshal(data, &a)).To(Succeed(), "action.yml parses")
	Expect(a.Runs.Using).To(Equal("composite"), "action.yml is a composite action")
	in := map[string]string{}
	for k, v := range a.Inputs {
		in[k] = v.Default
	}
	for k, v := range inputs {
		in[k] = v
	}
	tmp := GinkgoT().TempDir()
	res := actionRun{outputs: map[string]string{}}
	summary := filepath.Join(tmp, "step-summary.md")
	eval := func(s string) string {
		return expr.ReplaceAllStringFunc(s, func(m string) string {
			e := expr.FindStringSubmatch(m)[1]
			switch {
			case strings.HasPrefix(e, "inputs."):
				return in[strings.TrimPrefix(e, "inputs.")]
			case e == "github.action_path":
				return root
			case strings.HasPrefix(e, "steps."):
				return res.outputs[strings.TrimPrefix(e, "steps.")]
			}
			Fail("action.yml uses an expression the simulation does not know: " + e)
			return ""
		})
	}
	for i, st := range a.Runs.Steps {
		if st.Uses != "" {
			res.uses = append(res.uses, st.Uses)
			continue
		}
		out := filepath.Join(tmp, "output-"+st.ID+"-"+string(rune('a'+i)))
		Expect(os.WriteFile(out, nil, 0o644)).To(Succeed(), "creating GITHUB_OUTPUT")
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", st.Run) // as GitHub runs shell: bash
		cmd.Dir = workdir
		cmd.Env = append(os.Environ(), "GITHUB_ACTIONS=true", "GITHUB_OUTPUT="+out, "GITHUB_STEP_SUMMARY="+summary,
			"RUNNER_TEMP="+tmp, "GITHUB_WORKSPACE="+workdir, "GITHUB_ACTION_PATH="+root)
		for k, v := range st.Env {
			cmd.Env = append(cmd.Env, k+"="+eval(v))
		}
		b, err := cmd.CombinedOutput()
		res.log += string(b)
		f, ferr := os.Open(out)
		Expect(ferr).NotTo(HaveOccurred(), "reading GITHUB_OUTPUT")
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), "="); ok && st.ID != "" {
				res.outputs[st.ID+".outputs."+k] = v
			}
		}
		f.Close()
		if err != nil {
			res.exit = cmd.ProcessState.ExitCode()
			break
		}
	}
	s, _ := os.ReadFile(summary)
	res.summary = string(s)
	return res
}

var _ = Describe("the GitHub Action", Label("action"), func() {
	root, _ := filepath.Abs(filepath.Join("..", ".."))

	It("builds the harness from its own source, uploads the reports, writes the job summary and fails the job on the harness's exit code", func() {
		work := GinkgoT().TempDir()
		r := runAction(root, work, map[string]string{"target": "fake:no-output-limit", "requirements": "CM-LIM-03"})
		Expect(r.exit).To(Equal(1), "the job fails with the harness's exit code 1; log:\n%s", r.log)
		Expect(r.outputs).To(HaveKeyWithValue("run.outputs.exit-code", "1"), "the run step records the exit code")
		Expect(r.outputs["build.outputs.bin"]).To(BeAnExistingFile(), "the build step built the harness")
		Expect(r.summary).To(ContainSubstring("Overall: **failure**"), "summary.md is the job summary")
		for _, f := range []string{"report.html", "junit.xml", "conformance-report.yaml", "summary.md"} {
			Expect(filepath.Join(work, "conformance-results", f)).To(BeAnExistingFile(), "the artefact %s exists to upload", f)
		}
		Expect(r.uses).To(ContainElement(HavePrefix("actions/upload-artifact@")), "the reports are uploaded as an artefact")
	})

	It("passes the job with a baseline, using a given harness binary", func() {
		work := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(work, "known.yaml"), []byte("requirements:\n  - CM-LIM-03\n"), 0o644)).To(Succeed(), "writing the baseline")
		r := runAction(root, work, map[string]string{"target": "fake:no-output-limit", "requirements": "CM-LIM-03",
			"baseline": "known.yaml", "harness-binary": clitest.CLI, "results-dir": "out"})
		Expect(r.exit).To(Equal(0), "a listed failure is partial: the job passes; log:\n%s", r.log)
		Expect(r.outputs).To(HaveKeyWithValue("run.outputs.exit-code", "0"), "the run step records exit code 0")
		Expect(r.summary).To(ContainSubstring("Overall: **partial**"), "summary.md is the job summary")
		Expect(filepath.Join(work, "out", "junit.xml")).To(BeAnExistingFile(), "results-dir is honoured")
	})

	// actionlint runs make actionlint (the pinned actionlint) with action as
	// ACTION_YML; it skips when the module proxy cannot serve actionlint.
	actionlint := func(action string) (string, error) {
		GinkgoHelper()
		lint := exec.Command("make", "-s", "-C", root, "actionlint", "ACTION_YML="+action)
		out, err := lint.CombinedOutput()
		if err != nil && strings.Contains(string(out), "go: ") && !strings.Contains(string(out), ".github/") {
			Skip("actionlint cannot be fetched from the module proxy: " + firstLine(string(out)))
		}
		return string(out), err
	}

	It("the reusable workflow, the action and init's workflow pass actionlint", func() {
		out, err := actionlint(filepath.Join(root, "action.yml"))
		Expect(err).NotTo(HaveOccurred(), "actionlint reports:\n%s", out)
	})

	It("actionlint reads the action's metadata: an action.yml without a description fails it", func() {
		b, err := os.ReadFile(filepath.Join(root, "action.yml"))
		Expect(err).NotTo(HaveOccurred(), "reading action.yml")
		broken := filepath.Join(GinkgoT().TempDir(), "action.yml")
		Expect(os.WriteFile(broken, regexp.MustCompile(`(?m)^description:.*$`).ReplaceAll(b, nil), 0o644)).To(Succeed(), "writing the broken action")
		out, err := actionlint(broken)
		Expect(err).To(HaveOccurred(), "actionlint fails the broken action")
		Expect(out).To(ContainSubstring(`description is required in metadata of "codemode-conformance" action`), "it names the missing field")
	})
})
