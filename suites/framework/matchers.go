package framework

import (
	"encoding/json"
	"fmt"

	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/google/go-cmp/cmp"
	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
)

type statusMatcher struct {
	status result.Status
	code   result.ErrorCode
}

// BeCompleted matches a completed result.
func BeCompleted() types.GomegaMatcher { return &statusMatcher{status: result.StatusCompleted} }

// BeWaiting matches a waiting result.
func BeWaiting() types.GomegaMatcher { return &statusMatcher{status: result.StatusWaiting} }

// BeFailed matches any failed result.
func BeFailed() types.GomegaMatcher { return &statusMatcher{status: result.StatusFailed} }

// BeFailedWith matches a failed result carrying code.
func BeFailedWith(code result.ErrorCode) types.GomegaMatcher {
	return &statusMatcher{status: result.StatusFailed, code: code}
}

func asResult(actual any) (Result, error) {
	switch r := actual.(type) {
	case Result:
		return r, nil
	case *Result:
		return *r, nil
	}
	return Result{}, fmt.Errorf("expected a framework.Result, got %T", actual)
}

func (m *statusMatcher) Match(actual any) (bool, error) {
	r, err := asResult(actual)
	if err != nil {
		return false, err
	}
	return r.Status == m.status && (m.code == "" || r.Code == m.code), nil
}

func (m *statusMatcher) want() string {
	if m.code != "" {
		return fmt.Sprintf("status %q with code %q", m.status, m.code)
	}
	return fmt.Sprintf("status %q", m.status)
}

func (m *statusMatcher) FailureMessage(actual any) string {
	r, _ := asResult(actual)
	return fmt.Sprintf("expected %s, got status %q code %q error %q\n%s", m.want(), r.Status, r.Code, r.Error, r)
}

func (m *statusMatcher) NegatedFailureMessage(actual any) string {
	r, _ := asResult(actual)
	return fmt.Sprintf("expected anything but %s\n%s", m.want(), r)
}

// CompleteWith matches a completed result whose value equals want after both are
// normalised through JSON; the failure message is a go-cmp diff.
func CompleteWith(want any) types.GomegaMatcher { return &valueMatcher{want: want} }

type valueMatcher struct {
	want any
	diff string
}

// JSONNormal is v as encoding/json decodes its JSON text (objects as
// map[string]any, numbers as float64), so that values built in Go compare
// with decoded results; a value that does not marshal becomes a string
// naming its type.
func JSONNormal(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("(unmarshalable %T)", v)
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

func (m *valueMatcher) Match(actual any) (bool, error) {
	r, err := asResult(actual)
	if err != nil {
		return false, err
	}
	if r.Status != result.StatusCompleted {
		m.diff = fmt.Sprintf("result is %q (code %q, error %q), not completed", r.Status, r.Code, r.Error)
		return false, nil
	}
	m.diff = cmp.Diff(JSONNormal(m.want), r.ValueAny())
	return m.diff == "", nil
}

func (m *valueMatcher) FailureMessage(actual any) string {
	r, _ := asResult(actual)
	return fmt.Sprintf("value mismatch (-want +got):\n%s\n%s", m.diff, r)
}

func (m *valueMatcher) NegatedFailureMessage(actual any) string {
	r, _ := asResult(actual)
	return fmt.Sprintf("expected a value other than %v\n%s", m.want, r)
}

// BeRefused matches a result that is neither completed nor waiting. A
// refusal outside the result union (such as OpenClaw 2026.7.35's thrown
// {status: "error"}) never reaches it: Wait blocks the spec by CM-EXEC-05,
// which owns the union's shape (UnionOwner). Specs that only need the
// refusal (CM-RUN-06, CM-SEC-05) use it instead of BeFailed.
func BeRefused() types.GomegaMatcher {
	return gomega.And(gomega.Not(BeCompleted()), gomega.Not(BeWaiting()))
}
