package embed_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/codemode-conformance/codemode/conformance"
)

// TestConformance runs conformance specs against the reference runtime as a
// separate process speaking the driver protocol on stdio: the exec: target
// an implementer points at their own binary or adapter. Your test leaves
// Requirements out and runs every suite; this one runs a sample across the
// areas, because tools/conformance-md already runs every suite over exec:
// under make test (its "separate process over stdio" spec).
func TestConformance(t *testing.T) {
	// The implementation under test: here the reference, built for the test.
	bin := filepath.Join(t.TempDir(), "codemode-reference")
	build := exec.Command("go", "build", "-o", bin, "github.com/codemode-conformance/codemode/reference/cmd/codemode-reference")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("building the reference runtime: %v", err)
	}

	// CODEMODE_RESULTS keeps the reports (e.g. for CI to archive); by default
	// they go to a temporary directory that the test removes.
	results := os.Getenv("CODEMODE_RESULTS")
	if results == "" {
		results = t.TempDir()
	}
	conformance.Test(t, conformance.Config{
		Target:     "exec:" + bin + " serve --stdio",
		Profile:    "v1",
		ResultsDir: results, // conformance-report.yaml, summary.md, junit.xml, report.html, report.json
		// Requirements: leave it out to run every suite.
		Requirements: []string{"CM-PROT-01", "CM-EXEC-01", "CM-EXEC-09", "CM-NEST-01", "CM-RUN-01", "CM-LIM-03", "CM-CAT-04"},
		// ExpectedFailures: "known-failures.yaml", // listed failures are xfail
	})

	// Every report was written.
	for _, f := range []string{"conformance-report.yaml", "summary.md", "junit.xml", "report.html", "report.json"} {
		if _, err := os.Stat(filepath.Join(results, f)); err != nil {
			t.Errorf("the run wrote no %s: %v", f, err)
		}
	}
}
