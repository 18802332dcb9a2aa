package engine_test

import (
	"context"
	"testing"

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

// BenchmarkEvalLoop: a 100k-iteration guest loop, the cost that
// WithCloseOnContextDone adds to guest speed.
func BenchmarkEvalLoop(b *testing.B) {
	e := benchEngine(b)
	ctx := context.Background()
	vm, err := e.NewVM(ctx, engine.Limits{MemoryBytes: 64 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer vm.Close(ctx)
	for b.Loop() {
		if _, err := vm.Eval(ctx, `(() => { let s = 0; for (let i = 0; i < 100000; i++) s += i; return s; })()`, "loop.js"); err != nil {
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
