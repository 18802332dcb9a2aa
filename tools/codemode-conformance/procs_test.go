package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

// run --procs 2 gives the verdicts of a serial run (issue 27 item 3): the
// same spec verdicts and normalised messages, requirement verdicts, overall
// verdict and exit code. fake:context-dropped fails CM-NEST-01; CM-RUN-09's
// specs are Serial (the serial worker runs them), CM-RES-04 is skipped
// (outside profile v1), the rest pass.
var _ = Describe("run --procs", func() {
	It("gives the verdicts of a serial run", func() {
		args := []string{"--target", "fake:context-dropped", "--req", "CM-NEST-01", "--req", "CM-RUN-09", "--req", "CM-EXEC-01", "--req", "CM-EXEC-02", "--req", "CM-RES-04", "--req", "CM-GUEST-08"}
		type verdicts struct {
			Code         int
			Overall      report.Overall
			Requirements map[string]report.Verdict
			Specs        map[string]string
		}
		judge := func(o outcome) verdicts {
			GinkgoHelper()
			v := verdicts{Code: o.Code, Overall: o.Report.Overall, Requirements: map[string]report.Verdict{}, Specs: map[string]string{}}
			for _, r := range o.Report.Requirements {
				v.Requirements[r.ID] = r.Verdict
			}
			data, err := os.ReadFile(filepath.Join(o.Dir, "report.json"))
			Expect(err).NotTo(HaveOccurred(), "the run wrote report.json")
			var reports []types.Report
			Expect(json.Unmarshal(data, &reports)).To(Succeed(), "report.json is Ginkgo's JSON report")
			for _, r := range reports {
				for _, s := range report.Specs(r) {
					Expect(v.Specs).NotTo(HaveKey(s.Text), "each spec is reported once")
					v.Specs[s.Text] = s.State + ": " + report.Normalise(s.Message)
				}
			}
			return v
		}
		serial := conformance(args...)
		parallel := conformance(append(args, "--procs", "2")...)
		Expect(parallel.Stderr).To(ContainSubstring("2 processes share the specs"), "--procs 2 runs two processes")
		s, p := judge(serial), judge(parallel)
		// Ginkgo's ParallelProcess says which process ran a spec: 1 (the
		// CLI), 2 (the other parallel worker) or 3 (the serial worker).
		procOf := map[string]int{}
		data, err := os.ReadFile(filepath.Join(parallel.Dir, "report.json"))
		Expect(err).NotTo(HaveOccurred(), "the --procs run wrote report.json")
		var reports []types.Report
		Expect(json.Unmarshal(data, &reports)).To(Succeed(), "report.json is Ginkgo's JSON report")
		for _, sr := range reports[0].SpecReports {
			if report.Selected(sr) {
				procOf[sr.FullText()] = sr.ParallelProcess
			}
		}
		// Which parallel process claims a spec first is a race; that the
		// Serial ones run apart, after the others, is not.
		for text, n := range procOf {
			if strings.Contains(text, "CM-RUN-09") {
				Expect(n).To(Equal(3), "the Serial spec %q runs in the serial worker: %v", text, procOf)
			}
		}
		Expect(s.Code).To(Equal(1), "fake:context-dropped fails CM-NEST-01: %s", serial.Stdout)
		Expect(s.Specs).To(HaveLen(serial.Report.Selection.Specs.Selected), "every selected spec is reported: %v", s.Specs)
		Expect(len(s.Specs)).To(BeNumerically(">=", 7), "CM-RUN-09 has two specs, the others at least one: %v", s.Specs)
		Expect(s.Requirements).To(HaveKeyWithValue("CM-RES-04", report.Skip), "CM-RES-04 is outside profile v1")
		Expect(s.Requirements).To(HaveKeyWithValue("CM-RUN-09", report.Pass), "the Serial specs pass")
		Expect(cmp.Diff(s, p)).To(BeEmpty(), "the verdicts of --procs 2 differ from the serial run's (-serial +procs)\n%s", parallel.Stdout)
	})
})
