package spec

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// requirementsMD is catalogue version 1: a verbatim copy of the contract's
// first catalogue (REQUIREMENTS.md, frozen), kept in the repository so that
// this test needs no sibling checkout.
const requirementsMD = "testdata/REQUIREMENTS.md"

// v1Rows is the number of requirement rows of catalogue version 1.
const v1Rows = 115

func TestEmbeddedCatalogueParses(t *testing.T) {
	if _, _, err := ParseRequirements(requirementsYAML); err != nil {
		t.Fatalf("embedded requirements.yaml: %v", err)
	}
}

// TestVersion pins the catalogue version: raising it is a deliberate change
// recorded in CHANGES.md, never a side effect.
func TestVersion(t *testing.T) {
	if got := Version(); got != 5 {
		t.Errorf("Version() = %d, want 5", got)
	}
	changes := readChanges(t)
	if !strings.Contains(changes, fmt.Sprintf("## Version %d", Version())) {
		t.Errorf("CHANGES.md has no \"## Version %d\" section", Version())
	}
}

func TestRequirementsReturnsCopy(t *testing.T) {
	a := Requirements()
	a[0].ID = "mutated"
	a[0].Text = "mutated"
	a[0].Basis[0] = "mutated"
	if b := Requirements(); b[0].ID == "mutated" || b[0].Text == "mutated" || b[0].Basis[0] == "mutated" {
		t.Error("mutating the result of Requirements() changed the catalogue")
	}
	areas := Areas()
	areas[0].Title = "mutated"
	if Areas()[0].Title == "mutated" {
		t.Error("mutating the result of Areas() changed the catalogue")
	}
}

// TestExclusions pins the excluded requirements: excluding one more is a
// deliberate change to this list, never a side effect.
func TestExclusions(t *testing.T) {
	var got []string
	for _, r := range Requirements() {
		if r.Excluded != "" {
			got = append(got, r.ID)
		}
	}
	if diff := cmp.Diff([]string{"CM-EXEC-20", "CM-TS-03"}, got); diff != "" {
		t.Errorf("excluded requirements (-want +got):\n%s", diff)
	}
}

func TestLookup(t *testing.T) {
	r, ok := Lookup("CM-CFG-08")
	if !ok {
		t.Fatal(`Lookup("CM-CFG-08") not found`)
	}
	want := Requirement{
		ID:      "CM-CFG-08",
		Area:    "CFG",
		Level:   "MUST",
		Feature: "executor-choice",
		Basis:   []string{BasisSeed},
		Source:  "001 [运行和快照生命周期]",
		Text:    r.Text,    // wording is free; checked for non-emptiness by ParseRequirements
		Planned: r.Planned, // likewise
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("Lookup(CM-CFG-08) mismatch (-want +got):\n%s", diff)
	}
	for _, r := range Requirements() {
		got, ok := Lookup(r.ID)
		if !ok || !cmp.Equal(got, r) {
			t.Errorf("Lookup(%q) = %+v, %v; want %+v, true", r.ID, got, ok, r)
		}
	}
	if _, ok := Lookup("CM-NOPE-01"); ok {
		t.Error(`Lookup("CM-NOPE-01") found something`)
	}
}

func TestAreas(t *testing.T) {
	want := []Area{
		{"CFG", "Configuration"},
		{"ACT", "Activation and model-visible surface"},
		{"EXEC", "The exec and wait tools"},
		{"GUEST", "Guest API"},
		{"CAT", "Hidden catalog"},
		{"MCP", "MCP namespace and virtual declarations"},
		{"NS", "Plugin namespaces"},
		{"NEST", "Nested tool execution"},
		{"RUN", "Run state, snapshots, lifecycle"},
		{"LIM", "Limits"},
		{"SEC", "Security boundary"},
		{"TS", "TypeScript"},
		{"RES", "Results store"},
		{"STO", "Session store"},
		{"TEL", "Telemetry"},
		{"E2E", "End-to-end plan"},
		{"PROT", "Driver protocol"},
	}
	if diff := cmp.Diff(want, Areas()); diff != "" {
		t.Errorf("Areas() mismatch (-want +got):\n%s", diff)
	}
}

