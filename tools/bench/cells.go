// Package bench runs the standard benchmark cells through code mode targets
// over the driver protocol, side by side: the same cells, the same protocol,
// rounds interleaved across targets because the machines are noisy. Every
// result is checked (status completed, the expected value, the expected
// number of nested tool calls); an incorrect result is reported as a
// failure and never timed. `codemode-conformance bench` is its command line
// (Command); the output is a table and bench.json (Report).
package bench

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Unit of a cell's samples and medians.
const (
	// Millis is wall time in milliseconds from sending tool.exec to the
	// completed result, waits included. Lower is better.
	Millis = "ms"
	// CellsPerSec is completed cells per second over all concurrent runs.
	// Higher is better.
	CellsPerSec = "cells/s"
)

// Cell is one standard benchmark cell.
type Cell struct {
	// Name is the cell's id on the command line and in bench.json.
	Name string
	// Description says what the cell measures.
	Description string
	// Body is the guest code; it may use ECHO and SLOW (the catalog ids of
	// the fake echo and slow tools, resolved per run from the target's own
	// catalog) and unwrap (see unwrapJS).
	Body string
	// Want is the JSON value a correct target returns.
	Want string
	// Calls is the number of tool.invoke calls one execution makes.
	Calls int
	// Iterations is the number of timed executions per round; the round's
	// sample is their median. For the throughput cell it is the number of
	// cells each concurrent run executes per sample.
	Iterations int
	// Runs > 1 makes this a throughput cell: that many runs execute the
	// cell at the same time and the sample is cells per second.
	Runs int
	// TimeoutMs, when > 0, replaces the standard timeoutMs (TimeoutMs) in
	// the cell's tools.codeMode.
	TimeoutMs int
}

// Unit is Millis, or CellsPerSec for a throughput cell.
func (c Cell) Unit() string {
	if c.Runs > 1 {
		return CellsPerSec
	}
	return Millis
}

// Code is the full guest code of one execution: the id and unwrap helpers,
// then Body.
func (c Cell) Code(ids map[string]string) string {
	if !strings.Contains(c.Body, "ECHO") && !strings.Contains(c.Body, "SLOW") && !strings.Contains(c.Body, "unwrap") {
		return c.Body
	}
	return fmt.Sprintf("const ECHO = %s, SLOW = %s;\n%s\n%s", strconv.Quote(ids["echo"]), strconv.Quote(ids["slow"]), unwrapJS, c.Body)
}

// unwrapJS turns what tools.call resolves to into the tool's own result. The
// reference resolves to the tool's return value; OpenClaw 2026.7.35 resolves
// to {tool, result: {content, details}} with the return value in details.
// Anything else is passed through, so the cell returns a wrong value and
// fails the check.
const unwrapJS = `const unwrap = (c) => (c && typeof c === "object" && c.result && typeof c.result === "object" && "details" in c.result) ? c.result.details : c;`

// catalogJS resolves the catalog ids of the fake tools from the target's own
// catalog (ALL_TOOLS, or tools.search when ALL_TOOLS does not list them):
// ids are the target's business, never hard-coded.
const catalogJS = `const out = {};
for (const n of ["echo", "slow"]) {
  let hit = (Array.isArray(globalThis.ALL_TOOLS) ? ALL_TOOLS : []).find((t) => t && t.name === n);
  if (!hit) { const s = await tools.search(n); hit = (Array.isArray(s) ? s : []).find((t) => t && t.name === n); }
  out[n] = hit ? hit.id : null;
}
return out;`

// StandardCells are the cells of issue 8 §5, in table order. Sizes are the
// full ones; --cells picks a subset.
func StandardCells() []Cell {
	return []Cell{
		{Name: "trivial", Description: "return 1+1", Body: "return 1+1", Want: "2", Iterations: 10},
		{Name: "loop-1e7", Description: "a loop of 1e7 iterations",
			Body: "let s = 0; for (let i = 0; i < 1e7; i++) s += i % 7; return s", Want: strconv.Itoa(loopSum(1e7)), Iterations: 1},
		{Name: "push-1e6", Description: "1e6 push of small objects",
			Body: "const a = []; for (let i = 0; i < 1e6; i++) a.push({i}); return a.length + a[999999].i", Want: "1999999", Iterations: 1},
		{Name: "json-1e5", Description: "JSON.stringify of 1e5 objects",
			Body: "const a = []; for (let i = 0; i < 1e5; i++) a.push({i, s: 'abc'}); return JSON.stringify(a).length", Want: strconv.Itoa(jsonLen(1e5)), Iterations: 1},
		{Name: "one-call", Description: "one tools.call of echo",
			Body: `const c = await tools.call(ECHO, {message: "m1"}); return unwrap(c).message`, Want: `"m1"`, Calls: 1, Iterations: 10},
		{Name: "seq-10-calls", Description: "10 sequential tools.call of echo",
			Body: `let ok = 0;
for (let i = 0; i < 10; i++) { const c = await tools.call(ECHO, {message: "m" + i}); if (unwrap(c).message === "m" + i) ok++; }
return ok`, Want: "10", Calls: 10, Iterations: 3},
		{Name: "parallel-100-calls", Description: "100 tools.call of echo, Promise.all in batches of 16",
			Body: `let ok = 0;
for (let b = 0; b < 100; b += 16) {
  const k = Math.min(16, 100 - b);
  const rs = await Promise.all(Array.from({length: k}, (_, i) => tools.call(ECHO, {message: "m" + (b + i)})));
  rs.forEach((c, i) => { if (unwrap(c).message === "m" + (b + i)) ok++; });
}
return ok`, Want: "100", Calls: 100, Iterations: 3},
		// timeoutMs 700 makes the reference suspend (it waits timeoutMs/4 =
		// 175 ms for nested calls to settle, then snapshots the cell), so
		// this cell measures suspend + wait; OpenClaw 2026.7.35 suspends on
		// every tools.call and gives its worker timeoutMs + 1 s.
		{Name: "slow-tool-200ms", Description: "a cell awaiting a 200 ms tool, timeoutMs 700 (suspend + wait)",
			Body: `const v = unwrap(await tools.call(SLOW, {ms: 200, tag: "bench"})); return v.slept + ":" + v.tag`, Want: `"200:bench"`, Calls: 1, Iterations: 3, TimeoutMs: 700},
		{Name: "concurrent-8-runs", Description: "8 runs executing trivial cells at the same time",
			Body: "return 1+1", Want: "2", Iterations: 4, Runs: 8},
	}
}

// loopSum is the value of the loop-1e7 cell for n iterations.
func loopSum(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i % 7
	}
	return s
}

// jsonLen is the length of JSON.stringify of [{i: 0, s: "abc"}, …] with n
// elements.
func jsonLen(n int) int {
	l := 2 + n - 1 // brackets and commas
	for i := 0; i < n; i++ {
		l += len(`{"i":,"s":"abc"}`) + len(strconv.Itoa(i))
	}
	return l
}

// SelectCells returns the standard cells named in names (all when names is
// empty), in table order, or an error naming an unknown cell.
func SelectCells(names []string) ([]Cell, error) {
	all := StandardCells()
	if len(names) == 0 {
		return all, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		found := false
		for _, c := range all {
			found = found || c.Name == n
		}
		if !found {
			return nil, fmt.Errorf("unknown cell %q (cells: %s)", n, strings.Join(cellNames(all), ", "))
		}
		want[n] = true
	}
	var out []Cell
	for _, c := range all {
		if want[c.Name] {
			out = append(out, c)
		}
	}
	return out, nil
}

func cellNames(cs []Cell) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
