package framework

import (
	"encoding/json"
	"testing"

	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/google/go-cmp/cmp"
)

// A failure message that names a result (through Result.String, as the
// matchers and spec messages do) yields that result and its guest code as
// typed evidence, and the message without them; one that names none yields
// nothing.
func TestFailureEvidence(t *testing.T) {
	rendered.take()
	old := Result{Raw: json.RawMessage(`{"status":"completed","value":1}`), GuestCode: "return 1"}
	res := Result{Result: result.Result{Status: result.StatusFailed}, Raw: json.RawMessage(`{"status":"failed","error":"<boom>"}`), GuestCode: "throw new Error('<boom>')"}
	_ = old.String()
	msg := "the cell must complete\nexpected status \"completed\", got status \"failed\"\n" + res.String()
	got, ok := failureEvidence(msg, rendered.take())
	if !ok {
		t.Fatalf("no evidence found in %q", msg)
	}
	want := evidence.Failure{Message: "the cell must complete\nexpected status \"completed\", got status \"failed\"", Result: string(res.Raw), GuestCode: res.GuestCode}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("evidence (-want +got):\n%s", d)
	}
	if _, ok := failureEvidence("timed out", []renderedResult{{text: old.String(), res: old}}); ok {
		t.Errorf("a message naming no result must carry no failure evidence")
	}
}
