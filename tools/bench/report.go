package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Report is bench.json: what ran, where, and every sample.
type Report struct {
	Harness protocol.Peer `json:"harness"`
	// Date is when the bench started (UTC).
	Date    time.Time `json:"date"`
	Machine Machine   `json:"machine"`
	// Rounds is the number of timed rounds; Warmup the untimed, checked
	// executions of each cell per target before them (cells timed once per
	// round are not warmed up).
	Rounds int `json:"rounds"`
	Warmup int `json:"warmup"`
	// Targets in command-line order; ratios are to the first.
	Targets []Target     `json:"targets"`
	Cells   []CellReport `json:"cells"`
	// Correct is true when every cell was correct on every target.
	Correct bool `json:"correct"`
}

// Machine describes where the bench ran.
type Machine struct {
	OS   string `json:"os"`
	Arch string `json:"arch"`
	CPUs int    `json:"cpus"`
	// CPUModel is from /proc/cpuinfo, when readable.
	CPUModel  string `json:"cpuModel,omitempty"`
	GoVersion string `json:"goVersion"`
	// LoadAverage is /proc/loadavg's 1, 5 and 15 minute averages at the
	// start and at the end: other jobs on the machine skew absolute numbers.
	LoadAverageStart string `json:"loadAverageStart,omitempty"`
	LoadAverageEnd   string `json:"loadAverageEnd,omitempty"`
}

// Target is one compared target, as initialize described it.
type Target struct {
	// Spec is the --target value.
	Spec           string        `json:"spec"`
	Implementation protocol.Peer `json:"implementation"`
	Features       []string      `json:"features"`
	// Error says why the target could not be connected (then every cell
	// failed on it).
	Error string `json:"error,omitempty"`
}

// CellReport is one cell on every target.
type CellReport struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Code is the guest code, with ECHO and SLOW standing for the catalog
	// ids each target's catalog gave.
	Code string `json:"code"`
	// CodeMode is the run's tools.codeMode value.
	CodeMode json.RawMessage `json:"codeMode"`
	// Expected is the value a correct target returns.
	Expected json.RawMessage `json:"expected"`
	// NestedCalls is the number of tool.invoke calls one execution makes.
	NestedCalls int `json:"nestedCalls"`
	// Unit is "ms" (lower is better) or "cells/s" (higher is better).
	Unit string `json:"unit"`
	// Iterations is the timed executions per round (throughput cell: cells
	// per run per sample).
	Iterations int `json:"iterations"`
	// Runs is the number of concurrent runs (throughput cell only).
	Runs int `json:"runs,omitempty"`
	// Results has one entry per target, in Targets order.
	Results []Measurement `json:"results"`
}

// Measurement is one cell on one target.
type Measurement struct {
	Target  string `json:"target"`
	Correct bool   `json:"correct"`
	// Failure is set when the cell was incorrect or failed: the result's
	// error code ("memory_limit_exceeded", "failed" for a plain guest
	// error), "wrong value", "status" (not completed), "incorrect" (a bad
	// result object, too many waits, the wrong number of nested calls) or
	// "error" (a protocol fault or lost connection); Detail says what
	// happened. An incorrect cell has no timings.
	Failure string `json:"failure,omitempty"`
	Detail  string `json:"detail,omitempty"`
	// Samples holds per round the samples in Unit (one per timed execution;
	// one per round for the throughput cell).
	Samples [][]float64 `json:"samples"`
	// RoundMedians is the median of each round's samples; Median the
	// median of those.
	RoundMedians []float64 `json:"roundMedians"`
	Median       float64   `json:"median,omitempty"`
	// Ratio is Median over the first target's Median (absent when either
	// is incorrect): above 1 means slower for ms, faster for cells/s.
	Ratio float64 `json:"ratio,omitempty"`
	// Waits is the most wait calls one execution needed.
	Waits int `json:"waits"`
}

// median of xs (the mean of the two middle values for an even count); 0
// for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// WriteJSON writes the report to path, indented.
func (r *Report) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// WriteTable prints the machine, the targets and one line per cell: each
// target's median (or FAIL and its code) and, from the second target on,
// its ratio to the first.
func (r *Report) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "codemode-conformance bench %s: %d interleaved round(s) after %d warm-up; per target the median of per-round medians, ratios to A (ms: above 1 is slower; cells/s: above 1 is faster)\n",
		r.Date.Format(time.RFC3339), r.Rounds, r.Warmup)
	m := r.Machine
	fmt.Fprintf(w, "machine: %s/%s, %d CPUs %s, %s, load average %s → %s\n", m.OS, m.Arch, m.CPUs, m.CPUModel, m.GoVersion, m.LoadAverageStart, m.LoadAverageEnd)
	for i, t := range r.Targets {
		impl := t.Implementation.Name + " " + t.Implementation.Version
		if t.Error != "" {
			impl = "not connected: " + firstLine(t.Error)
		}
		fmt.Fprintf(w, "%c = %s (%s)\n", 'A'+i, t.Spec, impl)
	}
	if len(r.Cells) > 0 {
		// The most common config is the standard one; name the others.
		count := map[string]int{}
		std := ""
		for _, c := range r.Cells {
			k := compact(c.CodeMode)
			if count[k]++; count[k] > count[std] {
				std = k
			}
		}
		fmt.Fprintf(w, "tools.codeMode: %s", std)
		for _, c := range r.Cells {
			if k := compact(c.CodeMode); k != std {
				fmt.Fprintf(w, "; %s: %s", c.Name, k)
			}
		}
		fmt.Fprintln(w)
	}
	head := []string{"cell", "unit"}
	for i := range r.Targets {
		head = append(head, string(rune('A'+i)))
		if i > 0 {
			head = append(head, string(rune('A'+i))+"/A")
		}
	}
	rows := [][]string{append(head, "waits")}
	for _, c := range r.Cells {
		row := []string{c.Name, c.Unit}
		var waits []string
		for i, m := range c.Results {
			if m.Correct {
				row = append(row, fmt.Sprintf("%.1f", m.Median))
			} else {
				row = append(row, "FAIL "+m.Failure)
			}
			if i > 0 {
				if m.Ratio > 0 {
					row = append(row, fmt.Sprintf("%.2f", m.Ratio))
				} else {
					row = append(row, "–")
				}
			}
			waits = append(waits, fmt.Sprint(m.Waits))
		}
		rows = append(rows, append(row, strings.Join(waits, "/")))
	}
	writeColumns(w, rows)
	if r.Correct {
		fmt.Fprintln(w, "every cell correct on every target")
		return
	}
	fmt.Fprintln(w, "INCORRECT (never timed):")
	for _, c := range r.Cells {
		for _, m := range c.Results {
			if !m.Correct {
				fmt.Fprintf(w, "  %s on %s: %s\n", c.Name, m.Target, m.Detail)
			}
		}
	}
}

// writeColumns prints rows as aligned columns: the first left-aligned, the
// others right-aligned.
func writeColumns(w io.Writer, rows [][]string) {
	width := map[int]int{}
	for _, row := range rows {
		for i, x := range row {
			width[i] = max(width[i], utf8.RuneCountInString(x))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for i, x := range row {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(x))
			if i == 0 {
				b.WriteString(x + pad)
			} else {
				b.WriteString("  " + pad + x)
			}
		}
		fmt.Fprintln(w, b.String())
	}
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
