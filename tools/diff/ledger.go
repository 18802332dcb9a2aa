package diff

// State is where a behavioural difference stands against the triage file.
type State string

// The states of a difference (Comparison.State) and of a triage row that
// matches none (Ledger.Gone).
const (
	Triaged   State = "triaged" // a triage row covers it, with its fingerprint or none
	New       State = "new"     // no triage row covers it
	Changed   State = "changed" // a row covers it, but its fingerprint is another's
	Gone      State = "gone"    // a triage row no behavioural difference matches
	Untracked State = ""        // same or shape only: nothing to triage
)

// Comparison is one cell's answer on one target against the first target's.
type Comparison struct {
	Target string `json:"target"`
	Verdict
	State  State `json:"state,omitempty"`
	Triage *Row  `json:"triage,omitempty"`
}

// CellResult is one cell on every target.
type CellResult struct {
	Cell         string   `json:"cell"`
	Description  string   `json:"description,omitempty"`
	Requirements []string `json:"requirements,omitempty"`
	// Observations are in target order.
	Observations []Observation `json:"observations"`
	// Comparisons compare every target after the first with the first.
	Comparisons []Comparison `json:"comparisons"`
}

// TargetInfo is one target as it introduced itself.
type TargetInfo struct {
	Spec           string `json:"spec"`
	Implementation string `json:"implementation"`
	Profile        string `json:"profile"`
	// Error is why the target could not be connected (or reconnected).
	Error string `json:"error,omitempty"`
}

// Totals count the comparisons by class and the behavioural ones by state.
type Totals struct {
	Same        int `json:"same"`
	Shape       int `json:"shape"`
	Behavioural int `json:"behavioural"`
	Triaged     int `json:"triaged"`
	New         int `json:"new"`
	Changed     int `json:"changed"`
	Gone        int `json:"gone"`
}

// Ledger is the whole differential run (diff.json).
type Ledger struct {
	Harness string       `json:"harness"`
	Targets []TargetInfo `json:"targets"`
	Rules   Rules        `json:"rules"`
	Cells   []CellResult `json:"cells"`
	// Gone are triage rows that match no behavioural difference of this run.
	Gone   []Row  `json:"gone,omitempty"`
	Totals Totals `json:"totals"`
}

// merge classifies every observation against the first target's and
// merges triage.
func (l *Ledger) merge(rules Rules, triage Triage) {
	used := map[*Row]bool{}
	base := l.Targets[0].Spec
	for ci := range l.Cells {
		c := &l.Cells[ci]
		c.Comparisons = c.Comparisons[:0]
		for ti := 1; ti < len(l.Targets); ti++ {
			cmpn := Comparison{Target: l.Targets[ti].Spec, Verdict: Classify(c.Observations[0], c.Observations[ti], rules)}
			switch cmpn.Class {
			case Same:
				l.Totals.Same++
			case Shape:
				l.Totals.Shape++
			case Behavioural:
				l.Totals.Behavioural++
				cmpn.Triage = triage.covering(c.Cell, base, cmpn.Target)
				switch {
				case cmpn.Triage == nil:
					cmpn.State = New
					l.Totals.New++
				case cmpn.Triage.Fingerprint != "" && cmpn.Triage.Fingerprint != cmpn.Fingerprint:
					cmpn.State = Changed
					l.Totals.Changed++
				default:
					cmpn.State = Triaged
					l.Totals.Triaged++
				}
				if cmpn.Triage != nil {
					used[cmpn.Triage] = true
				}
			}
			c.Comparisons = append(c.Comparisons, cmpn)
		}
	}
	for i := range triage {
		if !used[&triage[i]] && l.covers(triage[i]) {
			l.Gone = append(l.Gone, triage[i])
			l.Totals.Gone++
		}
	}
}

// covers reports whether the run could have seen r's difference: its cell
// ran and its owner is one of the targets (a row about a target not in
// this run is not gone).
func (l *Ledger) covers(r Row) bool {
	owner := false
	for _, t := range l.Targets {
		owner = owner || t.Spec == r.Owner
	}
	if !owner {
		return false
	}
	for _, c := range l.Cells {
		if c.Cell == r.Cell {
			return true
		}
	}
	return false
}

// Exit is the command's exit status: 1 when a behavioural difference is new
// (untriaged) or changed since it was triaged, or a target could not be
// connected, else 0.
func (l *Ledger) Exit() int {
	for _, t := range l.Targets {
		if t.Error != "" {
			return 1
		}
	}
	if l.Totals.New > 0 || l.Totals.Changed > 0 {
		return 1
	}
	return 0
}
