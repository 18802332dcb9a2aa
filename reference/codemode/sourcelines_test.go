package codemode

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/codemode-conformance/codemode/spec/result"
)

// An uncaught guest error names its line of the cell's source: for a
// typescript cell the TypeScript line, although esbuild drops type-only lines
// and reprints the rest (CM-TS-05); also after a wait.
func TestFailedResultNamesTheSourceLine(t *testing.T) {
	rt, _ := faultsRun(t, `{"enabled":true}`)
	for _, c := range []struct {
		lang, code string
		line       int
	}{
		{"javascript", "const a = 1;\nconst b = 2;\nnull.x", 3},
		{"typescript", "interface A { x: number }\ntype B = string;\nconst a: number = 1;\nnull.x", 4},
		{"typescript", "interface Point {\n  x: number;\n}\nfunction f(p: Point | null): number {\n  return p!.x;\n}\nconst o = {a: 1, b: [1, 2, 3]};\nreturn f(null);", 5},
		{"typescript", "enum E { A, B }\nconst xs: number[] = [1, 2];\nawait tools.call(ALL_TOOLS[0].id, {});\n\nthrow new RangeError(`at ${xs.length}`);", 5},
		{"typescript", "type T = number;\nthrow 'not an error';", 0}, // no stack: no line
	} {
		in, _ := json.Marshal(map[string]string{"code": c.code, "language": c.lang})
		res, err := rt.Exec(context.Background(), "faults", "call", in)
		for err == nil && res.Status == result.StatusWaiting {
			w, _ := json.Marshal(map[string]string{"runId": res.RunID})
			res, err = rt.Wait(context.Background(), "faults", "w", w)
		}
		if err != nil || res.Status != result.StatusFailed || res.Line != c.line {
			t.Errorf("%s cell\n%s\n→ status %s, line %d, error %q, %v; want failed on line %d", c.lang, c.code, res.Status, res.Line, res.Error, err, c.line)
		}
	}
}
