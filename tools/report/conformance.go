package report

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/goccy/go-yaml"
)

// SpecVerdict is one spec's verdict with the baseline applied.
type SpecVerdict struct {
	SpecResult
	Verdict Verdict
	// Expected is the baseline entry's reason when the spec or its
	// requirement is listed ("listed" without a reason), empty otherwise.
	Expected string
	// Flaky is true when the spec's own entry says its outcome varies
	// (flaky: true): then a pass stays a pass instead of an xpass.
	Flaky bool
	// BaselineError says why the spec's own baseline entry is wrong: it
	// lists a spec whose verdict is blocked or skip, which cannot be an
	// expected failure (Evaluation.BaselineErrors).
	BaselineError string
}

// Verdict is a spec's verdict with the baseline b applied (b may be nil): a
// failing spec listed by name or through its requirement is an xfail; a
// passing spec listed by name is an xpass, unless its entry is flaky: true
// (then it stays a pass, marked Flaky). Skips and errors are unchanged.
func (b *Baseline) Verdict(s SpecResult) SpecVerdict {
	out := SpecVerdict{SpecResult: s, Verdict: s.Outcome()}
	es, bySpec := b.spec(s)
	er, byReq := b.requirement(s.Requirement)
	switch {
	case bySpec:
		out.Expected, out.Flaky = orListed(es.Reason), es.Flaky
	case byReq:
		out.Expected = orListed(er.Reason)
	}
	switch {
	case out.Verdict == Fail && (bySpec || byReq):
		out.Verdict = XFail
	case out.Verdict == Pass && bySpec && !es.Flaky:
		out.Verdict = XPass
	case (out.Verdict == Blocked || out.Verdict == Skip) && bySpec:
		out.BaselineError = unexpectable(out)
	}
	return out
}

// unexpectable says why a blocked or skipped spec cannot be listed in a
// baseline: an expected failure is a failure the target was judged on.
func unexpectable(s SpecVerdict) string {
	if s.Verdict == Blocked {
		return fmt.Sprintf("its verdict is blocked by %s: a blocked verdict cannot be an expected failure (the fault is %s's; remove the entry)", s.BlockedBy, s.BlockedBy)
	}
	return "its verdict is skip (" + Short(s.Message) + "): a skipped or not-drivable spec cannot be an expected failure (remove the entry)"
}

func orListed(reason string) string {
	if reason == "" {
		return "listed"
	}
	return reason
}

// Evaluation is a run's verdicts with a baseline applied.
type Evaluation struct {
	Specs        []SpecVerdict      // in run order
	Requirements map[string]Verdict // requirement ID → verdict
	// Unused lists the baseline entries that matched no spec of the run:
	// stale, or not selected by the run's filters.
	Unused []string
	// Flaky lists each spec of the run listed flaky: true, with the
	// verdict it got this time (pass, xfail, or skip/error).
	Flaky []FlakyOutcome
	// BlockedBy lists, sorted, the requirements that blocked the specs of
	// each requirement whose verdict is blocked.
	BlockedBy map[string][]string
	// BaselineErrors are baseline entries that match a spec or requirement
	// whose verdict is blocked or skip (not drivable included): such an
	// entry is stale and fails the run, it is never an xfail.
	BaselineErrors []string
	// Profile is the profile the run judged ("" when unknown): a skipped
	// core requirement that profile does not judge
	// (spec.Requirement.AppliesTo) does not make the run partial.
	Profile string
}

// FlakyOutcome is one flaky baseline entry's outcome in a run.
type FlakyOutcome struct {
	Name    string  `yaml:"name"`
	Verdict Verdict `yaml:"verdict"`
	Reason  string  `yaml:"reason"`
}

