package engine_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/reference/engine"
)

// Benchmarks for the engine facts in shared/DESIGN.md; compare runs with
// benchstat (make bench).

func benchEngine(b *testing.B) *engine.Engine {
	b.Helper()
	e, err := engine.New(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close(context.Background()) })
	return e
}

// BenchmarkNewVM: a fresh VM per cell (instantiate + context), then close.
func BenchmarkNewVM(b *testing.B) {
	e := benchEngine(b)
	ctx := context.Background()
	for b.Loop() {
		vm, err := e.NewVM(ctx, engine.Limits{MemoryBytes: 64 << 20})
		if err != nil {
			b.Fatal(err)
		}
		vm.Close(ctx)
	}
}

// BenchmarkTemplateVM: a fresh VM restored from a booted template (what
// every cell starts with), then close.
func BenchmarkTemplateVM(b *testing.B) {
	e := benchEngine(b)
	ctx := context.Background()
	t, err := e.NewTemplate(ctx, engine.Limits{MemoryBytes: 64 << 20}, func(ctx context.Context, vm *engine.VM) error {
		_, err := vm.Eval(ctx, `globalThis.booted = Array.from({length: 100}, (_, i) => ({i}))`, "boot.js")
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		vm, err := t.NewVM(ctx)
		if err != nil {
			b.Fatal(err)
		}
		vm.Close(ctx)
	}
}

// BenchmarkEvalLoop: a 100k-iteration guest loop under a deadline (the
// interrupt handler's cost; WithCloseOnContextDone cost 8x here).
func BenchmarkEvalLoop(b *testing.B) {
	e := benchEngine(b)
	ctx := context.Background()
	vm, err := e.NewVM(ctx, engine.Limits{MemoryBytes: 64 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer vm.Close(ctx)
	dctx, cancel := context.WithTimeout(ctx, time.Hour)
	defer cancel()
	for b.Loop() {
		if _, err := vm.Eval(dctx, `(() => { let s = 0; for (let i = 0; i < 100000; i++) s += i; return s; })()`, "loop.js"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshotRestore: serialize a VM's memory and resume it in a fresh
// instance (what every waiting cell and every wait costs).
func BenchmarkSnapshotRestore(b *testing.B) {
	e := benchEngine(b)
	ctx := context.Background()
	vm, err := e.NewVM(ctx, engine.Limits{MemoryBytes: 64 << 20})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := vm.Eval(ctx, `globalThis.state = Array.from({length: 1000}, (_, i) => ({i})); 1`, "state.js"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		snap, err := vm.Snapshot()
		if err != nil {
			b.Fatal(err)
		}
		vm.Close(ctx)
		if vm, err = e.Restore(ctx, snap); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(snap.Bytes()), "snapshot-bytes")
	}
	vm.Close(ctx)
}

// BenchmarkCells: the bench command's compute cells at engine level, in a
// fresh VM under a deadline (so the interrupt handler and the native-loop
// poll are live), at the default 64 MiB memory limit except push-1e6: 1e6
// {i} need 77 MiB of QuickJS-NG heap (ENGINE.md), so it gets 128 MiB, as in
// make bench-peer.
func BenchmarkCells(b *testing.B) {
	cells := []struct {
		name, src, want string
		mem             int64
	}{
		{"loop-1e7", `(() => { let s = 0; for (let i = 0; i < 1e7; i++) s += i % 7; return s })()`, "29999994", 64 << 20},
		{"push-1e6", `(() => { const a = []; for (let i = 0; i < 1e6; i++) a.push({i}); return a.length + a[999999].i })()`, "1999999", 128 << 20},
		{"json-1e5", `(() => { const a = []; for (let i = 0; i < 1e5; i++) a.push({i, s: 'abc'}); return JSON.stringify(a).length })()`, "2188891", 64 << 20},
	}
	e := benchEngine(b)
	for _, c := range cells {
		b.Run(c.name, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			for b.Loop() {
				evalCell(ctx, b, e, c.name, c.src, c.want, c.mem)
			}
		})
	}
}

// BenchmarkPolls compares the deadline machinery on the compute cells, side
// by side in one run (issue 25 item 6): the wasm as pinned with no native
// polls ("none"), the listeners on bulkPolls ("bulk", the reference before
// loop polls), loop polls ("loop", the reference now) and both.
func BenchmarkPolls(b *testing.B) {
	engines := []struct {
		name       string
		loop, bulk bool
	}{{"none", false, false}, {"bulk", false, true}, {"loop", true, false}, {"loop+bulk", true, true}}
	es := make([]*engine.Engine, len(engines))
	for i, c := range engines {
		e, err := engine.New(context.Background(), engine.WithPolls(c.loop, c.bulk))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { e.Close(context.Background()) })
		es[i] = e
	}
	cells := []struct {
		name, src, want string
		mem             int64
	}{
		{"loop-1e6", `(() => { let s = 0; for (let i = 0; i < 1e6; i++) s += i % 7; return s })()`, "2999997", 64 << 20},
		{"push-1e6", `(() => { const a = []; for (let i = 0; i < 1e6; i++) a.push({i}); return a.length + a[999999].i })()`, "1999999", 128 << 20},
		{"json-1e5", `(() => { const a = []; for (let i = 0; i < 1e5; i++) a.push({i, s: 'abc'}); return JSON.stringify(a).length })()`, "2188891", 64 << 20},
	}
	for _, c := range cells {
		for i, e := range es {
			b.Run(c.name+"/"+engines[i].name, func(b *testing.B) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
				defer cancel()
				// CPU time of the process per op: on a shared machine it
				// varies far less than wall time.
				cpu0 := processCPU()
				defer func() { b.ReportMetric((processCPU()-cpu0).Seconds()/float64(b.N), "cpu-s/op") }()
				for b.Loop() {
					evalCell(ctx, b, e, c.name, c.src, c.want, c.mem)
				}
			})
		}
	}
}

// evalCell runs src once in a fresh VM of e with mem bytes of memory and
// fails b unless it returns want (the benchmarks' one op).
func evalCell(ctx context.Context, b *testing.B, e *engine.Engine, name, src, want string, mem int64) {
	vm, err := e.NewVM(ctx, engine.Limits{MemoryBytes: mem})
	if err != nil {
		b.Fatal(err)
	}
	got, err := vm.Eval(ctx, src, name)
	vm.Close(ctx)
	if err != nil || got != want {
		b.Fatalf("%s: got %q, %v; want %s", name, got, err, want)
	}
}

// processCPU is the user and system CPU time of this process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
