package limits

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

// Depths of the CM-LIM-10 specs: shallow crosses intact everywhere; deep is
// past every sensible bound and past where QuickJS's recursive JSON.parse
// overflows the wasm stack (about 4,500 levels).
const (
	shallow = 32
	deep    = 5000
)

// nest is a tool returning arrays nested {depth} levels deep.
func nest() tools.Tool {
	return tools.Core("nest", "Return arrays nested depth levels deep.",
		json.RawMessage(`{"type":"object","properties":{"depth":{"type":"integer"}},"required":["depth"]}`),
		func(_ context.Context, in json.RawMessage) (any, error) {
			var v struct{ Depth int }
			_ = json.Unmarshal(in, &v)
			v.Depth = min(max(v.Depth, 1), 100000)
			return json.RawMessage(strings.Repeat("[", v.Depth) + strings.Repeat("]", v.Depth)), nil
		})
}

// depthOf is the deepest nesting of arrays and objects in raw.
func depthOf(raw []byte) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, b := range raw {
		switch {
		case inString:
			escaped, inString = !escaped && b == '\\', inString && (escaped || b != '"')
		case b == '"':
			inString = true
		case b == '[' || b == '{':
			d++
			deepest = max(deepest, d)
		case b == ']' || b == '}':
			d--
		}
	}
	return deepest
}

// measure is guest code that awaits call and returns "depth <n>" for the
// nesting of what arrived, or "caught: <message>" when it rejects.
func measure(call string) string {
	return Guest(fmt.Sprintf(`try { let x = %s, d = 0; while (Array.isArray(x)) { d++; x = x[0]; } return "depth " + d; } catch (e) { return "caught: " + String(e && e.message).slice(0, 300); }`, call))
}

// cleanlyRefused checks that res, a cell that met a value nested too deep,
// ended cleanly: completed (the guest caught the error) or failed, but
// neither with timeout nor as an engine crash.
func cleanlyRefused(res Result, what string) {
	if res.Status == result.StatusFailed {
		Expect(res.Code).NotTo(BeElementOf(result.CodeTimeout, result.CodeInternalError),
			"%s must fail fast and cleanly, not with a timeout or an engine crash: %s", what, res)
		return
	}
	Expect(res).To(BeCompleted(), "%s must end the cell cleanly: %s", what, res)
}

var _ = Describe("limits", "bridge value depth", func() {
	It("CM-LIM-10", "a tool result nested 5000 deep fails fast as an error the guest can catch, one nested 32 deep arrives intact, and the runtime keeps serving", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 20000}), Tools: append(tools.Standard(), nest())})
		res, _ := r.RunToCompletion(ctx, measure(fmt.Sprintf(`(await call("nest", {depth: %d}))`, deep)))
		cleanlyRefused(res, fmt.Sprintf("a tool result nested %d deep", deep))
		if res.Status == result.StatusCompleted {
			Expect(res.ValueAny()).To(SatisfyAny(HavePrefix("caught: "), Equal(fmt.Sprintf("depth %d", deep))),
				"a tool result nested %d deep must reach the guest whole or as a catchable error, never cut short: %s %s", deep, res, EnvelopeNote)
		}
		small, _ := r.RunToCompletion(ctx, measure(fmt.Sprintf(`(await call("nest", {depth: %d}))`, shallow)))
		Expect(small).To(CompleteWith(fmt.Sprintf("depth %d", shallow)), "a tool result nested %d deep is within any bound and must arrive intact %s", shallow, EnvelopeNote)
		again, _ := r.RunToCompletion(ctx, Guest(`return (await call("add", {a: 2, b: 3})).sum;`))
		Expect(again).To(CompleteWith(5), "the run must keep serving after a deeply nested tool result %s", EnvelopeNote)
	}, HangIsFailure)

	It("CM-LIM-10", "a guest value nested 5000 deep is refused with an error or crosses whole, never cut: as the value, as output and as a tool input", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 20000, "maxOutputBytes": 1 << 20}), Tools: tools.Standard()})
		build := fmt.Sprintf(`let x = []; for (let i = 1; i < %d; i++) x = [x];`, deep)
		for _, c := range []struct{ what, code string }{
			{"the returned value", build + ` return x;`},
			{"a json output item", build + ` json(x); return "sent";`},
		} {
			res, _ := r.RunToCompletion(ctx, Guest(c.code))
			cleanlyRefused(res, fmt.Sprintf("%s nested %d deep", c.what, deep))
			if res.Status == result.StatusCompleted {
				Expect(depthOf(res.Raw)).To(BeNumerically(">", deep), "%s nested %d deep was delivered, so it must be whole, not cut: %.300s", c.what, deep, res.Raw)
			}
		}
		res, _ := r.RunToCompletion(ctx, Guest(build+` try { await call("echo", {x}); return "called"; } catch (e) { return "caught: " + e.message; }`))
		cleanlyRefused(res, fmt.Sprintf("a tool input nested %d deep", deep))
		for _, call := range r.Tools.CallsOf("echo") {
			Expect(depthOf(call.Input)).To(BeNumerically(">", deep), "a tool input nested %d deep that reached the tool must be whole, not cut: %.200s", deep, call.Input)
		}
		fine, _ := r.RunToCompletion(ctx, Guest(fmt.Sprintf(`let x = []; for (let i = 1; i < %d; i++) x = [x]; const v = (await call("echo", {x})); let d = 0, y = v.x; while (Array.isArray(y)) { d++; y = y[0]; } return [d, x];`, shallow)))
		Expect(fine).To(BeCompleted(), "values nested %d deep must cross intact: %s", shallow, fine)
		Expect(depthOf(fine.Value)).To(Equal(shallow+1), "the value [d, x] with x nested %d deep must arrive whole: %s", shallow, fine)
		Expect(fine.ValueAny()).To(HaveExactElements(BeNumerically("==", shallow), Not(BeNil())), "a tool input nested %d deep must reach the tool and come back whole %s", shallow, EnvelopeNote)
	}, HangIsFailure)
})