// mdRow is one requirement row of a REQUIREMENTS.md table.
type mdRow struct {
	ID, Level, Feature, Source string
}

var (
	mdIDPattern  = regexp.MustCompile(`CM-[A-Z0-9]+-[0-9]{2}`)
	mdRowPattern = regexp.MustCompile(`^\|\s*CM-[A-Z0-9]+-[0-9]{2}\s*\|`)
)

// readMarkdown returns the source catalogue.
func readMarkdown(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(requirementsMD)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// parseMarkdownRows extracts the table rows whose first cell is a requirement ID.
func parseMarkdownRows(t *testing.T, md string) []mdRow {
	t.Helper()
	const escapedPipe = "\x00"
	var rows []mdRow
	for _, line := range strings.Split(md, "\n") {
		line = strings.TrimRight(line, "\r")
		if !mdRowPattern.MatchString(line) {
			continue
		}
		cells := strings.Split(strings.ReplaceAll(line, `\|`, escapedPipe), "|")
		// Leading and trailing pipes yield empty first and last cells.
		if len(cells) != 7 {
			t.Fatalf("table row has %d cells, want 5: %s", len(cells)-2, line)
		}
		cell := func(i int) string { return strings.TrimSpace(cells[i+1]) }
		rows = append(rows, mdRow{
			ID:      cell(0),
			Level:   cell(1),
			Feature: cell(2),
			Source:  strings.ReplaceAll(cell(4), "`", ""),
		})
	}
	return rows
}

// TestVersion1Kept checks the catalogue against version 1: no ID is ever
// dropped or reused, and a version-1 row whose level, feature or source
// changed has a line in CHANGES.md (a new ID has one by TestChangesCoverNewIDs).
func TestVersion1Kept(t *testing.T) {
	rows := parseMarkdownRows(t, readMarkdown(t))
	if len(rows) != v1Rows {
		t.Errorf("%s has %d requirement rows, want %d (version 1 is frozen)", requirementsMD, len(rows), v1Rows)
	}
	changes := readChanges(t)
	for _, row := range rows {
		r, ok := Lookup(row.ID)
		if !ok {
			t.Errorf("%s: in catalogue version 1 but dropped from requirements.yaml (IDs are never dropped)", row.ID)
			continue
		}
		got := mdRow{ID: r.ID, Level: r.Level, Feature: r.Feature, Source: r.Source}
		if diff := cmp.Diff(row, got); diff != "" && !strings.Contains(changes, row.ID) {
			t.Errorf("%s differs from catalogue version 1 but CHANGES.md does not name it (-version 1 +yaml):\n%s", row.ID, diff)
		}
	}
}

// TestChangesCoverNewIDs: every requirement added after version 1 is
// recorded in CHANGES.md.
func TestChangesCoverNewIDs(t *testing.T) {
	v1 := map[string]bool{}
	for _, row := range parseMarkdownRows(t, readMarkdown(t)) {
		v1[row.ID] = true
	}
	changes := readChanges(t)
	for _, r := range Requirements() {
		if !v1[r.ID] && !regexp.MustCompile(`\b`+r.ID+`\b`).MatchString(changes) {
			t.Errorf("%s is new since catalogue version 1 but CHANGES.md does not record it", r.ID)
		}
	}
}

// auditPath is a verbatim copy of the catalogue audit that version 2 applies
// (2026-11-30-contract-audit.md of the project's reviews).
const auditPath = "testdata/contract-audit.md"

var (
	auditItemRow  = regexp.MustCompile(`^\|\s*([0-9]+)\s*\|.*\|\s*(CM-[A-Z0-9]+-[0-9]{2})\s*\|[^|]*\|[^|]*\|[^|]*\|\s*$`)
	auditFixRow   = regexp.MustCompile(`^\|\s*(CM-[^|]+?)\s*\|`)
	changeItemRow = regexp.MustCompile(`^\|\s*([0-9]+)\s*\|\s*(CM-[A-Z0-9]+-[0-9]{2})\s*\|\s*(adopted|changed|rejected)\b[^|]*\|\s*\S`)
	changeFixRow  = regexp.MustCompile(`^\|\s*(CM-[^|]+?)\s*\|\s*(adopted|changed|rejected)\b[^|]*\|\s*\S`)
)

// TestChangesDecideEveryAuditItem: CHANGES.md has a decision (adopted,
// changed or rejected, with how or why) for each item of the audit's table 1
// (by number and proposed ID) and each row of its table 2 (by its ID cell).
func TestChangesDecideEveryAuditItem(t *testing.T) {
	data, err := os.ReadFile(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	var items, fixes []string
	for _, line := range strings.Split(string(data), "\n") {
		if m := auditItemRow.FindStringSubmatch(line); m != nil {
			items = append(items, m[1]+" "+m[2])
		} else if m := auditFixRow.FindStringSubmatch(line); m != nil {
			fixes = append(fixes, m[1])
		}
	}
	if len(items) != 38 || len(fixes) != 32 {
		t.Fatalf("parsed %d missing items and %d wrong-or-coarse rows from %s, want 38 and 32", len(items), len(fixes), auditPath)
	}
	gotItems, gotFixes := map[string]bool{}, map[string]bool{}
	for _, line := range strings.Split(readChanges(t), "\n") {
		if m := changeItemRow.FindStringSubmatch(line); m != nil {
			gotItems[m[1]+" "+m[2]] = true
		} else if m := changeFixRow.FindStringSubmatch(line); m != nil {
			gotFixes[m[1]] = true
		}
	}
	for _, it := range items {
		if !gotItems[it] {
			t.Errorf("CHANGES.md has no decision row for audit item %s", it)
		}
	}
	for _, f := range fixes {
		if !gotFixes[f] {
			t.Errorf("CHANGES.md has no decision row for audit row %s", f)
		}
	}
}

func readChanges(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("CHANGES.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// miniFeatures is the smallest valid features and profiles sections.
const miniFeatures = `features:
  - {name: core, profiles: [v1, v2], meaning: always}
  - {name: namespaces, profiles: [v1], meaning: plugin namespaces}
profiles:
  - {name: v1, generation: 1, source: "000", openclaw: "2026.5", meaning: first, requires: [core], allows: [namespaces]}
  - {name: v2, generation: 2, source: "001", openclaw: "2026.8", meaning: second, requires: [core]}
`

const validDoc = `
version: 2
areas:
  CFG: Configuration
  ACT: Activation
` + miniFeatures + `requirements:
  - id: CM-CFG-01
    area: CFG
    level: MUST
    feature: core
    basis: [seed]
    source: "000 [Configurazione]"
    text: First.
  - id: CM-ACT-01
    area: ACT
    level: SHOULD
    feature: namespaces
    basis: [openclaw-source, hardening]
    source: "OpenClaw tests"
    text: >-
      Second,
      folded.
    excluded: "not observable from outside"
`

func TestParseRequirementsValid(t *testing.T) {
	reqs, areas, err := ParseRequirements([]byte(validDoc))
	if err != nil {
		t.Fatalf("ParseRequirements: %v", err)
	}
	wantReqs := []Requirement{
		{ID: "CM-CFG-01", Area: "CFG", Level: "MUST", Feature: "core", Basis: []string{"seed"}, Source: "000 [Configurazione]", Text: "First."},
		{ID: "CM-ACT-01", Area: "ACT", Level: "SHOULD", Feature: "namespaces", Basis: []string{"openclaw-source", "hardening"}, Source: "OpenClaw tests", Text: "Second, folded.", Excluded: "not observable from outside"},
	}
	if diff := cmp.Diff(wantReqs, reqs); diff != "" {
		t.Errorf("requirements mismatch (-want +got):\n%s", diff)
	}
	wantAreas := []Area{{"CFG", "Configuration"}, {"ACT", "Activation"}}
	if diff := cmp.Diff(wantAreas, areas); diff != "" {
		t.Errorf("areas mismatch (-want +got):\n%s", diff)
	}
}

func TestParseRequirementsRejects(t *testing.T) {
	const head = "version: 2\nareas:\n  CFG: Configuration\n" + miniFeatures + "requirements:\n"
	const good = "  - {id: CM-CFG-01, area: CFG, level: MUST, feature: core, basis: [hardening], source: \"000\", text: ok}\n"
	tests := []struct {
		name    string
		doc     string
		wantErr string // substring of the error; names the offending id
	}{
		{
			name:    "duplicate id",
			doc:     head + good + "  - {id: CM-CFG-01, area: CFG, level: SHOULD, feature: core, basis: [hardening], source: \"000\", text: again}\n",
			wantErr: "CM-CFG-01: duplicate id",
		},
		{
			name:    "bad level",
			doc:     head + "  - {id: CM-CFG-02, area: CFG, level: MAY, feature: core, basis: [hardening], source: \"000\", text: ok}\n",
			wantErr: "CM-CFG-02: level \"MAY\"",
		},
		{
			name:    "lower-case level",
			doc:     head + "  - {id: CM-CFG-02, area: CFG, level: must, feature: core, basis: [hardening], source: \"000\", text: ok}\n",
			wantErr: "CM-CFG-02: level",
		},
		{
			name:    "malformed id: one digit",
			doc:     head + "  - {id: CM-CFG-1, area: CFG, level: MUST, feature: core, basis: [hardening], source: \"000\", text: ok}\n",
			wantErr: "CM-CFG-1: malformed id",
		},
		{
			name:    "malformed id: lower case",
			doc:     head + "  - {id: cm-cfg-01, area: CFG, level: MUST, feature: core, basis: [hardening], source: \"000\", text: ok}\n",
			wantErr: "cm-cfg-01: malformed id",
		},
		{
			name:    "malformed id: wrong prefix",
			doc:     head + "  - {id: XX-CFG-01, area: CFG, level: MUST, feature: core, basis: [hardening], source: \"000\", text: ok}\n",
			wantErr: "XX-CFG-01: malformed id",
		},
		{
			name:    "missing id",
			doc:     head + good + "  - {area: CFG, level: MUST, feature: core, basis: [hardening], source: \"000\", text: ok}\n",
			wantErr: "#2 (no id): malformed id",
		},
		{
			name:    "area does not match id",
			doc:     head + "  - {id: CM-CFG-03, area: ACT, level: MUST, feature: core, basis: [hardening], source: \"000\", text: ok}\n",
			wantErr: "CM-CFG-03: area \"ACT\" does not match id",
		},
		{
			name:    "area not in areas map",
			doc:     head + "  - {id: CM-ACT-01, area: ACT, level: MUST, feature: core, basis: [hardening], source: \"000\", text: ok}\n",
			wantErr: "CM-ACT-01: area \"ACT\" is not in the areas map",
		},
		{
			name:    "empty feature",
			doc:     head + "  - {id: CM-CFG-04, area: CFG, level: MUST, feature: \"\", basis: [hardening], source: \"000\", text: ok}\n",
			wantErr: "CM-CFG-04: empty feature",
		},
		{
			name:    "empty source",
			doc:     head + "  - {id: CM-CFG-04, area: CFG, level: MUST, feature: core, basis: [hardening], text: ok}\n",
			wantErr: "CM-CFG-04: empty source",
		},
		{
			name:    "empty text",
			doc:     head + "  - {id: CM-CFG-04, area: CFG, level: MUST, feature: core, basis: [hardening], source: \"000\", text: \" \"}\n",
			wantErr: "CM-CFG-04: empty text",
		},
		{
			name:    "empty excluded reason",
			doc:     head + "  - {id: CM-CFG-04, area: CFG, level: MUST, feature: core, basis: [hardening], source: \"000\", text: ok, excluded: \"\"}\n",
			wantErr: "CM-CFG-04: excluded is present but gives no reason",
		},
		{
			name:    "empty planned",
			doc:     head + "  - {id: CM-CFG-04, area: CFG, level: MUST, feature: core, basis: [hardening], source: \"000\", text: ok, planned: \" \"}\n",
			wantErr: "CM-CFG-04: planned is present but says nothing",
		},
		{
			name:    "excluded and planned",
			doc:     head + "  - {id: CM-CFG-04, area: CFG, level: MUST, feature: core, basis: [hardening], source: \"000\", text: ok, excluded: x, planned: y}\n",
			wantErr: "CM-CFG-04: both excluded and planned",
		},
		{
			name:    "a profile that is not in profiles:",
			doc:     head + "  - {id: CM-CFG-04, area: CFG, level: MUST, feature: core, basis: [hardening], source: \"000\", text: ok, profiles: [v9]}\n",
			wantErr: "CM-CFG-04: profiles names \"v9\", which is not in profiles:",
		},
		{
			// namespaces is v1's only: under profiles: [v2] no profile judges it.
			name:    "a profile that lacks the requirement's feature",
			doc:     head + "  - {id: CM-CFG-04, area: CFG, level: MUST, feature: namespaces, basis: [hardening], source: \"000\", text: ok, profiles: [v2]}\n",
			wantErr: "CM-CFG-04: profiles names \"v2\", which does not have its feature namespaces",
		},
		{
			name:    "unknown field",
			doc:     head + "  - {id: CM-CFG-04, area: CFG, level: MUST, feature: core, basis: [hardening], source: \"000\", text: ok, exclude: typo}\n",
			wantErr: "exclude",
		},
		{
			name:    "no requirements",
			doc:     "version: 2\nareas:\n  CFG: Configuration\n" + miniFeatures,
			wantErr: "no requirements",
		},
		{
			name:    "no version",
			doc:     "areas:\n  CFG: Configuration\n" + miniFeatures + "requirements:\n" + good,
			wantErr: "catalogue version 0",
		},
		{
			name:    "no basis",
			doc:     head + "  - {id: CM-CFG-05, area: CFG, level: MUST, feature: core, source: \"000 [exec]\", text: ok}\n",
			wantErr: "CM-CFG-05: no basis",
		},
		{
			name:    "unknown basis",
			doc:     head + "  - {id: CM-CFG-05, area: CFG, level: MUST, feature: core, basis: [research], source: \"000 [exec]\", text: ok}\n",
			wantErr: "CM-CFG-05: basis \"research\" is none of",
		},
		{
			name:    "basis twice",
			doc:     head + "  - {id: CM-CFG-05, area: CFG, level: MUST, feature: core, basis: [seed, seed], source: \"000 [exec]\", text: ok}\n",
			wantErr: "CM-CFG-05: basis \"seed\" given twice",
		},
		{
			name:    "seed without a section",
			doc:     head + "  - {id: CM-CFG-05, area: CFG, level: MUST, feature: core, basis: [seed], source: \"001\", text: ok}\n",
			wantErr: "CM-CFG-05: basis seed needs a source naming a seed section",
		},
		{
			name:    "seed section without seed basis",
			doc:     head + "  - {id: CM-CFG-05, area: CFG, level: MUST, feature: core, basis: [openclaw-source], source: \"001 [TypeScript]\", text: ok}\n",
			wantErr: "CM-CFG-05: source \"001 [TypeScript]\" names a seed section but the basis has no seed",
		},
		{
			name:    "not yaml",
			doc:     "requirements: [",
			wantErr: "decode requirements",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reqs, areas, err := ParseRequirements([]byte(tc.doc))
			if err == nil {
				t.Fatalf("ParseRequirements accepted the document; got %d requirements, %d areas", len(reqs), len(areas))
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %q does not contain %q", err, tc.wantErr)
			}
			if reqs != nil || areas != nil {
				t.Errorf("ParseRequirements returned data with an error: %v, %v", reqs, areas)
			}
		})
	}
}

// TestHardeningIsShould: a rule the source pages do not state (source
// "hardening", found by trying hostile inputs) is never a MUST of the contract.
func TestHardeningIsShould(t *testing.T) {
	for _, r := range Requirements() {
		if r.Source == "hardening" && r.Level != LevelShould {
			t.Errorf("%s: source %q but level %s, want %s", r.ID, "hardening", r.Level, LevelShould)
		}
	}
}
