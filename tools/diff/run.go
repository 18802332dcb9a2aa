package diff

import (
	"context"
	"fmt"
	"io"

	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/tools/report"
)

// Options are one differential run.
type Options struct {
	// Targets are --target specs, two or more; the first is the base every
	// other is compared with.
	Targets []string
	Cells   []Cell
	Rules   Rules
	Triage  Triage
	// Progress receives one line per target and per cell; nil: none.
	Progress io.Writer
}

// Run runs every cell on every target, one target after the other (each
// judged under the profile it declares, its cells rendered in that
// profile's guest dialect), and returns the merged ledger. A target that
// dies during a cell is reconnected for the next; one that cannot be
// connected has TargetInfo.Error and no answer to any cell from then on;
// err is the first target's failure (there is no base).
func Run(ctx context.Context, o Options) (*Ledger, error) {
	if len(o.Targets) < 2 {
		return nil, fmt.Errorf("diff needs two targets or more, got %d", len(o.Targets))
	}
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	l := &Ledger{Harness: framework.HarnessVersion, Rules: o.Rules}
	for _, c := range o.Cells {
		l.Cells = append(l.Cells, CellResult{Cell: c.Name, Description: c.Case.Description, Requirements: c.Case.Requirements})
	}
	for i, spec := range o.Targets {
		info, err := runTarget(ctx, spec, o.Cells, l, progress)
		if err != nil && i == 0 {
			return nil, err // no base: nothing to compare with
		}
		if err != nil {
			// The other targets' cells are kept; this one's are not
			// answered, and the ledger exits 1 (Ledger.Exit).
			info.Spec, info.Error = spec, report.Clean(err.Error())
			fmt.Fprintf(progress, "diff: %v\n", err)
			for ci := range l.Cells {
				if len(l.Cells[ci].Observations) == i {
					l.Cells[ci].Observations = append(l.Cells[ci].Observations, Observation{Status: StatusNoAnswer, NoAnswer: err.Error()})
				}
			}
		}
		l.Targets = append(l.Targets, info)
	}
	l.merge(o.Rules, o.Triage)
	return l, nil
}

// runTarget appends spec's observation of every cell to l.Cells.
func runTarget(ctx context.Context, spec string, cells []Cell, l *Ledger, progress io.Writer) (TargetInfo, error) {
	framework.Configure(framework.Config{Target: spec})
	connect := func() (*framework.Target, string, error) {
		t, err := framework.Connect(ctx, spec)
		if err != nil {
			return nil, "", fmt.Errorf("connecting to %s: %w", spec, err)
		}
		p, why := framework.ProfileVerdict("", t.Init.Profile, t.Init.Features, "declared", "diff")
		if why != "" {
			t.Close()
			return nil, "", fmt.Errorf("%s: %s", spec, why)
		}
		framework.JudgeProfile(p) // cells are rendered in the target's guest dialect
		return t, p, nil
	}
	t, profile, err := connect()
	if err != nil {
		return TargetInfo{}, err
	}
	defer func() {
		if t != nil {
			t.Close()
		}
	}()
	info := TargetInfo{Spec: spec, Implementation: report.Clean(t.Init.Implementation.Name + " " + t.Init.Implementation.Version), Profile: profile} // the target's strings: for the console and every diff report
	fmt.Fprintf(progress, "diff: %s (%s, profile %s): %d cells\n", spec, info.Implementation, profile, len(cells))
	for i, c := range cells {
		if !t.Alive() {
			t.Close()
			if t, _, err = connect(); err != nil {
				return info, err
			}
		}
		o := observe(ctx, t, c)
		fmt.Fprintf(progress, "  %s %s: %s %s\n", spec, c.Name, report.Clean(o.Status), report.Clean(o.Code))
		l.Cells[i].Observations = append(l.Cells[i].Observations, o)
	}
	return info, nil
}
