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
	t    *engine.Template
	err  error
}

// template returns the booted template for a memory limit, booting it on
// first use. A failed boot is remembered: the engine is then unavailable for
// that limit.
func (rt *Runtime) template(ctx context.Context, memoryBytes int64) (*engine.Template, error) {
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
		slot.t, slot.err = rt.eng.NewTemplate(context.WithoutCancel(ctx), engine.Limits{MemoryBytes: memoryBytes}, bootPrelude)
	})
	return slot.t, slot.err
}

func bootPrelude(ctx context.Context, vm *engine.VM) error {
	for _, sc := range prelude.Scripts {
		if _, err := vm.Eval(ctx, sc.Source, sc.Filename); err != nil {
			return err
		}
	}
	return nil
}
