package diff

import (
	"encoding/json"
	"fmt"
	"os"
)

// LoadLedger reads a diff.json written by Write.
func LoadLedger(path string) (*Ledger, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l Ledger
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(l.Targets) < 2 {
		return nil, fmt.Errorf("%s: a ledger of %d targets", path, len(l.Targets))
	}
	for _, c := range l.Cells {
		if len(c.Observations) != len(l.Targets) {
			return nil, fmt.Errorf("%s: cell %s has %d observations for %d targets", path, c.Cell, len(c.Observations), len(l.Targets))
		}
	}
	return &l, nil
}

// Remerge classifies l's observations again with rules and merges triage,
// without running any target: a triage or rules change is checked against
// a committed ledger.
func (l *Ledger) Remerge(rules Rules, triage Triage) {
	l.Rules, l.Gone, l.Totals = rules, nil, Totals{}
	l.merge(rules, triage)
}