// Evaluate applies baseline b (nil: none) to the specs of a run. A
// requirement gets the worst verdict of its specs (pass < skip < xfail <
// xpass < error < fail); a listed requirement whose specs all passed is an
// xpass, and so is each of those specs (each passes although listed, so
// junit.xml shows the stale entry as failing, as the run is). Specs without
// a requirement are ignored.
func Evaluate(specs []SpecResult, b *Baseline) Evaluation {
	ev := Evaluation{Requirements: map[string]Verdict{}, BlockedBy: map[string][]string{}}
	usedReq, usedSpec := map[string]bool{}, map[string]bool{}
	for _, s := range specs {
		if s.Requirement == "" {
			continue
		}
		sv := b.Verdict(s)
		ev.Specs = append(ev.Specs, sv)
		if sv.Flaky {
			ev.Flaky = append(ev.Flaky, FlakyOutcome{Name: s.Text, Verdict: sv.Verdict, Reason: sv.Expected})
		}
		if rank(sv.Verdict) > rank(ev.Requirements[s.Requirement]) {
			ev.Requirements[s.Requirement] = sv.Verdict
		}
		usedReq[s.Requirement] = true
		usedSpec[s.Text], usedSpec[s.FullText] = true, true
		if sv.BaselineError != "" {
			ev.BaselineErrors = append(ev.BaselineErrors, fmt.Sprintf("expected-failures entry %q: %s", s.Text, sv.BaselineError))
		}
	}
	for _, s := range ev.Specs {
		if s.Verdict == Blocked && ev.Requirements[s.Requirement] == Blocked && !slices.Contains(ev.BlockedBy[s.Requirement], s.BlockedBy) {
			ev.BlockedBy[s.Requirement] = append(ev.BlockedBy[s.Requirement], s.BlockedBy)
			sort.Strings(ev.BlockedBy[s.Requirement])
		}
	}
	var listedIDs []string
	for id := range ev.Requirements {
		listedIDs = append(listedIDs, id)
	}
	sort.Strings(listedIDs)
	for _, id := range listedIDs {
		if _, listed := b.requirement(id); !listed {
			continue
		}
		switch ev.Requirements[id] {
		case Blocked:
			ev.BaselineErrors = append(ev.BaselineErrors, fmt.Sprintf("expected-failures entry %s: its verdict is blocked by %s: a blocked verdict cannot be an expected failure (remove the entry)", id, strings.Join(ev.BlockedBy[id], " ")))
		case Skip:
			ev.BaselineErrors = append(ev.BaselineErrors, fmt.Sprintf("expected-failures entry %s: its verdict is skip: a skipped or not-drivable requirement cannot be an expected failure (remove the entry)", id))
		}
	}
	for id, v := range ev.Requirements {
		if e, listed := b.requirement(id); listed && v == Pass {
			ev.Requirements[id] = XPass
			for i := range ev.Specs {
				if sv := &ev.Specs[i]; sv.Requirement == id && sv.Verdict == Pass {
					sv.Verdict, sv.Expected = XPass, orListed(e.Reason)
				}
			}
		}
	}
	if b != nil {
		for _, r := range b.Requirements {
			if !usedReq[r.ID] {
				ev.Unused = append(ev.Unused, r.ID)
			}
		}
		for _, s := range b.Specs {
			if !usedSpec[s.Name] {
				ev.Unused = append(ev.Unused, s.Name)
			}
		}
	}
	return ev
}

// Overall is the verdict of a whole run.
type Overall string

// Overall verdicts.
const (
	Success Overall = "success"
	Partial Overall = "partial" // nothing failed, but a core requirement was skipped or a baseline was given
	Failure Overall = "failure"
)

// Judge decides the overall verdict from requirement verdicts and says why
// it is not success. A blocked requirement alone makes the run at most
// partial, never success: the blocking requirement's own failure (when it
// ran) already fails the run, and a run whose every requirement is skipped
// or blocked judged nothing and fails. It judges the requirements that ran, so a filtered run
// (--req, --label-filter) is judged on its selection only (Selection records
// it): failure if no spec ran or every requirement that ran was skipped
// (nothing was tested), on a suite error, or if any requirement is fail,
// xpass or error; otherwise partial if a requirement of
// feature core was skipped or a baseline was given (a run with a baseline is
// at best partial); otherwise success.
func Judge(v map[string]Verdict, suiteErrors []string, baseline bool) (Overall, []string) {
	return JudgeIn("", v, suiteErrors, baseline)
}

