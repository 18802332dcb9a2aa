package schema_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/spec/schema"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite spec/schema/*.json from the Go types")

// The committed schemas are the generation from the Go types
// (go test ./spec/schema -update rewrites them).
func TestSchemasMatchTheGoTypes(t *testing.T) {
	for _, m := range schema.Messages {
		want, err := schema.Generate(m)
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(m.File, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := schema.Committed(m.File)
		if err != nil {
			t.Fatalf("%s is not committed (go test ./spec/schema -update): %v", m.File, err)
		}
		if d := cmp.Diff(string(want), string(got)); d != "" {
			t.Errorf("%s differs from its Go type %s (go test ./spec/schema -update) (-want +got):\n%s", m.File, m.Type, d)
		}
	}
}

// tel is a telemetry object with every member result.Telemetry always writes.
const tel = `{"catalogSize":0,"execCount":1,"waitCount":0,"searchCount":0,"describeCount":0,"callCount":0,"durationMs":3}`

func TestValidateAcceptsWellFormedAndNamesTheSchemaPathOfAMalformedResult(t *testing.T) {
	for _, ok := range []string{
		`{"status":"completed","value":2,"telemetry":` + tel + `}`,
		`{"status":"failed","code":"runtime_unavailable","error":"no engine","telemetry":` + tel + `}`,
	} {
		if err := schema.Validate("tool.result.json", []byte(ok)); err != nil {
			t.Errorf("a well-formed result is rejected: %v\n%s", err, ok)
		}
	}
	for bad, path := range map[string]string{
		`{"status":"completed","value":2}`:                            "telemetry",
		`{"status":1,"telemetry":` + tel + `}`:                        "status",
		`{"status":"completed","output":"x","telemetry":` + tel + `}`: "output",
	} {
		err := schema.Validate("tool.result.json", []byte(bad))
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("a malformed result %s: got %v, want an error naming %q", bad, err, path)
		}
	}
	if err := schema.Validate("initialize.result.json", []byte(`{"protocolVersion":"1","implementation":{"name":"x","version":"0"},"features":[]}`)); err != nil {
		t.Errorf("a well-formed initialize result is rejected: %v", err)
	}
	if err := schema.Validate("initialize.result.json", []byte(`{"implementation":{"name":"x","version":"0"},"features":[]}`)); err == nil || !strings.Contains(err.Error(), "protocolVersion") {
		t.Errorf("an initialize result without protocolVersion: got %v, want an error naming protocolVersion", err)
	}
}
