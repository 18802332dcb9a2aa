package codemode

import (
	"encoding/json"
	"fmt"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

// Auto-retain (feature results, page 001 "运行和快照生命周期";
// spec/protocol.md §5.7): a final object or array value over maxOutputBytes
// completes as {truncated, bytes, preview, resultRef | notRetained}.

// bigRows is guest code returning a structured value of about 5 KB, over a
// maxOutputBytes of 1024.
const bigRows = `return {rows: Array.from({length: 200}, (_, i) => ({i, s: "row-" + i}))};`

// retained decodes the value of a completed auto-retained result.
type retained struct {
	Truncated   bool   `json:"truncated"`
	Bytes       int    `json:"bytes"`
	ResultRef   string `json:"resultRef"`
	NotRetained string `json:"notRetained"`
	Preview     string `json:"preview"`
}

// expectRetained checks res is a completed auto-retained value within
// maxOutputBytes and returns it.
func expectRetained(res Result, maxOutputBytes int64, what string) retained {
	Expect(res).To(BeCompleted(), "%s: a final structured value over maxOutputBytes must complete (auto-retain), not fail: %s", what, res)
	var v retained
	Expect(json.Unmarshal(res.Value, &v)).To(Succeed(), "%s: the value must be the auto-retain object {truncated, bytes, preview, resultRef|notRetained}: %s", what, res.Value)
	Expect(v.Truncated).To(BeTrue(), "%s: truncated must be true: %s", what, res.Value)
	Expect(v.Bytes).To(BeNumerically(">", maxOutputBytes), "%s: bytes must give the full value's size: %s", what, res.Value)
	Expect(v.Preview).NotTo(BeEmpty(), "%s: a bounded preview must be carried: %s", what, res.Value)
	Expect(result.ContentSize(res.Value)).To(BeNumerically("<=", maxOutputBytes), "%s: the value must fit maxOutputBytes %d", what, maxOutputBytes)
	return v
}

var _ = Describe("codemode", "results auto-retain", func() {
	It("CM-RES-04", "a final structured value over maxOutputBytes is saved whole and the result carries its reference and a bounded preview; a reference that cannot be displayed is released", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxOutputBytes": 1024}), Tools: tools.Standard()})
		Expect(r.Exec(ctx, `return {small: [1, 2, 3]};`)).To(CompleteWith(map[string]any{"small": []any{1, 2, 3}}),
			"a value within maxOutputBytes must be returned as it is (the control)")
		v := expectRetained(r.Exec(ctx, bigRows), 1024, "200 rows")
		Expect(v.ResultRef).NotTo(BeEmpty(), "the result must carry the reference of the saved value: %+v", v)
		Expect(v.Preview).To(HavePrefix(`{"rows":[{"i":0,"s":"row-0"}`), "the preview must be the start of the value's JSON")
		load := fmt.Sprintf(`const v = await results.load(%q); return {n: v.rows.length, last: v.rows[199]};`, v.ResultRef)
		Expect(r.Exec(ctx, load)).To(CompleteWith(map[string]any{"n": 200, "last": map[string]any{"i": 199, "s": "row-199"}}),
			"a later cell must load the whole value by its reference")

		// Output leaves too little room to display a reference: the cell fails
		// as before auto-retain, and the reserved reference is released, so the
		// run's 64 entries are all still free.
		full := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxOutputBytes": 1024}), Tools: tools.Standard()})
		res, _ := full.RunToCompletion(ctx, `text("x".repeat(960)); `+bigRows)
		Expect(res).To(BeFailedWith(result.CodeOutputLimitExceeded), "with 960 bytes of output no reference fits maxOutputBytes 1024: %s", res)
		Expect(full.Exec(ctx, `let n = 0; for (let i = 0; i < 64; i++) { await results.save(i); n++; } return n;`)).To(CompleteWith(64),
			"the reference reserved for the undisplayable value must be released: 64 explicit saves must fit")
	})

	It("CM-RES-05", "auto-retain refused because the store is full still completes with the bounded partial value and a not-retained reason", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxOutputBytes": 1024}), Tools: tools.Standard()})
		Expect(r.Exec(ctx, `for (let i = 0; i < 64; i++) await results.save(i); return 64;`)).To(CompleteWith(64), "64 explicit saves fill the store")
		v := expectRetained(r.Exec(ctx, bigRows), 1024, "200 rows with a full store")
		Expect(v.ResultRef).To(BeEmpty(), "a full store cannot have retained the value: %+v", v)
		Expect(v.NotRetained).NotTo(BeEmpty(), "the result must say why the value was not retained: %+v", v)

		b := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxOutputBytes": 1024, "maxSnapshotBytes": 2048}), Tools: tools.Standard()})
		v = expectRetained(b.Exec(ctx, bigRows), 1024, "200 rows over the store's byte budget (maxSnapshotBytes 2048)")
		Expect(v.ResultRef).To(BeEmpty(), "a value over the store's byte budget cannot have been retained: %+v", v)
		Expect(v.NotRetained).NotTo(BeEmpty(), "the result must say why the value was not retained: %+v", v)
	})

	It("CM-RES-06", "headless and restart-safe execution never allocates automatic references", func(ctx SpecContext) {
		r := sessionRun(ctx, freshSession(), &protocol.Session{Branch: "main", Headless: true}, Enabled(map[string]any{"maxOutputBytes": 1024}))
		res := r.Exec(ctx, bigRows)
		Expect(res).NotTo(BeWaiting(), "the cell makes no nested call")
		if res.Status == result.StatusCompleted {
			v := expectRetained(res, 1024, "200 rows, headless")
			Expect(v.ResultRef).To(BeEmpty(), "a headless cell must not allocate an automatic reference: %+v", v)
		}
		Expect(r.Exec(ctx, `let n = 0; for (let i = 0; i < 64; i++) { await results.save(i); n++; } return n;`)).To(CompleteWith(64),
			"no hidden automatic reference may take an entry: 64 explicit saves must fit")

		c := sessionRun(ctx, freshSession(), &protocol.Session{Branch: "main"}, Enabled(map[string]any{"maxOutputBytes": 1024}))
		Expect(expectRetained(c.Exec(ctx, bigRows), 1024, "200 rows, interactive").ResultRef).NotTo(BeEmpty(),
			"the same value in an interactive cell must be retained (the control)")
	})
})
