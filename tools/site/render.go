package site

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/tools/diff"
	"github.com/codemode-conformance/codemode/tools/report"
)

//go:embed templates/*.html templates/style.css
var files embed.FS

var pages = template.Must(template.New("site").Funcs(template.FuncMap{
	"dec": func(i int) int { return i - 1 },
}).ParseFS(files, "templates/*.html"))

// page is what every template gets.
type page struct {
	Title string
	Base  string // "" at the top, "../" in a column's folder
	Site  *Site
	Col   *Column
	Area  AreaGroup
	// Span is the index table's column count.
	Span int
	// Counts are the ledger's comparisons per target (index 0, the base, is empty).
	Counts []LedgerCount
}

// LedgerCount counts one target's comparisons with the ledger's base.
type LedgerCount struct {
	Same, Shape, Behavioural int
	// ByClass counts the triaged behavioural differences per triage class.
	ByClass map[string]int
	// Untriaged counts the behavioural differences in state new or changed.
	Untriaged int
}

// ClassLine is ByClass as "decision 34, deviation 20" (classes sorted), or
// "none".
func (n LedgerCount) ClassLine() string {
	var parts []string
	for k, v := range n.ByClass {
		parts = append(parts, fmt.Sprintf("%s %d", k, v))
	}
	if len(parts) == 0 {
		return "none"
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// Counts counts the comparisons of l per target, in target order.
func Counts(l *diff.Ledger) []LedgerCount {
	out := make([]LedgerCount, len(l.Targets))
	for _, c := range l.Cells {
		for i, cmp := range c.Comparisons {
			n := &out[i+1]
			switch cmp.Class {
			case diff.Same:
				n.Same++
			case diff.Shape:
				n.Shape++
			case diff.Behavioural:
				n.Behavioural++
				if cmp.State == diff.New || cmp.State == diff.Changed || cmp.Triage == nil {
					n.Untriaged++
					continue
				}
				if n.ByClass == nil {
					n.ByClass = map[string]int{}
				}
				n.ByClass[cmp.Triage.Class]++
			}
		}
	}
	return out
}

// Badge is a shields.io endpoint badge (https://shields.io/badges/endpoint-badge).
type Badge struct {
	SchemaVersion int    `json:"schemaVersion"`
	Label         string `json:"label"`
	Message       string `json:"message"`
	Color         string `json:"color"`
}

// BadgeOf is column c's badge: label "code mode <profile>", message the
// requirements that pass of those judged (pass, fail, xfail, xpass, error;
// blocked and skipped ones were not judged), colour by the overall verdict
// (success brightgreen, partial yellow, failure red).
func BadgeOf(c *Column) Badge {
	t := c.Totals
	judged := t.Pass + t.Fail + t.XFail + t.XPass + t.Error
	color := map[report.Overall]string{report.Success: "brightgreen", report.Partial: "yellow", report.Failure: "red"}[c.Overall]
	if color == "" {
		color = "lightgrey"
	}
	label := "code mode"
	if c.Profile != "" {
		label += " " + c.Profile
	}
	return Badge{SchemaVersion: 1, Label: label, Message: fmt.Sprintf("%d/%d pass, %s", t.Pass, judged, c.Overall), Color: color}
}

// AreaOf is the evidence page (without .html) of requirement id.
func (c *Column) AreaOf(id string) string {
	r, _ := spec.Lookup(id)
	return r.Area
}

// Write renders s into the folder out (created; files already there are
// overwritten, others left alone).
func Write(s *Site, out string) error {
	write := func(rel, tmpl string, p page) error {
		var b bytes.Buffer
		p.Site = s
		if err := pages.ExecuteTemplate(&b, tmpl, p); err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		return writeFile(filepath.Join(out, rel), b.Bytes())
	}
	span := len(s.Columns) + 1
	if err := write("index.html", "index.html", page{Title: "Requirements × implementations", Span: span}); err != nil {
		return err
	}
	for _, c := range s.Columns {
		if err := write(filepath.Join(c.Slug, "index.html"), "column.html", page{Title: c.Title, Base: "../", Col: c}); err != nil {
			return err
		}
		for _, a := range s.Areas {
			if err := write(filepath.Join(c.Slug, a.Code+".html"), "evidence.html", page{Title: c.Title + " " + a.Code, Base: "../", Col: c, Area: a}); err != nil {
				return err
			}
		}
		b, err := json.MarshalIndent(BadgeOf(c), "", "  ")
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(out, "badges", c.Slug+".json"), append(b, '\n')); err != nil {
			return err
		}
	}
	if s.Ledger != nil {
		if err := write("ledger.html", "ledger.html", page{Title: "Differential ledger", Counts: Counts(s.Ledger)}); err != nil {
			return err
		}
	}
	css, err := files.ReadFile("templates/style.css")
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(out, "style.css"), css)
}

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
