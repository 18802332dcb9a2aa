package diff_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/codemode-conformance/codemode/tools/diff"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// denied is the cell fake:deny-ignored answers differently: the fake drops
// the run's deny policy, so the denied tool is found (CM-GUEST-05).
const denied = "bridge-denied-id-guesses.js"

var _ = Describe("Run", func() {
	var cells []diff.Cell
	BeforeEach(func() {
		var err error
		cells, err = diff.LoadCells(filepath.Join("testdata", "cells"))
		Expect(err).NotTo(HaveOccurred())
	})
	run := func(triage diff.Triage, targets ...string) *diff.Ledger {
		GinkgoHelper()
		l, err := diff.Run(context.Background(), diff.Options{Targets: targets, Cells: cells, Rules: diff.DefaultRules(), Triage: triage})
		Expect(err).NotTo(HaveOccurred())
		return l
	}
	summary := func(l *diff.Ledger) string {
		var b bytes.Buffer
		l.Summary(&b)
		return b.String()
	}

	It("finds no difference between the reference and itself, and exits 0", func() {
		l := run(nil, "builtin", "builtin")
		Expect(l.Totals).To(Equal(diff.Totals{Same: len(cells)}), summary(l))
		Expect(l.Exit()).To(Equal(0))
	})

	It("exits 1 on a fake's behavioural change and names the cell", func() {
		l := run(nil, "builtin", "fake:deny-ignored")
		Expect(l.Exit()).To(Equal(1), summary(l))
		Expect(l.Totals).To(Equal(diff.Totals{Same: len(cells) - 1, Behavioural: 1, New: 1}))
		Expect(summary(l)).To(ContainSubstring("NEW behavioural difference: " + denied + " on fake:deny-ignored vs builtin: value differ"))
		for _, c := range l.Cells {
			if c.Cell == denied {
				Expect(c.Observations[0].Expect).To(Equal("met"), "the reference meets the case's expected outcome")
				Expect(c.Observations[1].Expect).To(HavePrefix("value differs"), "the fake does not")
			}
		}
	})

	It("exits 0 when a triage row covers the difference, and a changed fingerprint makes it untriaged again", func() {
		row := diff.Row{Cell: denied, Owner: "fake:deny-ignored", Class: "deviation", Note: "the fake drops the deny policy", Requirement: "CM-GUEST-05"}
		l := run(diff.Triage{row}, "builtin", "fake:deny-ignored")
		Expect(l.Exit()).To(Equal(0), summary(l))
		Expect(l.Totals.Triaged).To(Equal(1))

		row.Fingerprint = "000000000000"
		l = run(diff.Triage{row}, "builtin", "fake:deny-ignored")
		Expect(l.Exit()).To(Equal(1))
		Expect(summary(l)).To(ContainSubstring("CHANGED behavioural difference: " + denied))
	})

	It("lists a triage row whose difference is gone", func() {
		row := diff.Row{Cell: "arith.js", Owner: "builtin", Class: "ambiguity", Note: "no longer differs"}
		l := run(diff.Triage{row}, "builtin", "builtin")
		Expect(l.Gone).To(Equal([]diff.Row{row}))
		Expect(summary(l)).To(ContainSubstring("GONE triage row: arith.js"))
		Expect(l.Exit()).To(Equal(0), "a row gone stale is reported, not failed")
	})

	It("writes diff.json and an escaped diff.html, and untriaged.yaml rows that load once filled in", func() {
		l := run(nil, "builtin", "fake:deny-ignored")
		dir := GinkgoT().TempDir()
		Expect(l.Write(dir)).To(Succeed())
		var back diff.Ledger
		b, err := os.ReadFile(filepath.Join(dir, diff.JSONFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(json.Unmarshal(b, &back)).To(Succeed())
		Expect(back.Totals).To(Equal(l.Totals))
		page, err := os.ReadFile(filepath.Join(dir, diff.HTMLFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(page)).NotTo(ContainSubstring("<script>alert"), "a target's string is text in diff.html")
		Expect(string(page)).To(ContainSubstring("&lt;script&gt;alert(1)"))

		untriaged := filepath.Join(dir, diff.UntriagedFile)
		_, err = diff.LoadTriage(untriaged)
		Expect(err).To(MatchError(ContainSubstring("note are required")), "an unfilled row must not pass as triage")
		src, _ := os.ReadFile(untriaged)
		filled := filepath.Join(dir, "triage.yaml")
		Expect(os.WriteFile(filled, bytes.Replace(src, []byte(`note: ""`), []byte(`note: the fake drops the deny policy`), 1), 0o644)).To(Succeed())
		t, err := diff.LoadTriage(filled)
		Expect(err).NotTo(HaveOccurred())
		Expect(run(t, "builtin", "fake:deny-ignored").Exit()).To(Equal(0))
	})
})

var _ = Describe("Run with a target that cannot be connected", func() {
	It("keeps the other targets' answers, names the target and exits 1", func() {
		cells, err := diff.LoadCells(filepath.Join("testdata", "cells"))
		Expect(err).NotTo(HaveOccurred())
		l, err := diff.Run(context.Background(), diff.Options{Targets: []string{"builtin", "exec:exit 3"}, Cells: cells, Rules: diff.DefaultRules()})
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Targets[1].Error).NotTo(BeEmpty())
		Expect(l.Cells[0].Observations[0].Status).To(Equal("completed"), "the base's answers are kept")
		Expect(l.Cells[0].Observations[1].Status).To(Equal(diff.StatusNoAnswer))
		Expect(l.Exit()).To(Equal(1))
	})
})

var _ = Describe("the committed ledger of the reference against OpenClaw", func() {
	It("is covered by the committed triage: reclassified and triaged again, it exits 0", func() {
		l, err := diff.LoadLedger(filepath.Join("..", "..", "reports", "diff", "diff.json"))
		Expect(err).NotTo(HaveOccurred())
		t, err := diff.LoadTriage(filepath.Join("..", "..", "reports", "diff", "triage.yaml"))
		Expect(err).NotTo(HaveOccurred())
		l.Remerge(diff.DefaultRules(), t)
		var b bytes.Buffer
		l.Summary(&b)
		Expect(l.Exit()).To(Equal(0), b.String())
		Expect(l.Totals.Gone).To(Equal(0), "every triage row matches a difference of the ledger")
	})

	It("exits 1 once a triaged difference is dropped from the triage", func() {
		l, err := diff.LoadLedger(filepath.Join("..", "..", "reports", "diff", "diff.json"))
		Expect(err).NotTo(HaveOccurred())
		t, err := diff.LoadTriage(filepath.Join("..", "..", "reports", "diff", "triage.yaml"))
		Expect(err).NotTo(HaveOccurred())
		l.Remerge(diff.DefaultRules(), t[1:])
		Expect(l.Exit()).To(Equal(1))
		Expect(l.Totals.New).To(Equal(1))
	})
})

var _ = Describe("Run against a hostile target (issue 28 N5)", func() {
	It("prints and records the target's implementation name escaped, on one line", func() {
		cells, err := diff.LoadCells(filepath.Join("testdata", "cells"))
		Expect(err).NotTo(HaveOccurred())
		var progress bytes.Buffer
		l, err := diff.Run(context.Background(), diff.Options{Targets: []string{"builtin", "fake:hostile"}, Cells: cells, Rules: diff.DefaultRules(), Progress: &progress})
		Expect(err).NotTo(HaveOccurred())
		out := progress.String()
		Expect(out).To(ContainSubstring("diff: fake:hostile ([name]"), "the progress line names the implementation:\n%s", out)
		Expect(out).NotTo(ContainSubstring("\x1b"), "no raw escape reaches the console")
		Expect(out).NotTo(ContainSubstring("\u202e"), "no raw bidi override reaches the console")
		Expect(out).NotTo(MatchRegexp(`(?m)^Overall: `), "no line of the target's own")
		Expect(l.Targets[1].Implementation).To(HavePrefix("[name]"))
		Expect(l.Targets[1].Implementation).NotTo(ContainSubstring("\n"), "the ledger's name is on one line")
	})
})
