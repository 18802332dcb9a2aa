package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/onsi/ginkgo/v2/types"
)

// RunMetadataFile is the file of a results directory that holds the run's
// Facts (JSON), written with the reports so that Rejudge can render them
// again against another baseline.
const RunMetadataFile = "run-metadata.json"

// ReportJSONFile is Ginkgo's JSON report of the run (a one-element array of
// types.Report, cleaned by report.SanitiseReport), as Outcome.Write writes it.
const ReportJSONFile = "report.json"

// FactsFormat is the version of the run-metadata.json layout; LoadFacts
// refuses any other.
const FactsFormat = 1

// Facts is everything a finished run's reports are rendered from besides
// Ginkgo's report and the baseline: what the run was asked (target,
// features, profile, selection), what the target declared in initialize
// (already passed through report.Clean), what the harness concluded from it
// (effective features and their source, the judged profile, the required
// features the run lacks), the build's specs (report.Inventory) and how the
// run was cut short. Run.Facts reads it from the finished run;
// run-metadata.json (RunMetadataFile) keeps it for Rejudge.
type Facts struct {
	Format int `json:"format"` // FactsFormat
	// Harness is the harness that ran the specs; CatalogueVersion is the
	// spec.Version of its requirements catalogue.
	Harness          report.Peer `json:"harness"`
	CatalogueVersion int         `json:"catalogueVersion"`
	// Target, Features, ExemptFeatures, Profile, Requirements and
	// LabelFilter are the run's Config fields of those names.
	Target         string   `json:"target"`
	Features       []string `json:"features,omitempty"`
	ExemptFeatures []string `json:"exemptFeatures,omitempty"`
	Profile        string   `json:"profile,omitempty"`
	Requirements   []string `json:"requirements,omitempty"`
	LabelFilter    string   `json:"labelFilter,omitempty"`
	// Built is every spec of the build and whether the run selected it.
	Built []report.BuiltSpec `json:"built"`
	// Implementation and Declared are the target's initialize answer
	// (name, version, declared features); DeclaredProfile its profile.
	Implementation  report.Peer `json:"implementation"`
	Declared        []string    `json:"declared,omitempty"`
	DeclaredProfile string      `json:"declaredProfile,omitempty"`
	// Effective is the run's feature set (EffectiveFeatures), FeatureSource
	// where it came from ("declared" or "command line"), Judged the profile
	// the run judged (framework.Profile) and Required what that profile
	// requires that the run lacks (RequiredFeatures).
	Effective     []string                `json:"effective"`
	FeatureSource string                  `json:"featureSource"`
	Judged        string                  `json:"judged"`
	Required      report.RequiredFeatures `json:"required"`
	// Interrupted is the signal that stopped the run ("SIGINT",
	// "SIGTERM"; "" when none) and FailFast whether it ran with
	// --fail-fast: set by the CLI, which judges both (its runControl).
	Interrupted string `json:"interrupted,omitempty"`
	FailFast    bool   `json:"failFast,omitempty"`
	// ReportBudget is Config.ReportBudget (0: report.DefaultReportBudget).
	ReportBudget int `json:"reportBudget,omitempty"`
}

// Errors of LoadFacts and LoadReport, each wrapped with the path.
var (
	// ErrNoRunMetadata: the results directory has no run-metadata.json
	// (written by a harness from before rejudge, or not a results
	// directory); only a new run can give its reports.
	ErrNoRunMetadata = errors.New("no run metadata")
	// ErrNoReportJSON: the results directory has no report.json.
	ErrNoReportJSON = errors.New("no Ginkgo report")
	// ErrBadResults: report.json or run-metadata.json does not parse, is of
	// another format, or comes from another requirements catalogue.
	ErrBadResults = errors.New("unusable results")
)

// Facts returns the facts of the run as they stand after RunSpecs (or in
// ReportAfterSuite): Run.Config and Built, and what the framework recorded
// of the target.
func (run Run) Facts() Facts {
	c := run.Config
	name, version, declared := framework.Implementation()
	declared = slices.Clone(declared) // the framework's own copy stays as the target sent it
	for i, f := range declared {
		declared[i] = report.Clean(f)
	}
	req := RequiredFeatures()
	return Facts{
		Format:           FactsFormat,
		Harness:          report.Peer{Name: framework.HarnessName, Version: framework.HarnessVersion},
		CatalogueVersion: spec.Version(),
		Target:           report.Clean(c.Target), Features: c.Features, ExemptFeatures: c.ExemptFeatures, Profile: c.Profile,
		Requirements: cleanAll(c.Requirements), LabelFilter: report.Clean(c.LabelFilter), ReportBudget: c.ReportBudget,
		Built:           run.Built,
		Implementation:  report.Peer{Name: report.Clean(name), Version: report.Clean(version)},
		Declared:        declared,
		DeclaredProfile: report.Clean(framework.DeclaredProfile()),
		Effective:       EffectiveFeatures(),
		FeatureSource:   framework.FeatureSource,
		Judged:          report.Clean(framework.Profile()), // the target's own when it declares an unknown one
		Required:        req,
	}
}

