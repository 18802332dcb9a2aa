package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

// Two runs of the same failing target give the same failure messages once
// run ids, durations, ports and temporary paths are normalised (issue 23
// item 8): a table of cases ranged in map order would change which case
// fails first. fake:context-dropped fails CM-NEST-01; CM-GUEST-08's table
// of non-serialisable values and CM-EXEC-09's run ids run beside it. (A
// target that races its own answers, such as fake:forged-invoke, whose
// forged calls may land in the next spec, is not deterministic itself.)
var _ = Describe("evidence", func() {
	It("is the same, normalised, when the same target is run twice", func() {
		messages := func() map[string]string {
			GinkgoHelper()
			o := conformance("--target", "fake:context-dropped", "--req", "CM-NEST-01", "--req", "CM-GUEST-08", "--req", "CM-EXEC-09")
			Expect(o.Code).To(Equal(1), "fake:context-dropped fails CM-NEST-01: %s", o.Stdout)
			data, err := os.ReadFile(filepath.Join(o.Dir, "report.json"))
			Expect(err).NotTo(HaveOccurred(), "the run wrote report.json")
			var reports []types.Report
			Expect(json.Unmarshal(data, &reports)).To(Succeed(), "report.json is Ginkgo's JSON report")
			out := map[string]string{}
			for _, r := range reports {
				for _, s := range report.Specs(r) {
					out[s.Text] = s.State + ": " + report.Normalise(s.Message)
				}
			}
			return out
		}
		first, second := messages(), messages()
		failed := 0
		for _, m := range first {
			if len(m) > 7 && m[:7] == "failed:" {
				failed++
			}
		}
		Expect(failed).To(BeNumerically(">", 0), "the comparison covers failures: %v", first)
		Expect(cmp.Diff(first, second)).To(BeEmpty(), "the normalised messages of the two runs differ (-first +second)")
	})
})
