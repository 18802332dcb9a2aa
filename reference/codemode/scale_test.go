package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// scaleRuntime is a runtime of profile (v1 or v2) for the catalog-scale
// tests and benchmarks (issue 28 N3).
func scaleRuntime(tb testing.TB, profile string) *Runtime {
	tb.Helper()
	eng, err := engine.New(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { eng.Close(context.Background()) })
	rt := New(eng, echoInvoker{}, Options{Profile: profile})
	tb.Cleanup(rt.Close)
	return rt
}

// prepareTools prepares run with manyTools(n) and default limits.
func prepareTools(tb testing.TB, rt *Runtime, run string, n int) protocol.PrepareResult {
	tb.Helper()
	return rt.Prepare(protocol.PrepareParams{Run: run, RunContext: protocol.RunContext{AgentID: "a", SessionID: "s", SessionKey: "k", SenderID: "x", Channel: "c"},
		CodeMode: json.RawMessage(`true`), Tools: manyTools(n)})
}

// idleSnapshotBytes suspends an idle cell of run, reads the snapshot bytes
// runtime.stats reports while it waits, and resumes it to completion.
func idleSnapshotBytes(tb testing.TB, rt *Runtime, run string) int64 {
	tb.Helper()
	w := execOK(tb, rt, run, `await yield_control("idle"); return 2;`, result.StatusWaiting)
	n := rt.Stats().SnapshotBytes
	in, _ := json.Marshal(map[string]string{"runId": w.RunID})
	res, err := rt.Wait(context.Background(), run, "wait-"+w.RunID, in)
	if err != nil || res.Status != result.StatusCompleted {
		tb.Fatalf("wait: %+v, %v", res, err)
	}
	return n
}

// The catalog stays on the host (issue 28 N3): an idle cell's snapshot is
// the same size at 10 tools as at 100,000, and a cell of the 100,000-tool
// run lists, searches, describes and calls its tools within the default
// memoryLimitBytes.
func TestCatalogScaleV1(t *testing.T) {
	rt := scaleRuntime(t, "v1")
	sizes := map[int]int64{}
	for _, n := range []int{10, 100000} {
		run := fmt.Sprint("scale-", n)
		if res := prepareTools(t, rt, run, n); !res.CodeModeActive {
			t.Fatalf("prepare %d tools: %+v", n, res)
		}
		sizes[n] = idleSnapshotBytes(t, rt, run)
		last := fmt.Sprintf("plugin:forecast:tool_%d", n-1)
		// ALL_TOOLS is read only at 10 tools: materializing 100,000 frozen
		// entries is the guest's own work (seconds of QuickJS time).
		listed := "ALL_TOOLS.length"
		if n > 10 {
			listed = fmt.Sprint(n)
		}
		res := execOK(t, rt, run, `const found = await tools.search("tool_`+fmt.Sprint(n-1)+`", {limit: 3});
const d = await tools.describe(found[0].id);
const r = await tools.call(found[0].id, {city: "Oslo"});
const h = await tools.tool_0({city: "Bergen"});
return [`+listed+`, found[0].id, d.parameters.required[0], r.city, h.city, tools.tool_0 === tools.tool_0, typeof tools.nope];`, result.StatusCompleted)
		want := fmt.Sprintf(`[%d,%q,"city","Oslo","Bergen",true,"undefined"]`, n, last)
		if got := string(res.Value); got != want {
			t.Errorf("%d tools: %s, want %s", n, got, want)
		}
	}
	const slack = 16 << 10
	if d := sizes[100000] - sizes[10]; d > slack || d < -slack {
		t.Errorf("idle snapshot: %d bytes at 10 tools, %d at 100,000: differs by more than %d", sizes[10], sizes[100000], slack)
	}
	t.Logf("idle snapshot: %d bytes at 10 tools, %d at 100,000", sizes[10], sizes[100000])
}

// BenchmarkCatalog100k reports the 100,000-tool catalog's figures (issue 28
// N3): prepare time, one tools.search cell, and the idle snapshot.
func BenchmarkCatalog100k(b *testing.B) {
	rt := scaleRuntime(b, "v1")
	b.Run("prepare", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if res := prepareTools(b, rt, fmt.Sprint("prep-", i), 100000); !res.CodeModeActive {
				b.Fatalf("prepare: %+v", res)
			}
		}
	})
	if res := prepareTools(b, rt, "big", 100000); !res.CodeModeActive {
		b.Fatalf("prepare: %+v", res)
	}
	execOK(b, rt, "big", `return 1`, result.StatusCompleted)
	b.Run("search-cell", func(b *testing.B) {
		for b.Loop() {
			execOK(b, rt, "big", `return (await tools.search("tool_99999 weather", {limit: 5})).length`, result.StatusCompleted)
		}
	})
	b.Run("search-in-cell", func(b *testing.B) {
		// One cell making 100 searches: the search's own latency.
		const n = 100
		var per time.Duration
		for b.Loop() {
			res := execOK(b, rt, "big", `const t0 = Date.now(); for (let i = 0; i < 100; i++) await tools.search("tool_"+i+" weather", {limit: 5}); return Date.now() - t0;`, result.StatusCompleted)
			var ms int64
			json.Unmarshal(res.Value, &ms)
			per = time.Duration(ms) * time.Millisecond / n
		}
		b.ReportMetric(float64(per.Microseconds())/1000, "ms/search")
	})
	b.Run("idle-snapshot", func(b *testing.B) {
		for b.Loop() {
			b.ReportMetric(float64(idleSnapshotBytes(b, rt, "big")), "idle-snapshot-bytes")
		}
	})
}

// Generation 2's surface cannot keep its globals on the host: a catalog of
// more callable tools than MaxCallableGlobals is refused at prepare, fail
// closed, with an error naming its size (issue 28 N3), instead of being
// accepted and then failing every cell.
func TestCatalogScaleV2Refused(t *testing.T) {
	rt := scaleRuntime(t, "v2")
	res := prepareTools(t, rt, "v2-big", MaxCallableGlobals+1)
	want := fmt.Sprintf("the run's catalog has %d tools", MaxCallableGlobals+1)
	if res.CodeModeActive || len(res.Tools) != 0 || res.Failure == nil || res.Failure.Code != "runtime_unavailable" || !strings.Contains(res.Failure.Error, want) {
		t.Fatalf("prepare: %+v; want a runtime_unavailable failure saying %q and no tools", res, want)
	}
	if res := prepareTools(t, rt, "v2-ok", 10); !res.CodeModeActive {
		t.Fatalf("prepare 10 tools: %+v", res)
	}
	res2 := execOK(t, rt, "v2-ok", `const h = (await catalog.search("tool_3"))[0]; return [catalog.all().length, h === tool_3, (await h({city: "Oslo"})).city, (await tool_4.describe()).parameters.required[0]];`, result.StatusCompleted)
	if got := string(res2.Value); got != `[10,true,"Oslo","city"]` {
		t.Errorf("v2 cell: %s", got)
	}
}