// Evaluate judges a finished run (the report Ginkgo hands ReportAfterSuite,
// or one read back by LoadReport) with facts f against baseline b (nil: no
// baseline; file is its path, as the report names it). Every string that
// can carry what the target sent is cleaned first (report.SanitiseReport,
// report.Clean), so no report written from the Outcome carries a raw one.
// It is the one implementation of the verdicts: Run.Evaluate and Rejudge
// both call it.
func (f Facts) Evaluate(r types.Report, b *report.Baseline, file string) Outcome {
	r = report.SanitiseReport(r)
	ev := report.Evaluate(report.Specs(r), b)
	judged := report.Clean(f.Judged)
	ev.Profile = judged
	conf := report.NewConformance(ev, report.SuiteErrors(r), b)
	conf.Implementation = report.Peer{Name: report.Clean(f.Implementation.Name), Version: report.Clean(f.Implementation.Version)}
	conf.Harness = report.Peer{Name: report.Clean(f.Harness.Name), Version: report.Clean(f.Harness.Version)}
	conf.Target = report.Clean(f.Target)
	conf.Features = report.Features{
		Effective: cleanAll(f.Effective),
		Source:    report.Clean(f.FeatureSource),
		Declared:  cleanAll(f.Declared),
		Requested: cleanAll(f.Features),
		Exempt:    cleanAll(f.ExemptFeatures),
	}
	conf.Profile = report.NewProfile(judged, report.Clean(f.DeclaredProfile), report.Clean(f.Profile))
	conf.ApplyRequired(report.RequiredFeatures{Missing: cleanAll(f.Required.Missing), Exempted: cleanAll(f.Required.Exempted), NotDrivable: cleanAll(f.Required.NotDrivable)})
	conf.Selection = report.NewSelection(f.Built, ev, cleanAll(f.Requirements), report.Clean(f.LabelFilter))
	if conf.ExpectedFailures != nil {
		conf.ExpectedFailures.File = file
	}
	return Outcome{Report: r, Evaluation: ev, Conformance: conf, Facts: f, Budget: f.ReportBudget}
}

// cleanAll is report.Clean of each of ss (nil stays nil).
func cleanAll(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = report.Clean(s)
	}
	return out
}

// LoadFacts reads dir's run-metadata.json. Errors: ErrNoRunMetadata when
// it is absent, ErrBadResults when it does not parse, is not FactsFormat,
// was written with another requirements catalogue than this harness's
// (spec.Version): its requirement lines would not match, or holds what
// Run.Facts never writes (Facts.check: a string Run.Facts would have
// cleaned, an unknown feature, requirement, feature source or signal; a
// file edited by hand or by someone else).
func LoadFacts(dir string) (Facts, error) {
	path := filepath.Join(dir, RunMetadataFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Facts{}, fmt.Errorf("%w: %s does not exist (the run was made by a harness that did not record it; run again to get a results directory rejudge can use)", ErrNoRunMetadata, path)
	}
	if err != nil {
		return Facts{}, fmt.Errorf("%w: %w", ErrNoRunMetadata, err)
	}
	var f Facts
	if err := json.Unmarshal(data, &f); err != nil {
		return Facts{}, fmt.Errorf("%w: %s: %v", ErrBadResults, path, err)
	}
	if f.Format != FactsFormat {
		return Facts{}, fmt.Errorf("%w: %s: format %d, this harness reads format %d", ErrBadResults, path, f.Format, FactsFormat)
	}
	if f.CatalogueVersion != spec.Version() {
		return Facts{}, fmt.Errorf("%w: %s: the run used requirements catalogue version %d, this harness has version %d (rejudge with the harness that ran it, or run again)", ErrBadResults, path, f.CatalogueVersion, spec.Version())
	}
	if err := f.check(); err != nil {
		return Facts{}, fmt.Errorf("%w: %s: %v (not as a run of this harness writes it; run again)", ErrBadResults, path, err)
	}
	return f, nil
}

