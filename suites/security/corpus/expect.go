package corpus

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/google/go-cmp/cmp"
)

// Outcome is one acceptable final result of a case (after every waiting
// result was followed with wait). Its fields are predicates that must all
// hold; at least one is set:
//
//	status: completed | failed       the final status
//	code: <error code>               failed with this code (one of the 16
//	                                 of CM-EXEC-05; implies status failed)
//	value: '<JSON text>'             completed, and the value equals this
//	                                 JSON after decoding both (so key order
//	                                 and number spelling do not matter);
//	                                 'null' is JSON null
//	valueMatches: <RE2 regexp>       completed, and the value's JSON text
//	                                 (as the target sent it) matches
//	errorMatches: <RE2 regexp>       failed, and the error text matches
//	truncatedWithin: <bytes>         completed, marked as truncated as
//	                                 protocol.md §12.9 defines it (a
//	                                 top-level "truncated": true member, or
//	                                 a string naming the truncation, not
//	                                 negated; the case's code may not write
//	                                 such a word, markerFree) and its value
//	                                 and output are at most this many bytes
//	                                 by content (result.TruncatedWithin:
//	                                 001's byte fitting, CM-LIM-03 under v2)
type Outcome struct {
	Status          string `yaml:"status"`
	Code            string `yaml:"code"`
	Value           string `yaml:"value"`
	ValueMatches    string `yaml:"valueMatches"`
	ErrorMatches    string `yaml:"errorMatches"`
	TruncatedWithin int64  `yaml:"truncatedWithin"`

	value       any
	hasValue    bool
	valueRE     *regexp.Regexp
	errorRE     *regexp.Regexp
	finalStatus string
}

// Expect is a case's expected outcome: either one Outcome given inline, or
// anyOf, a list of Outcomes of which one must hold (where the contract
// allows several: a clean guest RangeError or a failed result, say).
type Expect struct {
	Outcome `yaml:",inline"`
	AnyOf   []Outcome `yaml:"anyOf"`
}

func (e *Expect) compile() error {
	inline := !e.Outcome.empty()
	switch {
	case inline && len(e.AnyOf) > 0:
		return fmt.Errorf("expect: gives both an inline outcome and anyOf; use one")
	case !inline && len(e.AnyOf) == 0:
		return fmt.Errorf("expect: sets none of status, code, value, valueMatches, errorMatches, truncatedWithin, anyOf")
	case len(e.AnyOf) == 1:
		return fmt.Errorf("expect: anyOf with one alternative; write it inline")
	case inline:
		return e.Outcome.compile()
	}
	for i := range e.AnyOf {
		if e.AnyOf[i].empty() {
			return fmt.Errorf("expect: anyOf[%d] is empty", i)
		}
		if err := e.AnyOf[i].compile(); err != nil {
			return fmt.Errorf("anyOf[%d]: %w", i, err)
		}
	}
	return nil
}

func (o Outcome) empty() bool {
	return o.Status == "" && o.Code == "" && o.Value == "" && o.ValueMatches == "" && o.ErrorMatches == "" && o.TruncatedWithin == 0
}

func (o *Outcome) compile() error {
	wantsCompleted := o.Value != "" || o.ValueMatches != "" || o.TruncatedWithin != 0
	wantsFailed := o.Code != "" || o.ErrorMatches != ""
	switch {
	case o.Status != "" && !contains(validStatus, o.Status):
		return fmt.Errorf("status %q is not one of %v", o.Status, validStatus)
	case wantsCompleted && wantsFailed:
		return fmt.Errorf("value/valueMatches/truncatedWithin need a completed result and code/errorMatches a failed one; one outcome cannot have both")
	case wantsCompleted && o.Status == string(result.StatusFailed), wantsFailed && o.Status == string(result.StatusCompleted):
		return fmt.Errorf("status %s contradicts the other predicates", o.Status)
	case o.TruncatedWithin < 0:
		return fmt.Errorf("truncatedWithin %d is negative", o.TruncatedWithin)
	case o.Code != "" && !result.ErrorCode(o.Code).Valid():
		return fmt.Errorf("code %q is not one of the 16 codes of CM-EXEC-05", o.Code)
	}
	o.finalStatus = o.Status
	if wantsCompleted {
		o.finalStatus = string(result.StatusCompleted)
	} else if wantsFailed {
		o.finalStatus = string(result.StatusFailed)
	}
	if o.Value != "" {
		if err := json.Unmarshal([]byte(o.Value), &o.value); err != nil {
			return fmt.Errorf("value %q is not JSON text (quote it in YAML: value: '{\"a\": 1}'): %v", o.Value, err)
		}
		o.hasValue = true
	}
	var err error
	if o.ValueMatches != "" {
		if o.valueRE, err = regexp.Compile(o.ValueMatches); err != nil {
			return fmt.Errorf("valueMatches: %v", err)
		}
	}
	if o.ErrorMatches != "" {
		if o.errorRE, err = regexp.Compile(o.ErrorMatches); err != nil {
			return fmt.Errorf("errorMatches: %v", err)
		}
	}
	return nil
}

