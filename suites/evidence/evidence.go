// Package evidence holds the typed evidence the conformance suites attach to
// a spec's Ginkgo report and the readers of reports decode: the names of the
// report entries, their value types and the label prefixes. The framework
// writes these values with ginkgo.AddReportEntry; tools/report reads them
// back with [Decode] (Ginkgo's entry.Value.AsJSON), never by parsing text.
// Each value type also has a String method, which is what Ginkgo prints
// for people (go test output, junit.xml).
//
// It imports nothing of the harness, so both sides can use it.
package evidence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

// Report entry names.
const (
	// TranscriptPrefix starts the name of the entry holding one run's
	// [Transcript] ("transcript <runId>"), attached when a spec fails.
	TranscriptPrefix = "transcript "
	// FailureEntry holds a [Failure]: the result and guest code a failing
	// spec's message names.
	FailureEntry = "failure"
	// HarnessErrorEntry marks a spec during which the target connection was
	// lost or could not be re-established; its value (a string) is the
	// reason. Reports count such a failing spec as an error, not a failure
	// of its requirement.
	HarnessErrorEntry = "harness-error"
	// SelfReportedEntry marks a spec part of whose verdict trusts what the
	// target reports about itself (runtime.stats); its value (a string) says
	// what was trusted. A pass stays a pass, shown as "pass (self-reported)".
	SelfReportedEntry = "self-reported"
	// BlockedEntry marks a spec stopped because a precondition owned by
	// another requirement failed (framework.Blocked, framework.Precondition);
	// its value is a [Blocked]. The spec itself is skipped (Ginkgo state
	// skipped, message [Blocked.String]); reports read this entry, never
	// the message, and show the verdict "blocked by <req>".
	BlockedEntry = "blocked"
)

// BlockedPrefix starts the message of a blocked spec ("blocked by CM-X: …").
const BlockedPrefix = "blocked by "

// Blocked is why a spec was not judged: the requirement By, which owns a
// precondition the spec relies on (the guest API, the result shape, a probe
// cell completing), did not hold. One fault is charged to one requirement:
// By's own specs judge it; this spec's requirement is neither passed nor
// failed.
type Blocked struct {
	// By is the requirement ID that owns the failed precondition.
	By string `json:"by"`
	// Message is what failed (a Gomega failure message, or the spec's text).
	Message string `json:"message"`
}

// String is the blocked spec's message: "blocked by CM-X: message".
func (b Blocked) String() string { return BlockedPrefix + b.By + ": " + b.Message }

// Label prefixes of a spec (framework.It derives them from
// spec/requirements.yaml; Describe adds the suite).
const (
	LabelRequirement = "req:"
	LabelFeature     = "feature:"
	LabelLevel       = "level:"
	LabelArea        = "area:"
	LabelSuite       = "suite:"
)

// Transcript is every request and response of one run, in order, plus the
// nested tool.invoke calls the harness answered and those it refused.
type Transcript struct {
	Run       string     `json:"run"`
	Exchanges []Exchange `json:"exchanges"`
	// Invocations are the nested tool.invoke calls the harness answered.
	Invocations []Invocation `json:"invocations,omitempty"`
	// Refused are the tool.invoke calls naming the run that the harness
	// refused as forged, each described for people.
	Refused []string `json:"refused,omitempty"`
}

// Invocation is one nested tool.invoke call the target made.
type Invocation struct {
	Tool             string `json:"tool"`
	ToolCallID       string `json:"toolCallId"`
	ParentToolCallID string `json:"parentToolCallId,omitempty"`
	// Params are the tool.invoke params as received (JSON text).
	Params string `json:"params"`
}

// Exchange is one request the harness sent and the target's answer.
type Exchange struct {
	Method string `json:"method"`
	// Request is the params as sent and Response the result as received,
	// each as JSON text (the target's own bytes for a response; empty when
	// Error is set). A part over MaxPart bytes has its long strings
	// shortened, or is cut (then no longer JSON), and Cut is set.
	Request  string `json:"request,omitempty"`
	Response string `json:"response,omitempty"`
	// Error is the protocol-level error of the call, if any.
	Error string `json:"error,omitempty"`
	Cut   bool   `json:"cut,omitempty"`
}