// JudgeIn is Judge for a run that judged profile: a skipped core
// requirement the profile does not judge (spec.Requirement.AppliesTo, e.g.
// CM-CFG-06 under v2) is outside it, not a core skip.
func JudgeIn(profile string, v map[string]Verdict, suiteErrors []string, baseline bool) (Overall, []string) {
	var reasons []string
	by := map[Verdict][]string{}
	for id, x := range v {
		by[x] = append(by[x], id)
	}
	for _, ids := range by {
		sort.Strings(ids)
	}
	if len(v) == 0 {
		reasons = append(reasons, "no spec ran")
	} else if len(by[Skip]) == len(v) {
		reasons = append(reasons, "nothing tested: every selected requirement was skipped: "+strings.Join(by[Skip], " "))
	} else if len(by[Skip])+len(by[Blocked]) == len(v) {
		reasons = append(reasons, "nothing judged: every selected requirement was skipped or blocked: "+strings.Join(append(slices.Clone(by[Blocked]), by[Skip]...), " "))
	}
	for _, e := range suiteErrors {
		reasons = append(reasons, "suite error: "+e)
	}
	for _, x := range []struct {
		v    Verdict
		what string
	}{{Fail, "failing"}, {Error, "errors (harness fault or target crash)"}, {XPass, "stale expected failures (xpass: they pass now)"}} {
		if ids := by[x.v]; len(ids) > 0 {
			reasons = append(reasons, x.what+": "+strings.Join(ids, " "))
		}
	}
	if len(reasons) > 0 {
		return Failure, reasons
	}
	var core []string
	for _, id := range by[Skip] {
		if r, ok := spec.Lookup(id); ok && r.Feature == spec.FeatureCore && appliesTo(id, profile) {
			core = append(core, id)
		}
	}
	if len(core) > 0 {
		reasons = append(reasons, "core requirements skipped: "+strings.Join(core, " "))
	}
	if ids := by[Blocked]; len(ids) > 0 {
		reasons = append(reasons, "blocked (a precondition owned by another requirement failed; not judged): "+strings.Join(ids, " "))
	}
	if baseline {
		reasons = append(reasons, "run with an expected-failures baseline")
	}
	if len(reasons) > 0 {
		return Partial, reasons
	}
	return Success, nil
}

// Totals counts requirements per verdict.
type Totals struct {
	Pass  int `yaml:"pass"`
	Fail  int `yaml:"fail"`
	Skip  int `yaml:"skip"`
	XFail int `yaml:"xfail"`
	XPass int `yaml:"xpass"`
	Error int `yaml:"error"`
	// Blocked counts the requirements not judged because a precondition
	// owned by another requirement failed (verdict blocked).
	Blocked int `yaml:"blocked"`
	// NotDrivable counts the skipped requirements that the target declared
	// it cannot drive (a subset of Skip; see NotDrivable).
	NotDrivable int `yaml:"notDrivable,omitempty"`
}

// NotDrivable lists, sorted, the skipped requirements whose specs were
// skipped because the target cannot drive them (protocol.NotDrivablePrefix):
// an adapter's admission, which keeps the overall verdict from success.
func NotDrivable(ev Evaluation) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ev.Specs {
		if ev.Requirements[s.Requirement] == Skip && s.Verdict == Skip && strings.HasPrefix(s.Message, protocol.NotDrivablePrefix) && !seen[s.Requirement] {
			seen[s.Requirement] = true
			out = append(out, s.Requirement)
		}
	}
	sort.Strings(out)
	return out
}

