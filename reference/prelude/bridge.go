package prelude

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode-conformance/codemode/reference/engine"
)

// Bridge is the host's half of the bridge: the prelude's bridge functions,
// held as engine values. Guest code cannot reach them: Load deletes the
// global that exposed them before any guest code runs (CM-SEC-01). The values
// live in the VM's memory, so a Bridge taken in a template serves every VM
// restored from it or from a snapshot of such a VM.
type Bridge struct {
	boot, start, poll, deliver, seal engine.Value
}

// global is the name the prelude exposes its bridge functions under while
// the template boots.
const global = "__codemode"

// Load evaluates the prelude in vm, takes its bridge functions and deletes
// the global that exposed them. Files that extend the prelude are evaluated
// here too, after prelude.js and before the bridge is taken.
func Load(ctx context.Context, vm *engine.VM) (*Bridge, error) {
	if err := vm.DefineSink(ctx); err != nil { // output as it is written (CM-EXEC-14)
		return nil, err
	}
	if err := vm.DefineQuery(ctx); err != nil { // the catalog, kept on the host (index.go)
		return nil, err
	}
	for _, sc := range Scripts { // prelude.js, then its extensions (mcp.go)
		if _, err := vm.Eval(ctx, sc.Source, sc.Filename); err != nil {
			return nil, err
		}
	}
	host, err := vm.Global(ctx, global)
	if err != nil {
		return nil, err
	}
	defer vm.Free(ctx, host)
	b := &Bridge{}
	for _, f := range []struct {
		name string
		v    *engine.Value
	}{{"boot", &b.boot}, {"start", &b.start}, {"poll", &b.poll}, {"deliver", &b.deliver}, {"seal", &b.seal}} {
		if *f.v, err = vm.Get(ctx, host, f.name); err != nil {
			return nil, err
		}
	}
	gone, err := vm.Eval(ctx, `delete globalThis.`+global+` && !("`+global+`" in globalThis)`, "take-bridge")
	if err != nil {
		return nil, err
	}
	if gone != "true" {
		return nil, fmt.Errorf("%w: the prelude's bridge global cannot be removed", engine.ErrUnavailable)
	}
	return b, nil
}

// Boot boots the prelude in a VM restored from the template with the run's
// catalog and limits. It makes cfg's catalog index the VM's query handler;
// a VM restored from a snapshot needs UseIndex again.
func (b *Bridge) Boot(ctx context.Context, vm *engine.VM, cfg Boot) error {
	if cfg.Index == nil {
		cfg.Index = NewCatalogIndex(cfg.Catalog)
	}
	UseIndex(vm, cfg.Index)
	j, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	_, err = vm.CallString(ctx, b.boot, string(j))
	return err
}

// Start compiles the model's code as the body of an async function (so
// top-level await and return work) and starts it. cell is the promise of its
// value, held until the VM is discarded; it is 0 when the code did not start
// (a syntax error: poll reports it).
func (b *Bridge) Start(ctx context.Context, vm *engine.VM, code string) (cell engine.Value, err error) {
	v, err := vm.Call(ctx, b.start, code)
	if err != nil {
		return 0, err
	}
	st, err := vm.PromiseStateOf(ctx, v)
	if err != nil || st == engine.NotAPromise {
		vm.Free(ctx, v)
		return 0, err
	}
	return v, nil
}

// Seal tells the prelude that the cell's value is determined: requests made
// from now on are never sent to the host (CM-NEST-23).
func (b *Bridge) Seal(ctx context.Context, vm *engine.VM) error {
	_, err := vm.CallString(ctx, b.seal)
	return err
}

// Poll returns the poll JSON: everything new since the last poll.
func (b *Bridge) Poll(ctx context.Context, vm *engine.VM) (string, error) {
	return vm.CallString(ctx, b.poll)
}

// Deliver settles ds inside the guest. The deliveries travel as one JSON
// text the prelude parses, so keys such as "__proto__" stay plain data.
func (b *Bridge) Deliver(ctx context.Context, vm *engine.VM, ds []Delivery) error {
	j, err := json.Marshal(ds)
	if err != nil {
		return err
	}
	_, err = vm.CallString(ctx, b.deliver, string(j))
	return err
}

// UseIndex makes x answer vm's catalog queries (nil: none).
func UseIndex(vm *engine.VM, x *CatalogIndex) {
	if x == nil {
		vm.SetQuery(nil)
		return
	}
	vm.SetQuery(x.Answer)
}