// MaxPart bounds each request and each response kept in a transcript, in
// bytes (report.html cuts at the same size).
const MaxPart = 64 << 10

// maxString is what a string inside an over-long part is shortened to.
const maxString = 4 << 10

// NewExchange records one call: req and resp as JSON (a json.RawMessage is
// kept as is); err, if non-nil, replaces the response.
func NewExchange(method string, req, resp any, err error) Exchange {
	e := Exchange{Method: method}
	e.Request, e.Cut = Bounded(req)
	if err != nil {
		e.Error = err.Error()
		return e
	}
	var cut bool
	e.Response, cut = Bounded(resp)
	e.Cut = e.Cut || cut
	return e
}

// Bounded returns v as JSON text of at most about MaxPart bytes, and
// whether it was shortened: first its long strings are cut (so it stays
// JSON), then, if that is not enough, the text itself.
func Bounded(v any) (string, bool) {
	b := marshal(v)
	if len(b) <= MaxPart {
		return string(b), false
	}
	// Keep it JSON if shortening its long strings is enough.
	var x any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(&x) == nil {
		if s := marshal(shorten(x)); len(s) <= MaxPart {
			return string(s), true
		}
	}
	return string(b[:MaxPart]) + "…(truncated)", true
}

// JSON encodes v as people read it (no HTML escapes), compact.
func JSON(v any) string { return string(marshal(v)) }

// marshal encodes v without HTML escapes; raw JSON stays byte for byte.
func marshal(v any) []byte {
	switch r := v.(type) {
	case json.RawMessage:
		return r
	case nil:
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(fmt.Sprintf("%q", fmt.Sprintf("(not JSON: %v)", err)))
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// shorten cuts every string in a decoded JSON value to maxString bytes.
func shorten(x any) any {
	switch v := x.(type) {
	case string:
		if len(v) > maxString {
			return v[:maxString] + fmt.Sprintf("…(cut: %d of %d bytes)", maxString, len(v))
		}
	case []any:
		for i := range v {
			v[i] = shorten(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = shorten(v[k])
		}
	}
	return x
}

// Text returns a part as people read it: indented JSON, or the text as
// kept when it is not JSON (cut).
func Text(p string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(p), "", "  "); err != nil {
		return p
	}
	return b.String()
}

// String renders the transcript for people: "→ method", the request,
// "← response" (or "← error: …"), then one "↺ tool.invoke {…}" line per
// answered nested call and one "⊘ …" line per refused one.
func (t Transcript) String() string {
	var b strings.Builder
	for i, e := range t.Exchanges {
		if i > 0 {
			b.WriteString("\n")
		}
		resp := "error: " + e.Error
		if e.Error == "" {
			resp = indent(Text(e.Response))
		}
		fmt.Fprintf(&b, "→ %s\n  %s\n← %s", e.Method, indent(Text(e.Request)), resp)
	}
	for _, c := range t.Invocations {
		b.WriteString("\n↺ tool.invoke " + c.Params)
	}
	for _, x := range t.Refused {
		b.WriteString("\n⊘ " + x)
	}
	return b.String()
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }

// Failure is what a failing spec's message names: the result the target
// returned and the guest code that produced it.
type Failure struct {
	// Message is the failure message without the result and guest code
	// (which the full message ends with, for people).
	Message string `json:"message"`
	// Result is the exec/wait result as the target sent it (JSON text,
	// Bounded).
	Result string `json:"result,omitempty"`
	// GuestCode is the code of the exec that produced Result, if known.
	GuestCode string `json:"guestCode,omitempty"`
}

// String renders the failure's evidence for people.
func (f Failure) String() string {
	s := "result " + f.Result
	if f.GuestCode != "" {
		s += "\nguest code:\n" + f.GuestCode
	}
	return s
}

// Decode reads a typed entry value back into out: from the entry's AsJSON
// (a report read from report.json) or, in the process that ran the specs,
// from the value itself.
func Decode(v types.ReportEntryValue, out any) error {
	js := v.AsJSON
	if js == "" {
		b, err := json.Marshal(v.GetRawValue())
		if err != nil {
			return err
		}
		js = string(b)
	}
	return json.Unmarshal([]byte(js), out)
}