// Count tallies requirement verdicts.
func Count(v map[string]Verdict) Totals {
	var t Totals
	for _, x := range v {
		switch x {
		case Pass:
			t.Pass++
		case Fail:
			t.Fail++
		case Skip:
			t.Skip++
		case XFail:
			t.XFail++
		case XPass:
			t.XPass++
		case Error:
			t.Error++
		case Blocked:
			t.Blocked++
		}
	}
	return t
}

// Conformance is conformance-report.yaml, the machine-readable verdict of a
// run:
//
//	implementation: {name, version}     # from the target's initialize
//	harness: {name, version}
//	target: builtin
//	catalogue:                          # the requirement catalogue the run was judged against
//	  version: 2                        # requirements.yaml version (spec/CHANGES.md)
//	  basis: {seed: {pass, …}, …}       # requirements per basis and verdict (a row with two bases counts in both)
//	profile:                            # the contract profile judged (protocol.md §9)
//	  name: v2                          # --profile, else what the target declared, else v1
//	  generation: 2
//	  page: "001"
//	  openclaw: 2026.8 to 2026.9.6
//	  declared: v2                      # what initialize declared, if anything
//	  requested: v2                     # --profile, if given
//	features:
//	  effective: [core, …]              # what specs were gated on
//	  source: declared | command line
//	  declared: […]                     # what initialize declared
//	  requested: […]                    # --features, if given
//	  exempt: […]                       # --exempt-features, if given
//	  required: {missing, exempted, notDrivable}   # required by the profile but lacking (RequiredFeatures)
//	selection:                          # --req, --label-filter and how much of the catalogue ran; see Selection
//	  req: […]
//	  labelFilter: "…"
//	  complete: false                   # every spec of the build was selected
//	  requirements: {catalogue, withSpecs, selected, ran}
//	  specs: {inBuild, selected, ran}
//	  notRun: {noSpec, excluded, filteredOut, notReached}
//	expectedFailures: {file, unused, flaky, errors}    # with --expected-failures; unused: entries that matched no spec; flaky: [{name, verdict, reason}] of the flaky: true entries; errors: entries listing a blocked or skipped verdict (each fails the run)
//	overall: success | partial | failure   # judges the selected specs only (see Judge)
//	reasons: […]                        # why not success
//	totals: {pass, fail, skip, xfail, xpass, error, blocked, notDrivable}   # requirements per verdict; notDrivable ⊂ skip
//	suiteErrors: […]                    # failures outside specs (e.g. the target could not be connected)
//	suspectPreconditions: [{requirement, spec, blockedBy}]   # a spec blocked by a requirement that passed in this run (suspect.go)
//	requirements:                       # those with specs in the run, in requirements.yaml order
//	  - id: CM-LIM-03
//	    level: MUST
//	    feature: core
//	    basis: [seed]                   # what it rests on: seed, openclaw-source, hardening
//	    verdict: xfail                  # pass, fail, error, xfail, xpass, blocked, skip
//	    expected: "reason"              # when listed in the baseline
//	    blockedBy: [CM-EXEC-01]         # verdict blocked: the requirements whose preconditions failed
//	    selfReported: […]               # a pass that trusts what the target reports about itself (SelfReportedEntry)
//	    specs: [{name, verdict, message, blockedBy, selfReported}]   # message: the failure or skip reason, shortened ("blocked by CM-X: …" for blocked)
type Conformance struct {
	Implementation   Peer              `yaml:"implementation"`
	Harness          Peer              `yaml:"harness"`
	Target           string            `yaml:"target"`
	Catalogue        Catalogue         `yaml:"catalogue"`
	Profile          Profile           `yaml:"profile"`
	Features         Features          `yaml:"features"`
	Selection        Selection         `yaml:"selection"`
	ExpectedFailures *ExpectedFailures `yaml:"expectedFailures,omitempty"`
	Overall          Overall           `yaml:"overall"`
	Reasons          []string          `yaml:"reasons,omitempty"`
	Totals           Totals            `yaml:"totals"`
	SuiteErrors      []string          `yaml:"suiteErrors,omitempty"`
	// SuspectPreconditions: blocked specs whose blocker passed (suspect.go).
	SuspectPreconditions []SuspectPrecondition `yaml:"suspectPreconditions,omitempty"`
	Requirements         []RequirementLine     `yaml:"requirements"`
}

