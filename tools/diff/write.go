package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml"
)

// Files written into the results directory.
const (
	JSONFile      = "diff.json"
	HTMLFile      = "diff.html"
	UntriagedFile = "untriaged.yaml" // triage rows to fill in for new and changed differences
)

// Write writes diff.json, diff.html and, when a behavioural difference is
// new or changed, untriaged.yaml (rows whose note is empty, so that the
// file does not load as triage until a person fills each in) into dir.
func (l *Ledger) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, JSONFile), append(b, '\n'), 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, HTMLFile))
	if err != nil {
		return err
	}
	if err := page.Execute(f, l); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	untriaged := filepath.Join(dir, UntriagedFile)
	rows := l.untriaged()
	if len(rows) == 0 {
		if err := os.Remove(untriaged); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	y, err := yaml.Marshal(map[string]any{"triage": rows})
	if err != nil {
		return err
	}
	head := "# Behavioural differences no triage row covers (or whose fingerprint changed).\n# Set class (" + strings.Join(TriageClasses, ", ") + "), owner, note and requirement, then add them to the triage file.\n"
	return os.WriteFile(untriaged, append([]byte(head), y...), 0o644)
}

func (l *Ledger) untriaged() []Row {
	var rows []Row
	for _, c := range l.Cells {
		for _, x := range c.Comparisons {
			if x.State != New && x.State != Changed {
				continue
			}
			r := Row{Cell: c.Cell, Owner: x.Target, Class: "deviation", Fingerprint: x.Fingerprint}
			if len(c.Requirements) > 0 {
				r.Requirement = c.Requirements[0]
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// Summary prints the totals and one line per new, changed or gone
// difference, naming its cell.
func (l *Ledger) Summary(w io.Writer) {
	t := l.Totals
	fmt.Fprintf(w, "diff: %d cells × %d targets, %d comparisons with %s: %d same, %d shape only, %d behavioural (%d triaged, %d new, %d changed); %d triage rows gone\n",
		len(l.Cells), len(l.Targets), t.Same+t.Shape+t.Behavioural, l.Targets[0].Spec, t.Same, t.Shape, t.Behavioural, t.Triaged, t.New, t.Changed, t.Gone)
	for _, c := range l.Cells {
		for _, x := range c.Comparisons {
			if x.State == New || x.State == Changed {
				fmt.Fprintf(w, "%s behavioural difference: %s on %s vs %s: %s differ\n", strings.ToUpper(string(x.State)), c.Cell, x.Target, l.Targets[0].Spec, strings.Join(x.Fields, ", "))
			}
		}
	}
	for _, t := range l.Targets {
		if t.Error != "" {
			fmt.Fprintf(w, "TARGET %s: %s\n", t.Spec, t.Error)
		}
	}
	for _, r := range l.Gone {
		fmt.Fprintf(w, "GONE triage row: %s (owner %s): no behavioural difference any more\n", r.Cell, r.Owner)
	}
}
