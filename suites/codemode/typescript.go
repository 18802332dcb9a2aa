package codemode

import (
	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
)

var _ = Describe("codemode", "TypeScript", func() {
	It("CM-TS-07", "a language outside the configured languages fails with unsupported_language", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"languages": []string{"javascript"}}), Tools: tools.Standard()})
		Expect(r.ExecInput(ctx, map[string]any{"code": "return 1", "language": "typescript"})).To(BeFailedWith(result.CodeUnsupportedLanguage), "typescript outside the configured languages [javascript] must fail with unsupported_language")
		Expect(r.ExecInput(ctx, map[string]any{"code": "return 1", "language": "python"})).To(BeFailedWith(result.CodeUnsupportedLanguage), "an unknown language must fail with unsupported_language")
		Expect(r.ExecInput(ctx, map[string]any{"code": "return 1", "language": "javascript"})).To(CompleteWith(1), "javascript, which is configured, must still run")
	})

	It("CM-TS-01", "typescript cells are type-stripped without type checking or module resolution, then run", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		res, _ := r.Follow(ctx, r.ExecInput(ctx, map[string]any{"language": "typescript", "code": Guest(`
			interface Sum { sum: number }
			type Pair = [number, number];
			enum Color { Red = 1, Green }
			const pair: Pair = [2, 3];
			const out = (await call("add", {a: pair[0], b: pair[1]})) as Sum;
			function twice<T>(x: T): T[] { return [x, x]; }
			return {sum: out.sum, twice: twice<string>("a"), green: Color.Green};`)}))
		Expect(res).To(CompleteWith(map[string]any{"sum": 5, "twice": []string{"a", "a"}, "green": 2}), "a typescript cell with interfaces, types, enums, casts and generics must be stripped and run %s", EnvelopeNote)
		// No type checking: a type error still runs.
		res = r.ExecInput(ctx, map[string]any{"language": "typescript", "code": `const n: number = "not a number" as any as string as unknown as number; const s: string = 42 as unknown as string; return [n, s];`})
		Expect(res).To(CompleteWith([]any{"not a number", 42}), "casts that a type checker would reject must run unchecked")
		res = r.ExecInput(ctx, map[string]any{"language": "typescript", "code": `const x: string = 1; return x;`})
		Expect(res).To(CompleteWith(1), "a type error must not be checked")
		// No module resolution: a type-only import is erased, a value import is refused like in JavaScript.
		res = r.ExecInput(ctx, map[string]any{"language": "typescript", "code": `type T = import("fs").Stats; const v: T | null = null; return v;`})
		Expect(res).To(CompleteWith(nil), "a type-only import must be erased, not resolved")
	})

	It("CM-TS-02", "transform diagnostics fail with typescript_transform_failed and a useful line number", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		res := r.ExecInput(ctx, map[string]any{"language": "typescript", "code": "const a: number = 1;\nconst b: number = 2;\nconst c = (a +;\nreturn c;"})
		Expect(res).To(BeFailedWith(result.CodeTypeScriptTransformFailed), "a syntax error in a typescript cell must fail with typescript_transform_failed")
		Expect(res.Error).To(MatchRegexp(`\b3\b`), "the diagnostic must name line 3: %q", res.Error)
		Expect(r.ExecInput(ctx, map[string]any{"language": "typescript", "code": "return 1 as number;"})).To(CompleteWith(1), "the run keeps working")
	})

	It("CM-TS-05", "a runtime error in a typescript cell names its line of the TypeScript source", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		// Lines 1-5 are type-only (gone after the transform) and line 6 is
		// reprinted over several lines; the TypeError is raised on line 7.
		typeError := `interface Point {
  x: number;
  y: number;
}
type Maybe<T> = T | null;
const p: Maybe<Point> = null as Maybe<Point>, q = {a: 1, b: [1, 2, 3]};
return (p as Point).x + q.a;`
		// After a nested call (through the guest dialect, on the one line
		// Guest puts first) and its wait, a throw on line 8 of the cell
		// (line 7 of the body) inside a function declared on line 5, below
		// type-only lines and an enum.
		afterWait := Guest(`enum Mode { Fast = 1, Safe }
type Reply = { ok: boolean };
declare const unused: Reply;
function check(mode: Mode, n: number): never {
  const at: string = Mode[mode];

  throw new RangeError(` + "`bad ${at} ${n}`" + `);
}
const r = await call("echo", {}) as unknown;
check(Mode.Safe, r === undefined ? 0 : 1);`)
		for _, c := range []struct {
			code string
			line int
		}{{typeError, 7}, {afterWait, 8}} {
			res, _ := r.Follow(ctx, r.ExecInput(ctx, map[string]any{"language": "typescript", "code": c.code}))
			res.GuestCode = c.code
			type failure struct {
				Status result.Status
				Line   int
			}
			Expect(res).To(BeFailed(), "the typescript cell must fail with its uncaught error: %s", res)
			Expect(cmp.Diff(failure{result.StatusFailed, c.line}, failure{res.Status, res.Line})).To(BeEmpty(),
				"the failed result must carry line %d, the line of the TypeScript source that raised the error, not of the transformed JavaScript (-want +got); %s", c.line, res)
		}
	})
})