// Peer names an implementation or the harness.
type Peer struct {
	Name    string `yaml:"name" json:"name"`
	Version string `yaml:"version" json:"version"`
}

// Catalogue names the requirement catalogue a run was judged against.
type Catalogue struct {
	// Version is spec.Version(): which requirements.yaml the verdicts mean.
	Version int `yaml:"version"`
	// Basis counts the judged requirements per basis (spec.Bases) and
	// verdict; a requirement with two bases counts under both.
	Basis map[string]Totals `yaml:"basis,omitempty"`
}

// NewCatalogue describes the embedded catalogue and counts requirement
// verdicts v per basis.
func NewCatalogue(v map[string]Verdict) Catalogue {
	c := Catalogue{Version: spec.Version()}
	by := map[string]map[string]Verdict{}
	for id, x := range v {
		r, ok := spec.Lookup(id)
		if !ok {
			continue
		}
		for _, b := range r.Basis {
			if by[b] == nil {
				by[b] = map[string]Verdict{}
			}
			by[b][id] = x
		}
	}
	if len(by) > 0 {
		c.Basis = map[string]Totals{}
		for b, vs := range by {
			c.Basis[b] = Count(vs)
		}
	}
	return c
}

// Line is the catalogue for report.html, e.g. "version 2;
// requirements judged, by basis: seed 60 pass, 1 fail; hardening 4 pass".
func (c Catalogue) Line() string {
	s := fmt.Sprintf("version %d", c.Version)
	if b := c.BasisLine(); b != "" {
		s += "; requirements judged, by basis: " + b
	}
	return s
}

// BasisLine counts the judged requirements per basis and verdict, e.g.
// "seed 60 pass, 1 fail; hardening 4 pass"; empty when none was judged.
func (c Catalogue) BasisLine() string {
	var parts []string
	for _, b := range spec.Bases {
		t, ok := c.Basis[b]
		if !ok {
			continue
		}
		var n []string
		for _, x := range []struct {
			k int
			v Verdict
		}{{t.Pass, Pass}, {t.Fail, Fail}, {t.Error, Error}, {t.XFail, XFail}, {t.XPass, XPass}, {t.Blocked, Blocked}, {t.Skip, Skip}} {
			if x.k > 0 {
				n = append(n, fmt.Sprintf("%d %s", x.k, x.v))
			}
		}
		parts = append(parts, b+" "+strings.Join(n, ", "))
	}
	return strings.Join(parts, "; ")
}

// Features records the feature set a run used and where it came from.
type Features struct {
	Effective []string `yaml:"effective"`
	Source    string   `yaml:"source"`
	Declared  []string `yaml:"declared"`
	Requested []string `yaml:"requested,omitempty"`
	Exempt    []string `yaml:"exempt,omitempty"`
	// Required: what the judged profile requires that the run lacked
	// (required.go); absent when nothing.
	Required *RequiredFeatures `yaml:"required,omitempty"`
}

// ExpectedFailures records the baseline of a run.
type ExpectedFailures struct {
	File   string   `yaml:"file"`
	Unused []string `yaml:"unused,omitempty"`
	// Flaky: each spec listed flaky: true and its verdict in this run.
	Flaky []FlakyOutcome `yaml:"flaky,omitempty"`
	// Errors: entries that list a spec or requirement whose verdict is
	// blocked or skip (Evaluation.BaselineErrors); each fails the run.
	Errors []string `yaml:"errors,omitempty"`
}