// String is the outcome as the front matter spells it.
func (o Outcome) String() string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, fmt.Sprintf("%s: %s", k, v))
		}
	}
	add("status", o.Status)
	add("code", o.Code)
	add("value", o.Value)
	add("valueMatches", o.ValueMatches)
	add("errorMatches", o.ErrorMatches)
	if o.TruncatedWithin != 0 {
		add("truncatedWithin", fmt.Sprint(o.TruncatedWithin))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// String is the expectation as the front matter spells it.
func (e Expect) String() string {
	if len(e.AnyOf) == 0 {
		return e.Outcome.String()
	}
	alts := make([]string, len(e.AnyOf))
	for i, o := range e.AnyOf {
		alts[i] = o.String()
	}
	return "anyOf " + strings.Join(alts, " | ")
}

// Check returns "" when res meets e, else why not: for each alternative the
// predicate that failed, with a go-cmp diff (-want +got) for a value.
func (e Expect) Check(res result.Result) string {
	if len(e.AnyOf) == 0 {
		return e.Outcome.check(res)
	}
	var why []string
	for i, o := range e.AnyOf {
		w := o.check(res)
		if w == "" {
			return ""
		}
		why = append(why, fmt.Sprintf("anyOf[%d] %s: %s", i, o, w))
	}
	return "no alternative holds:\n" + strings.Join(why, "\n")
}

func (o Outcome) check(res result.Result) string {
	if o.finalStatus != "" && string(res.Status) != o.finalStatus {
		return fmt.Sprintf("status %s (code %q, error %q), want %s", res.Status, res.Code, cut(res.Error), o.finalStatus)
	}
	if o.Code != "" && string(res.Code) != o.Code {
		return fmt.Sprintf("code %q (error %q), want %q", res.Code, cut(res.Error), o.Code)
	}
	if o.errorRE != nil && !o.errorRE.MatchString(res.Error) {
		return fmt.Sprintf("error %q does not match %s", cut(res.Error), o.ErrorMatches)
	}
	if o.hasValue {
		var got any
		if err := json.Unmarshal(res.Value, &got); err != nil {
			return fmt.Sprintf("value %s is not JSON: %v", cut(string(res.Value)), err)
		}
		if d := cmp.Diff(o.value, got); d != "" {
			return fmt.Sprintf("value differs (-want +got):\n%s", cut(d))
		}
	}
	if o.valueRE != nil && !o.valueRE.Match(res.Value) {
		return fmt.Sprintf("value %s does not match %s", cut(string(res.Value)), o.ValueMatches)
	}
	if o.TruncatedWithin != 0 && !result.TruncatedWithin(res, o.TruncatedWithin, nil) {
		return fmt.Sprintf("value and output (%d bytes of value) are not a truncated result of at most %d bytes marked as truncated (a top-level \"truncated\": true member or a string naming the truncation, not negated, protocol.md §12.9)", len(res.Value), o.TruncatedWithin)
	}
	return ""
}

// cut keeps messages readable when a hostile cell returns megabytes.
func cut(s string) string {
	if len(s) > 2000 {
		return s[:2000] + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return s
}

// CheckRaw is Check on the exact bytes of a final exec/wait result, plus
// one rule every case shares (CM-EXEC-21): the result carries no lone
// UTF-16 surrogate escape (\ud800 without its pair), which a JSON decoder
// would silently turn into U+FFFD.
func (e Expect) CheckRaw(raw json.RawMessage) string {
	var res result.Result
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Sprintf("the result is not a result object: %v: %s", err, cut(string(raw)))
	}
	why := e.Check(res)
	if i := result.FirstLoneSurrogate(raw); i >= 0 {
		if why != "" {
			why += "\n"
		}
		why += fmt.Sprintf("CM-EXEC-21: the result carries a lone surrogate escape %s at byte %d instead of U+FFFD", raw[i:i+6], i)
	}
	return why
}
