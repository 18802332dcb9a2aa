package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/codemode-conformance/codemode/internal/subcmd"
	"github.com/codemode-conformance/codemode/targets"
	"github.com/codemode-conformance/codemode/tools/diff"
)

// diffCommand runs `codemode-conformance diff --target A --target B …`
// (package diff): the same cells on every target, each difference from A
// classified and merged with --triage. Exit 0 when no behavioural
// difference is new or changed, 1 when one is or a target cannot be
// connected, 2 on usage (bad flags, fewer than two targets, an unknown
// target, an unreadable cells folder, rules or triage file).
func diffCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var tgts multi
	fs.Var(&tgts, "target", "a target (repeat: two or more; the first is the base the others are compared with)")
	cells := fs.String("cells", diff.DefaultCells, "a folder of .js cells: corpus cases (front matter) or plain cells")
	rules := fs.String("rules", "", "shape-only rules YAML (default: the committed tools/diff/rules.yaml)")
	triage := fs.String("triage", "", "the triage file (YAML) to merge into the ledger")
	from := fs.String("ledger", "", "a diff.json to classify and triage again instead of running the targets (no --target then)")
	dir := fs.String("results-dir", filepath.Join("results", "diff"), "where diff.json, diff.html and untriaged.yaml go")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: codemode-conformance diff --target A --target B [--target C …] [--cells DIR] [--triage FILE]
       codemode-conformance diff --ledger diff.json [--triage FILE]   (the same ledger, triaged again)

Runs every cell of --cells (default: the hostile-case corpus) on each target, one target after the
other, and compares each target's answer with A's: status, code, value, output and the nested calls
that reached the harness (error texts are kept, not compared). Each difference is same, shape only
(a rule of --rules says the two wrappings mean the same) or behavioural. A behavioural difference is
triaged when a row of --triage names its cell and an owner that is A or the other target.
Writes diff.json, diff.html and, for untriaged differences, untriaged.yaml into --results-dir.

Exit status: 0 no behavioural difference is new or changed, 1 one is (each named on stdout) or a
target cannot be connected, 2 usage.

Targets:
%s
Flags:
`, targets.Usage())
		fs.PrintDefaults()
	}
	if code, done := subcmd.Parse(fs, args, stdout); done {
		return code
	}
	if *from != "" {
		if len(tgts) > 0 || fs.NArg() > 0 {
			fmt.Fprintln(stderr, "diff --ledger takes no --target and no arguments: it triages a written ledger again (see diff -h)")
			return 2
		}
		return remerge(*from, *rules, *triage, *dir, stdout, stderr)
	}
	if len(tgts) < 2 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "diff takes two --target flags or more and no arguments (see diff -h)")
		return 2
	}
	for _, t := range tgts {
		if err := targets.Check(t); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
	}
	o := diff.Options{Targets: tgts, Progress: stderr}
	var err error
	if o.Cells, err = diff.LoadCells(*cells); err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if o.Rules, o.Triage, err = diffInputs(*rules, *triage); err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	l, err := diff.Run(ctx, o)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return writeLedger(l, *dir, stdout, stderr)
}

// diffInputs loads --rules (default: the committed rules) and --triage.
func diffInputs(rulesFile, triageFile string) (diff.Rules, diff.Triage, error) {
	rules := diff.DefaultRules()
	var triage diff.Triage
	var err error
	if rulesFile != "" {
		if rules, err = diff.LoadRules(rulesFile); err != nil {
			return nil, nil, err
		}
	}
	if triageFile != "" {
		if triage, err = diff.LoadTriage(triageFile); err != nil {
			return nil, nil, err
		}
	}
	return rules, triage, nil
}

// remerge is diff --ledger: a written ledger classified and triaged again.
func remerge(from, rulesFile, triageFile, dir string, stdout, stderr io.Writer) int {
	l, err := diff.LoadLedger(from)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	rules, triage, err := diffInputs(rulesFile, triageFile)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	l.Remerge(rules, triage)
	return writeLedger(l, dir, stdout, stderr)
}

// writeLedger writes l into dir, prints its summary and returns its exit.
func writeLedger(l *diff.Ledger, dir string, stdout, stderr io.Writer) int {
	if err := l.Write(dir); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	l.Summary(stdout)
	fmt.Fprintf(stdout, "diff: ledger in %s\n", filepath.Join(dir, diff.HTMLFile))
	return l.Exit()
}