// RequirementLine is one requirement's verdict and its specs.
type RequirementLine struct {
	ID       string   `yaml:"id"`
	Level    string   `yaml:"level"`
	Feature  string   `yaml:"feature"`
	Basis    []string `yaml:"basis,flow"`
	Verdict  Verdict  `yaml:"verdict"`
	Expected string   `yaml:"expected,omitempty"`
	// BlockedBy lists the requirements whose failed preconditions blocked
	// the specs of a blocked requirement ("blocked by CM-X").
	BlockedBy []string `yaml:"blockedBy,omitempty,flow"`
	// SelfReported lists what the passing specs of a passing requirement
	// trusted the target to report about itself: the pass is "pass
	// (self-reported)".
	SelfReported []string   `yaml:"selfReported,omitempty"`
	Specs        []SpecLine `yaml:"specs"`
}

// SpecLine is one spec's verdict.
type SpecLine struct {
	Name    string  `yaml:"name"`
	Verdict Verdict `yaml:"verdict"`
	Message string  `yaml:"message,omitempty"`
	// BlockedBy is the requirement whose failed precondition blocked the
	// spec (verdict blocked; message "blocked by CM-X: …").
	BlockedBy string `yaml:"blockedBy,omitempty"`
	// SelfReported is what a passing spec trusted the target to report
	// about itself.
	SelfReported string `yaml:"selfReported,omitempty"`
	// Flaky is the baseline's reason when the spec is listed flaky: true
	// (its outcome varies; a pass or a failure is accepted).
	Flaky string `yaml:"flaky,omitempty"`
}

// NewConformance fills the verdict part of a report (requirements, totals,
// overall and, with a baseline, expectedFailures.unused) from an evaluation;
// the caller sets the identity fields, the selection and
// expectedFailures.file.
func NewConformance(ev Evaluation, suiteErrors []string, b *Baseline) Conformance {
	c := Conformance{SuiteErrors: suiteErrors, Totals: Count(ev.Requirements), Catalogue: NewCatalogue(ev.Requirements), SuspectPreconditions: SuspectPreconditions(ev)}
	c.Overall, c.Reasons = JudgeIn(ev.Profile, ev.Requirements, suiteErrors, b != nil)
	if nd := NotDrivable(ev); len(nd) > 0 {
		c.Totals.NotDrivable = len(nd)
		c.Reasons = append(c.Reasons, "not drivable by the target: "+strings.Join(nd, " "))
		if c.Overall == Success {
			c.Overall = Partial
		}
	}
	if b != nil {
		c.ExpectedFailures = &ExpectedFailures{Unused: ev.Unused, Flaky: ev.Flaky, Errors: ev.BaselineErrors}
	}
	if len(ev.BaselineErrors) > 0 {
		c.Overall = Failure
		c.Reasons = append(c.Reasons, "expected-failures baseline errors (entries that list a blocked or skipped verdict): "+strings.Join(ev.BaselineErrors, "; "))
	}
	byReq := map[string][]SpecLine{}
	for _, s := range ev.Specs {
		msg := s.Message
		if s.HarnessError != "" {
			msg = s.HarnessError + " — " + msg
		}
		line := SpecLine{Name: s.Text, Verdict: s.Verdict}
		if s.Verdict == Blocked {
			line.BlockedBy = s.BlockedBy
		}
		if s.Flaky {
			line.Flaky = s.Expected
		}
		if s.Verdict == Pass || s.Verdict == XPass {
			msg = ""
			line.SelfReported = s.SelfReported
		}
		line.Message = Short(msg)
		byReq[s.Requirement] = append(byReq[s.Requirement], line)
	}
	for _, r := range spec.Requirements() {
		v, ok := ev.Requirements[r.ID]
		if !ok {
			continue
		}
		line := RequirementLine{ID: r.ID, Level: r.Level, Feature: r.Feature, Basis: r.Basis, Verdict: v, Specs: byReq[r.ID], BlockedBy: ev.BlockedBy[r.ID]}
		if e, ok := b.requirement(r.ID); ok {
			line.Expected = orListed(e.Reason)
		}
		if v == Pass {
			for _, s := range line.Specs {
				if s.SelfReported != "" {
					line.SelfReported = append(line.SelfReported, s.SelfReported)
				}
			}
		}
		c.Requirements = append(c.Requirements, line)
	}
	return c
}

