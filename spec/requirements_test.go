package spec

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// requirementsMD is the source catalogue: a verbatim copy of the contract's
// first catalogue (REQUIREMENTS.md, which is no longer edited), kept in the
// repository so that this test needs no sibling checkout.
const requirementsMD = "testdata/REQUIREMENTS.md"

func TestEmbeddedCatalogueParses(t *testing.T) {
	if _, _, err := ParseRequirements(requirementsYAML); err != nil {
		t.Fatalf("embedded requirements.yaml: %v", err)
	}
}

func TestRequirementsReturnsCopy(t *testing.T) {
	a := Requirements()
	a[0].ID = "mutated"
	a[0].Text = "mutated"
	if b := Requirements(); b[0].ID == "mutated" || b[0].Text == "mutated" {
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
	if diff := cmp.Diff([]string{"CM-TS-03"}, got); diff != "" {
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
		Level:   "SHOULD",
		Feature: "executor-choice",
		Source:  "001 [运行和快照生命周期]",
		Text:    r.Text, // wording is free; checked for non-emptiness by ParseRequirements
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("Lookup(CM-CFG-08) mismatch (-want +got):\n%s", diff)
	}
	for _, r := range Requirements() {
		got, ok := Lookup(r.ID)
		if !ok || got != r {
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

func TestIDsMatchMarkdown(t *testing.T) {
	md := readMarkdown(t)

	want := map[string]bool{}
	for _, id := range mdIDPattern.FindAllString(md, -1) {
		want[id] = true
	}
	got := map[string]bool{}
	for _, r := range Requirements() {
		got[r.ID] = true
	}
	if diff := cmp.Diff(sortedKeys(want), sortedKeys(got)); diff != "" {
		t.Errorf("requirement IDs differ from %s (-markdown +yaml):\n%s", requirementsMD, diff)
	}
	if len(want) == 0 {
		t.Errorf("%s mentions no requirement ID: the comparison checked nothing", requirementsMD)
	}
}

func TestRowsMatchMarkdown(t *testing.T) {
	md := readMarkdown(t)
	rows := parseMarkdownRows(t, md)
	ids := map[string]bool{}
	for _, id := range mdIDPattern.FindAllString(md, -1) {
		ids[id] = true
	}
	if len(rows) != len(ids) || len(rows) == 0 {
		t.Errorf("%s has %d requirement rows for %d distinct IDs, want one row per ID", requirementsMD, len(rows), len(ids))
	}

	var mdOrder []string
	for _, row := range rows {
		mdOrder = append(mdOrder, row.ID)
		r, ok := Lookup(row.ID)
		if !ok {
			t.Errorf("%s: in %s but not in requirements.yaml", row.ID, requirementsMD)
			continue
		}
		got := mdRow{ID: r.ID, Level: r.Level, Feature: r.Feature, Source: r.Source}
		if diff := cmp.Diff(row, got); diff != "" {
			t.Errorf("%s differs from the markdown table (-markdown +yaml):\n%s", row.ID, diff)
		}
	}

	var yamlOrder []string
	for _, r := range Requirements() {
		yamlOrder = append(yamlOrder, r.ID)
	}
	if diff := cmp.Diff(mdOrder, yamlOrder); diff != "" {
		t.Errorf("requirement order differs from %s (-markdown +yaml):\n%s", requirementsMD, diff)
	}
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

const validDoc = `
areas:
  CFG: Configuration
  ACT: Activation
requirements:
  - id: CM-CFG-01
    area: CFG
    level: MUST
    feature: core
    source: "000 [Configurazione]"
    text: First.
  - id: CM-ACT-01
    area: ACT
    level: SHOULD
    feature: namespaces
    source: "001"
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
		{ID: "CM-CFG-01", Area: "CFG", Level: "MUST", Feature: "core", Source: "000 [Configurazione]", Text: "First."},
		{ID: "CM-ACT-01", Area: "ACT", Level: "SHOULD", Feature: "namespaces", Source: "001", Text: "Second, folded.", Excluded: "not observable from outside"},
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
	const head = "areas:\n  CFG: Configuration\nrequirements:\n"
	const good = "  - {id: CM-CFG-01, area: CFG, level: MUST, feature: core, source: \"000\", text: ok}\n"
	tests := []struct {
		name    string
		doc     string
		wantErr string // substring of the error; names the offending id
	}{
		{
			name:    "duplicate id",
			doc:     head + good + "  - {id: CM-CFG-01, area: CFG, level: SHOULD, feature: core, source: \"000\", text: again}\n",
			wantErr: "CM-CFG-01: duplicate id",
		},
		{
			name:    "bad level",
			doc:     head + "  - {id: CM-CFG-02, area: CFG, level: MAY, feature: core, source: \"000\", text: ok}\n",
			wantErr: "CM-CFG-02: level \"MAY\"",
		},
		{
			name:    "lower-case level",
			doc:     head + "  - {id: CM-CFG-02, area: CFG, level: must, feature: core, source: \"000\", text: ok}\n",
			wantErr: "CM-CFG-02: level",
		},
		{
			name:    "malformed id: one digit",
			doc:     head + "  - {id: CM-CFG-1, area: CFG, level: MUST, feature: core, source: \"000\", text: ok}\n",
			wantErr: "CM-CFG-1: malformed id",
		},
		{
			name:    "malformed id: lower case",
			doc:     head + "  - {id: cm-cfg-01, area: CFG, level: MUST, feature: core, source: \"000\", text: ok}\n",
			wantErr: "cm-cfg-01: malformed id",
		},
		{
			name:    "malformed id: wrong prefix",
			doc:     head + "  - {id: XX-CFG-01, area: CFG, level: MUST, feature: core, source: \"000\", text: ok}\n",
			wantErr: "XX-CFG-01: malformed id",
		},
		{
			name:    "missing id",
			doc:     head + good + "  - {area: CFG, level: MUST, feature: core, source: \"000\", text: ok}\n",
			wantErr: "#2 (no id): malformed id",
		},
		{
			name:    "area does not match id",
			doc:     head + "  - {id: CM-CFG-03, area: ACT, level: MUST, feature: core, source: \"000\", text: ok}\n",
			wantErr: "CM-CFG-03: area \"ACT\" does not match id",
		},
		{
			name:    "area not in areas map",
			doc:     head + "  - {id: CM-ACT-01, area: ACT, level: MUST, feature: core, source: \"000\", text: ok}\n",
			wantErr: "CM-ACT-01: area \"ACT\" is not in the areas map",
		},
		{
			name:    "empty feature",
			doc:     head + "  - {id: CM-CFG-04, area: CFG, level: MUST, feature: \"\", source: \"000\", text: ok}\n",
			wantErr: "CM-CFG-04: empty feature",
		},
		{
			name:    "empty source",
			doc:     head + "  - {id: CM-CFG-04, area: CFG, level: MUST, feature: core, text: ok}\n",
			wantErr: "CM-CFG-04: empty source",
		},
		{
			name:    "empty text",
			doc:     head + "  - {id: CM-CFG-04, area: CFG, level: MUST, feature: core, source: \"000\", text: \" \"}\n",
			wantErr: "CM-CFG-04: empty text",
		},
		{
			name:    "empty excluded reason",
			doc:     head + "  - {id: CM-CFG-04, area: CFG, level: MUST, feature: core, source: \"000\", text: ok, excluded: \"\"}\n",
			wantErr: "CM-CFG-04: excluded is present but gives no reason",
		},
		{
			name:    "empty planned",
			doc:     head + "  - {id: CM-CFG-04, area: CFG, level: MUST, feature: core, source: \"000\", text: ok, planned: \" \"}\n",
			wantErr: "CM-CFG-04: planned is present but says nothing",
		},
		{
			name:    "excluded and planned",
			doc:     head + "  - {id: CM-CFG-04, area: CFG, level: MUST, feature: core, source: \"000\", text: ok, excluded: x, planned: y}\n",
			wantErr: "CM-CFG-04: both excluded and planned",
		},
		{
			name:    "unknown field",
			doc:     head + "  - {id: CM-CFG-04, area: CFG, level: MUST, feature: core, source: \"000\", text: ok, exclude: typo}\n",
			wantErr: "exclude",
		},
		{
			name:    "no requirements",
			doc:     "areas:\n  CFG: Configuration\n",
			wantErr: "no requirements",
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
