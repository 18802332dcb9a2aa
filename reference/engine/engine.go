// Package engine runs QuickJS-NG, compiled to a WASI reactor (quickjs-wasi),
// on wazero.
//
// One Engine per process compiles the module once per memory cap (with a
// file-backed compilation cache, so later processes start fast) and hands out
// VMs, each its own wasm instance. A Template is a booted VM kept as memory:
// every cell restores it into a fresh instance (CM-EXEC-12). A VM is driven
// through qjs_eval and qjs_execute_pending_job; the bridge is a guest-side
// queue drained by the host (see ENGINE.md).
//
// Wall-clock time is bounded by QuickJS's interrupt handler (the env
// host_interrupt import polls a per-VM stop flag set at the context's
// deadline or cancellation) and, for native operations that never poll, by a
// watchdog that abandons the VM Grace after the deadline (CM-LIM-01).
package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// PageSize is the wasm page size in bytes.
const PageSize = 65536

// Engine owns the compiled QuickJS module. It is safe for concurrent use.
type Engine struct {
	wasm  []byte
	cache wazero.CompilationCache

	mu       sync.Mutex
	runtimes map[uint32]*runtime // by memory page cap
	closed   bool

	live atomic.Int64

	listeners oomListeners
}

// LiveVMs is the number of VM instances currently open on this engine
// (abandoned ones are counted until their wasm call returns).
func (e *Engine) LiveVMs() int { return int(e.live.Load()) }

type runtime struct {
	r  wazero.Runtime
	cm wazero.CompiledModule

	mu     sync.Mutex
	idle   []*instance // instances.go
	closed bool
}

// Option changes how New prepares the engine.
type Option func(*options)

type options struct {
	uncappedBigInts bool
	noLoopPolls     bool // the wasm as pinned, without addLoopPolls
	bulkPolls       bool // listeners on bulkPolls (before loop polls)
}

// WithoutBigIntCap keeps QuickJS's own BigInt size cap (2^20 bits) instead
// of BigIntMaxBits and leaves the engine's native loops without polls
// (addLoopPolls), as before issue 25, so one quadratic BigInt operation
// runs for seconds past its deadline as native code and holds up the whole
// process. Only for the broken variant that shows the fault (fakes/broken).
func WithoutBigIntCap() Option {
	return func(o *options) { o.uncappedBigInts, o.noLoopPolls, o.bulkPolls = true, true, true }
}

// New returns an Engine. It loads the embedded wasm (checking its sha256),
// lowers its BigInt size cap to BigIntMaxBits (bigint.go) and compiles it
// once to prove it loads; the error wraps ErrUnavailable.
func New(ctx context.Context, opts ...Option) (*Engine, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	b, err := wasmBytes()
	if err != nil {
		return nil, err
	}
	if !o.uncappedBigInts {
		if b, err = capBigInts(b); err != nil {
			return nil, err
		}
	}
	if !o.noLoopPolls {
		if b, err = addLoopPolls(b); err != nil {
			return nil, err
		}
	}
	e := &Engine{wasm: b, cache: compilationCache(), runtimes: map[uint32]*runtime{}, listeners: oomListeners{bulk: o.bulkPolls}}
	if _, err := e.runtime(ctx, PagesFor(64<<20)); err != nil {
		return nil, err
	}
	return e, nil
}

// compilationCache is a file-backed wazero cache under the user cache dir
// ($XDG_CACHE_HOME or ~/.cache)/codemode-conformance/wazero: compiling the
// module takes 0.3–2 s, loading it from the cache a few ms. It falls back to
// an in-memory cache when that directory cannot be written.
func compilationCache() wazero.CompilationCache {
	if dir, err := os.UserCacheDir(); err == nil {
		dir = filepath.Join(dir, "codemode-conformance", "wazero")
		if err := os.MkdirAll(dir, 0o755); err == nil {
			if probe, err := os.CreateTemp(dir, ".probe-*"); err == nil {
				probe.Close()
				os.Remove(probe.Name())
				if c, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
					return c
				}
			}
		}
	}
	return wazero.NewCompilationCache()
}

// PagesFor returns the wasm page cap for a QuickJS heap limit of memoryBytes:
// the heap limit plus a quarter for allocator overhead plus 8 MiB for the
// module's own data and stack. The cap is the hard backstop behind
// JS_SetMemoryLimit.
func PagesFor(memoryBytes int64) uint32 {
	b := memoryBytes + memoryBytes/4 + 8<<20
	p := (b + PageSize - 1) / PageSize
	if p > 65536 {
		p = 65536
	}
	return uint32(p)
}

// runtime returns the wazero runtime for a page cap, compiling on first use
// (the compilation cache makes later compiles cheap).
func (e *Engine) runtime(ctx context.Context, pages uint32) (*runtime, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, fmt.Errorf("%w: engine closed", ErrUnavailable)
	}
	if rt, ok := e.runtimes[pages]; ok {
		return rt, nil
	}
	// No WithCloseOnContextDone: it puts a call into Go at every wasm loop
	// header (8× on a JS loop); the interrupt handler bounds time instead.
	cfg := wazero.NewRuntimeConfig().
		WithMemoryLimitPages(pages).
		WithCompilationCache(e.cache)
	r := wazero.NewRuntimeWithConfig(ctx, cfg)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, r); err != nil {
		r.Close(ctx)
		return nil, fmt.Errorf("%w: wasi: %v", ErrUnavailable, err)
	}
	if err := instantiateHost(ctx, r); err != nil {
		r.Close(ctx)
		return nil, fmt.Errorf("%w: host imports: %v", ErrUnavailable, err)
	}
	cm, err := r.CompileModule(withOOMListener(ctx, e.listeners), e.wasm)
	if err != nil {
		r.Close(ctx)
		return nil, fmt.Errorf("%w: compile: %v", ErrUnavailable, err)
	}
	rt := &runtime{r: r, cm: cm}
	e.runtimes[pages] = rt
	return rt, nil
}

// Close releases every runtime; VMs still open become unusable.
func (e *Engine) Close(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	for _, rt := range e.runtimes {
		rt.mu.Lock()
		rt.closed, rt.idle = true, nil
		rt.mu.Unlock()
		rt.r.Close(ctx) // closes the idle instances too
	}
	e.runtimes = nil
	return nil
}