// SelfReportedMarkdown lists, for summary.md, each requirement that passed
// only partly on what the target reports about itself, as "pass
// (self-reported)" with what was trusted; empty when there is none.
func (c Conformance) SelfReportedMarkdown() string {
	var b strings.Builder
	for _, r := range c.Requirements {
		if len(r.SelfReported) > 0 {
			fmt.Fprintf(&b, "- %s: pass (self-reported): %s\n", r.ID, strings.Join(r.SelfReported, "; "))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\nPasses that trust what the target reports about itself (runtime.stats), not behaviour seen from outside:\n" + b.String()
}

// BlockedMarkdown lists, for summary.md, each blocked requirement as
// "CM-A: blocked by CM-X" with the first blocked spec's message on one line
// (Short, MarkdownText: it quotes what the target sent); empty when there
// is none.
func (c Conformance) BlockedMarkdown() string {
	var b strings.Builder
	for _, r := range c.Requirements {
		if r.Verdict != Blocked {
			continue
		}
		msg := ""
		for _, s := range r.Specs {
			if s.Verdict == Blocked {
				msg = strings.TrimPrefix(s.Message, evidence.BlockedPrefix+s.BlockedBy+": ")
				break
			}
		}
		fmt.Fprintf(&b, "- %s: blocked by %s (%s)\n", r.ID, strings.Join(r.BlockedBy, " "), MarkdownText(Short(msg)))
	}
	if b.Len() == 0 {
		return ""
	}
	return "\nBlocked, not judged (a precondition owned by another requirement failed; that requirement's own specs judge the fault):\n" + b.String()
}

// YAML renders the report.
func (c Conformance) YAML() ([]byte, error) {
	b, err := yaml.MarshalWithOptions(c, yaml.UseLiteralStyleIfMultiline(true))
	if err != nil {
		return nil, err
	}
	return append([]byte("# conformance-report.yaml: the format is documented on report.Conformance (tools/report)\n"), b...), nil
}

// pointer matches the addresses Gomega prints (<*T | 0xc000123456>), which
// change from run to run.
var pointer = regexp.MustCompile(`0x[0-9a-f]{6,}`)

// Short collapses white space, replaces pointer addresses with "0x…" (so a
// report does not change from run to run) and cuts a message to about 300
// characters.
func Short(msg string) string { return Line(msg, 300) }

// Line is msg on one line: runs of white space become one space, pointers
// 0x…, and it is cut after max runes (with "…").
func Line(msg string, max int) string {
	msg = pointer.ReplaceAllString(strings.Join(strings.Fields(msg), " "), "0x…")
	if r := []rune(msg); len(r) > max {
		msg = string(r[:max]) + "…"
	}
	return msg
}

// FlakyLine says, for summary.md and the console, how each spec listed
// flaky: true in the baseline came out in this run ("" when none ran), so
// that a varying outcome is always on record.
func (c Conformance) FlakyLine() string {
	if c.ExpectedFailures == nil || len(c.ExpectedFailures.Flaky) == 0 {
		return ""
	}
	parts := make([]string, 0, len(c.ExpectedFailures.Flaky))
	for _, f := range c.ExpectedFailures.Flaky {
		parts = append(parts, fmt.Sprintf("%s: %s", f.Name, f.Verdict))
	}
	return "flaky expected failures (outcome known to vary; pass and fail both accepted), this run: " + strings.Join(parts, "; ")
}