// check reports the first field of f that Run.Facts could not have
// written: a string that report.Clean changes (quoted %q), a feature that is
// not in spec/requirements.yaml, a requirement of Built that is not in the
// catalogue, a feature source other than "declared" or "command line", or a
// signal other than SIGINT or SIGTERM.
func (f Facts) check() error {
	strs := map[string][]string{
		"target": {f.Target}, "harness": {f.Harness.Name, f.Harness.Version}, "implementation": {f.Implementation.Name, f.Implementation.Version},
		"declared": f.Declared, "declaredProfile": {f.DeclaredProfile}, "profile": {f.Profile}, "judged": {f.Judged},
		"requirements": f.Requirements, "labelFilter": {f.LabelFilter},
	}
	for _, k := range slices.Sorted(maps.Keys(strs)) {
		for _, s := range strs[k] {
			if s != report.Clean(s) {
				return fmt.Errorf("%s %s is not one line of printable text", k, quoteShort(s))
			}
		}
	}
	known := KnownFeatures()
	feats := map[string][]string{
		"features": f.Features, "exemptFeatures": f.ExemptFeatures, "effective": f.Effective,
		"required.missing": f.Required.Missing, "required.exempted": f.Required.Exempted, "required.notDrivable": f.Required.NotDrivable,
	}
	for _, k := range slices.Sorted(maps.Keys(feats)) {
		for _, s := range feats[k] {
			if !IsKnownFeature(known, s) {
				return fmt.Errorf("%s: unknown feature %s", k, quoteShort(s))
			}
		}
	}
	for i, b := range f.Built {
		if _, ok := spec.Lookup(b.Requirement); !ok {
			return fmt.Errorf("built[%d]: unknown requirement %s", i, quoteShort(b.Requirement))
		}
	}
	if f.FeatureSource != "declared" && f.FeatureSource != "command line" {
		return fmt.Errorf("featureSource %s is neither \"declared\" nor \"command line\"", quoteShort(f.FeatureSource))
	}
	if f.Interrupted != "" && f.Interrupted != "SIGINT" && f.Interrupted != "SIGTERM" {
		return fmt.Errorf("interrupted %s is neither SIGINT nor SIGTERM", quoteShort(f.Interrupted))
	}
	if f.ReportBudget < 0 {
		return fmt.Errorf("reportBudget %d is negative", f.ReportBudget)
	}
	return nil
}

// quoteShort is s quoted (%q: every control and format character escaped)
// and cut to its first 120 bytes, for an error message.
func quoteShort(s string) string {
	const n = 120
	if len(s) > n {
		return fmt.Sprintf("%q… (%d bytes)", strings.ToValidUTF8(s[:n], "\uFFFD"), len(s))
	}
	return fmt.Sprintf("%q", s)
}

// Matches reports whether r (LoadReport) is the report of the run f
// describes: every requirement with a spec that ran in r is one the run
// selected (f.Built), and r holds no more specs than the build. Error:
// ErrBadResults naming the first that is not (report.json and
// run-metadata.json of two different runs).
func (f Facts) Matches(r types.Report) error {
	selected := map[string]bool{}
	for _, b := range f.Built {
		if b.Selected {
			selected[b.Requirement] = true
		}
	}
	n := 0
	for _, s := range r.SpecReports {
		if s.LeafNodeType == types.NodeTypeIt {
			n++
		}
	}
	if n > len(f.Built) {
		return fmt.Errorf("%w: %s holds %d specs, %s says the build has %d: they are of different runs", ErrBadResults, ReportJSONFile, n, RunMetadataFile, len(f.Built))
	}
	for _, s := range report.Specs(r) {
		if s.State != "skipped" && !selected[s.Requirement] {
			return fmt.Errorf("%w: %s has a spec of %s that ran (%q), %s says the run did not select %s: they are of different runs", ErrBadResults, ReportJSONFile, report.Clean(s.Requirement), report.Clean(s.Text), RunMetadataFile, report.Clean(s.Requirement))
		}
	}
	return nil
}

// LoadReport reads dir's report.json (Ginkgo's JSON report, one suite).
// Errors: ErrNoReportJSON when it is absent, ErrBadResults when it does not
// parse or holds other than one suite.
func LoadReport(dir string) (types.Report, error) {
	path := filepath.Join(dir, ReportJSONFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return types.Report{}, fmt.Errorf("%w: %s does not exist (is %s the --results-dir of a finished run?)", ErrNoReportJSON, path, dir)
	}
	if err != nil {
		return types.Report{}, fmt.Errorf("%w: %w", ErrNoReportJSON, err)
	}
	var rs []types.Report
	if err := json.Unmarshal(data, &rs); err != nil {
		return types.Report{}, fmt.Errorf("%w: %s: %v", ErrBadResults, path, err)
	}
	if len(rs) != 1 {
		return types.Report{}, fmt.Errorf("%w: %s holds %d suite reports, want 1", ErrBadResults, path, len(rs))
	}
	return rs[0], nil
}
