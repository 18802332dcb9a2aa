package codemode

import (
	"context"
	"sync"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/prelude"
)

// templates holds one booted template per memoryLimitBytes: a VM that has
// evaluated the prelude, kept as memory. Every cell restores it into a fresh
// instance (CM-EXEC-12), which skips the prelude's evaluation (about 80% of a
// cell's cost without it).
type templates struct {
	mu sync.Mutex
	by map[int64]*templateSlot
}

// maxTemplates bounds the booted templates one Runtime keeps.
const maxTemplates = 8

type templateSlot struct {
	once sync.Once
	t    *booted
	err  error
}

// booted is a booted template and the bridge its VMs share (the bridge's
// handles live in the template's memory).
type booted struct {
	t  *engine.Template
	br *prelude.Bridge
}

// NewVM restores the template into a fresh instance.
func (b *booted) NewVM(ctx context.Context) (*engine.VM, error) { return b.t.NewVM(ctx) }

// template returns the booted template for a memory limit, booting it on
// first use. A failed boot is remembered: the engine is then unavailable for
// that limit.
func (rt *Runtime) template(ctx context.Context, memoryBytes int64) (*booted, error) {
	rt.tpl.mu.Lock()
	if rt.tpl.by == nil {
		rt.tpl.by = map[int64]*templateSlot{}
	}
	slot, ok := rt.tpl.by[memoryBytes]
	if !ok {
		// Runs choose memoryLimitBytes: bound the templates kept (about
		// 1.3 MiB each). A dropped template stays alive while snapshots of
		// its cells refer to its memory.
		for k := range rt.tpl.by {
			if len(rt.tpl.by) < maxTemplates {
				break
			}
			delete(rt.tpl.by, k)
		}
		slot = &templateSlot{}
		rt.tpl.by[memoryBytes] = slot
	}
	rt.tpl.mu.Unlock()
	slot.once.Do(func() {
		// Booting is not the cell's work: it must not fail because one
		// cell's deadline or abort ended first.
		b := &booted{}
		b.t, slot.err = rt.eng.NewTemplate(context.WithoutCancel(ctx), engine.Limits{MemoryBytes: memoryBytes},
			func(ctx context.Context, vm *engine.VM) (err error) {
				b.br, err = prelude.Load(ctx, vm)
				return err
			})
		if slot.err == nil {
			slot.t = b
		}
	})
	return slot.t, slot.err
}
