package codemode

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	goStrings "strings"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Auto-retain (feature results, page 001 "运行和快照生命周期";
// spec/protocol.md §5.7): a final object or array value over maxOutputBytes
// completes with a reference to the saved whole value plus a bounded
// preview, or with the bounded partial value and a not-retained reason. 001
// names no field layout (the reference completes as {truncated, bytes,
// preview, resultRef | notRetained}, OpenClaw 2026.9.6 as {truncated,
// reference: {id, bytes, count}, …} or {…, guidance}), so the specs read
// only the strings the value carries: a reference is one that results.load
// accepts (through the dialect's refKey) and that loads the whole value.

// bigRows is guest code returning a structured value of about 5 KB, over a
// maxOutputBytes of 1024.
const bigRows = `return {rows: Array.from({length: 200}, (_, i) => ({i, s: "row-" + i}))};`

// bigRowsJSON is the JSON text of bigRows' value.
var bigRowsJSON = func() string {
	rows := make([]map[string]any, 200)
	for i := range rows {
		rows[i] = map[string]any{"i": i, "s": fmt.Sprintf("row-%d", i)}
	}
	b, _ := json.Marshal(map[string]any{"rows": rows})
	return string(b)
}()

// autoRetained checks that res completed within maxOutputBytes with a
// bounded preview of bigRows (its first row's text) and returns the
// distinct strings its value carries (valueStrings): the reference, the
// preview and a not-retained reason are among them, wherever they are.
func autoRetained(res Result, maxOutputBytes int64, what string) []string {
	ginkgo.GinkgoHelper()
	Expect(res).To(BeCompleted(), "%s: a final structured value over maxOutputBytes must complete (auto-retain), not fail: %s", what, res)
	Expect(result.ContentSize(res.Value)).To(BeNumerically("<=", maxOutputBytes), "%s: the value must fit maxOutputBytes %d: %s", what, maxOutputBytes, res.Value)
	Expect(string(res.Value)).To(ContainSubstring("row-0"), "%s: a bounded preview (the start of the value) must be carried: %s", what, res.Value)
	return valueStrings(res)
}

// valueStrings returns the distinct strings res's value carries, at most
// 64, in a fixed order (object keys sorted).
func valueStrings(res Result) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if !seen[x] && len(out) < 64 {
				seen[x] = true
				out = append(out, x)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k])
			}
		}
	}
	walk(res.ValueAny())
	return out
}

// loadsWhole runs a cell on r that tries results.load on each of strings
// and returns whether one of them loaded bigRows' value whole.
func loadsWhole(ctx SpecContext, r *Run, strings []string) bool {
	ginkgo.GinkgoHelper()
	cands, _ := json.Marshal(strings)
	res := r.Exec(ctx, Guest(fmt.Sprintf(`for (const c of %s) { try { const v = await results.load(refKey(c)); if (v && Array.isArray(v.rows) && v.rows.length === 200 && v.rows[199].s === "row-199") return true; } catch (e) {} } return false;`, cands)))
	Expect(res).To(BeCompleted(), "a cell trying results.load on the strings of an auto-retained value must complete: %s", res)
	return res.ValueAny() == true
}

// notRetainedReason returns a string of refused (the strings of bigRows'
// value refused by the store) that is no part of bigRows' JSON (so no
// preview) and not among retained (the strings of the same value retained
// by a fresh store): the explicit reason, or "". A marker every auto-retained
// value carries, such as "…", is no reason (fake:auto-retain-silent-refusal).
func notRetainedReason(refused, retained []string) string {
	for _, s := range refused {
		if !goStrings.Contains(bigRowsJSON, s) && !slices.Contains(retained, s) {
			return s
		}
	}
	return ""
}

// retainedStrings runs bigRows in a fresh run with maxOutputBytes 1024 and
// returns the strings of its retained value: the control a not-retained
// reason is told apart by. A value that is not retained there is
// CM-RES-04's fault.
func retainedStrings(ctx SpecContext) []string {
	ginkgo.GinkgoHelper()
	r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxOutputBytes": 1024}), Tools: tools.Standard()})
	res := r.Exec(ctx, bigRows)
	Precondition("CM-RES-04").Expect(res).To(BeCompleted(), "200 rows in a fresh run must be auto-retained (the control): %s", res)
	got := valueStrings(res)
	Precondition("CM-RES-04").Expect(loadsWhole(ctx, r, got)).To(BeTrue(), "200 rows in a fresh run must be auto-retained (the control): %s", res.Value)
	return got
}

