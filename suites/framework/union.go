package framework

import (
	"encoding/json"
	"fmt"

	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/onsi/ginkgo/v2"
)

// OutsideUnion is a tool.exec or tool.wait answer outside the
// completed/waiting/failed result union: UnionOwner's fault (CM-EXEC-05),
// whoever sent the call. DecodeResult returns it.
type OutsideUnion struct {
	// Method is tool.exec or tool.wait; Raw the answer's exact bytes.
	Method string
	Raw    json.RawMessage
	// Why is what is wrong with it: not an object of the union's shape,
	// or a status outside it.
	Why string
}

func (e *OutsideUnion) Error() string {
	return fmt.Sprintf("%s returned %s: %s", e.Method, e.Why, cutRaw(e.Raw))
}

// DecodeResult decodes the answer raw to method (tool.exec, tool.wait) as
// a member of the result union (CM-EXEC-05): every place the harness reads
// an exec/wait result goes through it, so that a malformed one is charged
// to UnionOwner (blocked, for any other requirement) and never to the
// requirement of the spec or corpus case that sent the call. The error is
// an *OutsideUnion.
func DecodeResult(method string, raw json.RawMessage) (result.Result, error) {
	var res result.Result
	if err := json.Unmarshal(raw, &res); err != nil {
		return res, &OutsideUnion{Method: method, Raw: raw, Why: "a result that is not a result object of the completed/waiting/failed union"}
	}
	switch res.Status {
	case result.StatusCompleted, result.StatusWaiting, result.StatusFailed:
		return res, nil
	}
	return res, &OutsideUnion{Method: method, Raw: raw, Why: "an unknown status, outside the completed/waiting/failed union"}
}

// chargeUnion stops the running spec on err from DecodeResult: a failure
// for a spec of UnionOwner, blocked by UnionOwner for any other.
func chargeUnion(err error) {
	if currentRequirement() == UnionOwner {
		ginkgo.Fail(err.Error(), 2)
	}
	blocked(UnionOwner, err.Error(), 2)
}

// cutRaw keeps messages readable when a target answers megabytes.
func cutRaw(raw json.RawMessage) string {
	const max = 4000
	if len(raw) > max {
		return fmt.Sprintf("%s… (%d bytes)", raw[:max], len(raw))
	}
	return string(raw)
}
