package main

import (
	"context"
	"fmt"
	"time"

	"github.com/codemode-conformance/codemode/reference/engine"
)

func main() {
	ctx := context.Background()
	t := time.Now()
	e, err := engine.New(ctx)
	fmt.Println("new", err, time.Since(t))
	t = time.Now()
	vm, err := e.NewVM(ctx, engine.Limits{MemoryBytes: 64 << 20})
	fmt.Println("vm", err, time.Since(t), vm.MemoryBytes())
	r, err := vm.Eval(ctx, `1+1`, "a.js")
	fmt.Println(r, err)
	r, err = vm.Eval(ctx, `globalThis.x = 0; globalThis.p = (async()=>{ const v = await new Promise(r => globalThis.res = r); x = v*2; })(); "ok"`, "a.js")
	fmt.Println(r, err)
	s, err := vm.Snapshot()
	fmt.Println("snap", len(s.Memory), err)
	vm.Close(ctx)
	t = time.Now()
	vm2, err := e.Restore(ctx, s)
	fmt.Println("restore", err, time.Since(t))
	r, err = vm2.Eval(ctx, `res(21); "delivered"`, "b.js")
	fmt.Println(r, err)
	n, err := vm2.RunJobs(ctx)
	fmt.Println("jobs", n, err)
	r, err = vm2.Eval(ctx, `String(x)`, "b.js")
	fmt.Println("x=", r, err)
	vm2, _ = e.NewVM(ctx, engine.Limits{MemoryBytes: 64 << 20})
	r, err = vm2.Eval(ctx, `import("x").then(()=>0, e=>globalThis.ie=String(e)); 1`, "c.js")
	vm2.RunJobs(ctx)
	r, err = vm2.Eval(ctx, `globalThis.ie`, "c.js")
	fmt.Println("import:", r, err)
	vm2, _ = e.NewVM(ctx, engine.Limits{MemoryBytes: 16 << 20})
	r, err = vm2.Eval(ctx, `try { let a=[]; for(;;) a.push("x".repeat(1000000)) } catch(e) { String(e) }`, "c.js")
	fmt.Println("oom:", r, err, vm2.MemoryBytes())
	r, err = vm2.Eval(ctx, `typeof std + typeof os + typeof process + typeof require + typeof fetch + typeof WebAssembly + typeof console+ typeof print + typeof setTimeout`, "c.js")
	fmt.Println("globals:", r, err)
	tctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	t = time.Now()
	vm2, _ = e.NewVM(ctx, engine.Limits{MemoryBytes: 16 << 20})
	r, err = vm2.Eval(tctx, `while(true){}`, "d.js")
	cancel()
	fmt.Println("loop:", r, err, time.Since(t))
	vm3, _ := e.NewVM(ctx, engine.Limits{MemoryBytes: 64 << 20})
	r, err = vm3.Eval(ctx, `function g(n){return g(n+1)+1}; try { g(0) } catch(e) { String(e) }`, "c.js")
	fmt.Println("recursion2:", r, err)
	vm4, _ := e.NewVM(ctx, engine.Limits{MemoryBytes: 64 << 20})
	r, err = vm4.Eval(ctx, `let o = {}; for (let i=0;i<100000;i++) o = {o}; try { JSON.stringify(o).length } catch(e) { String(e) }`, "c.js")
	fmt.Println("deepjson:", r, err)
}