var _ = Describe("codemode", "results auto-retain", func() {
	It("CM-RES-04", "a final structured value over maxOutputBytes is saved whole and the result carries its reference and a bounded preview; a reference that cannot be displayed is released", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxOutputBytes": 1024}), Tools: tools.Standard()})
		Expect(r.Exec(ctx, `return {small: [1, 2, 3]};`)).To(CompleteWith(map[string]any{"small": []any{1, 2, 3}}),
			"a value within maxOutputBytes must be returned as it is (the control)")
		big := r.Exec(ctx, bigRows)
		Expect(loadsWhole(ctx, r, autoRetained(big, 1024, "200 rows"))).To(BeTrue(),
			"the result must carry a reference that a later cell loads the whole value by: %s", big.Value)

		// 960 bytes of output first, then a value over the budget. 001 reserves
		// the reference before the rest of the display space goes to the
		// preview and the output ("最终投影在将剩余显示空间分配给采样描述和输出之前
		// 保留可用参考"), so either conforms: the reference is displayed and
		// the output gets what is left (the entry stays held), or it cannot be
		// displayed and is released (all 64 entries free). 001 does not say
		// how the cell ends: its code is CM-LIM-03's charge (verdict audit A2).
		full := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxOutputBytes": 1024}), Tools: tools.Standard()})
		res, _ := full.RunToCompletion(ctx, `text("x".repeat(960)); `+bigRows)
		free, why := 64, "the reference reserved for the undisplayable value must be released: 64 explicit saves must fit"
		if res.Status == result.StatusCompleted && loadsWhole(ctx, full, valueStrings(res)) {
			free, why = 63, "the displayed reference holds one entry and no other may leak: 63 explicit saves must fit"
		}
		Expect(full.Exec(ctx, fmt.Sprintf(`let n = 0; for (let i = 0; i < %d; i++) { await results.save(i); n++; } return n;`, free))).To(CompleteWith(free), why)
	})

	It("CM-RES-05", "auto-retain refused because the store is full still completes with the bounded partial value and a not-retained reason", func(ctx SpecContext) {
		retained := retainedStrings(ctx)
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxOutputBytes": 1024}), Tools: tools.Standard()})
		Expect(r.Exec(ctx, `for (let i = 0; i < 64; i++) await results.save(i); return 64;`)).To(CompleteWith(64), "64 explicit saves fill the store")
		res := r.Exec(ctx, bigRows)
		got := autoRetained(res, 1024, "200 rows with a full store")
		Expect(loadsWhole(ctx, r, got)).To(BeFalse(), "a full store cannot have retained the value: %s", res.Value)
		Expect(notRetainedReason(got, retained)).NotTo(BeEmpty(), "the result must say why the value was not retained: a string the same value retained does not carry and that is no part of the value: %s (retained: %q)", res.Value, retained)

		b := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxOutputBytes": 1024, "maxSnapshotBytes": 2048}), Tools: tools.Standard()})
		res = b.Exec(ctx, bigRows)
		got = autoRetained(res, 1024, "200 rows over the store's byte budget (maxSnapshotBytes 2048)")
		Expect(notRetainedReason(got, retained)).NotTo(BeEmpty(), "the result must say why the value was not retained: a string the same value retained does not carry and that is no part of the value: %s (retained: %q)", res.Value, retained)
		Expect(loadsWhole(ctx, b, got)).To(BeFalse(), "a value over the store's byte budget cannot have been retained: %s", res.Value)
	})

	It("CM-RES-06", "headless and restart-safe execution never allocates automatic references", func(ctx SpecContext) {
		// Headless execution is a property of the bound session, which the
		// harness drives only through run.prepare's session member, and only
		// on a target declaring session-store (spec/protocol.md §3, §5.7).
		// Without it the spec cannot be driven: a skip naming the feature,
		// or, where the profile requires session-store, blocked by the
		// requirement carrying that feature's verdict (audit 2026-12-02: a
		// block by CM-STO-01 when session-store is not judged named no fault).
		RequireDrivenFeature("session-store", "the spec binds its runs to a headless and an interactive session through run.prepare's session member")
		r := sessionRun(ctx, freshSession(), &protocol.Session{Branch: "main", Headless: true}, Enabled(map[string]any{"maxOutputBytes": 1024}))
		res := r.Exec(ctx, bigRows)
		Expect(res).NotTo(BeWaiting(), "the cell makes no nested call")
		if res.Status == result.StatusCompleted {
			// Only the reference is judged here: how a headless value over
			// maxOutputBytes is cut (a preview or not) is CM-LIM-03's and
			// CM-RES-04's, not this requirement's.
			Expect(loadsWhole(ctx, r, valueStrings(res))).To(BeFalse(), "a headless cell must not allocate an automatic reference: %s", res.Value)
		}
		Expect(r.Exec(ctx, `let n = 0; for (let i = 0; i < 64; i++) { await results.save(i); n++; } return n;`)).To(CompleteWith(64),
			"no hidden automatic reference may take an entry: 64 explicit saves must fit")

		// The control: that an interactive cell's value over the budget is
		// retained is CM-RES-04's text, so a target without auto-retain is
		// blocked by it here, not failed twice (as retainedStrings).
		c := sessionRun(ctx, freshSession(), &protocol.Session{Branch: "main"}, Enabled(map[string]any{"maxOutputBytes": 1024}))
		retainedRes := c.Exec(ctx, bigRows)
		Precondition("CM-RES-04").Expect(retainedRes).To(BeCompleted(), "the same value in an interactive cell must be auto-retained (the control): %s", retainedRes)
		Precondition("CM-RES-04").Expect(loadsWhole(ctx, c, valueStrings(retainedRes))).To(BeTrue(),
			"the same value in an interactive cell must be retained (the control): %s", retainedRes.Value)
	})
})
