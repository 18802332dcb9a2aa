package engine_test

import (
	"context"

	"github.com/codemode-conformance/codemode/reference/engine"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// QuickJS-NG checks its stack under WASI once JS_SetMaxStackSize is set
// (quickjs-wasi's README says it is disabled there; it is not, in 3.7.0):
// without the limit each of these recursions traps (the shadow stack runs
// below address 0: "out of bounds memory access").
var _ = Describe("stack limit", func() {
	It("makes unbounded recursion a catchable RangeError, also in a VM restored from a template (CM-EXEC-23)", func(ctx SpecContext) {
		tpl, err := eng.NewTemplate(ctx, engine.Limits{MemoryBytes: 64 << 20}, func(context.Context, *engine.VM) error { return nil })
		Expect(err).NotTo(HaveOccurred())
		cases := []string{
			`function f(n) { return f(n + 1) + 1; } f(0)`,
			`const o = {get x() { return this.x; }}; o.x`,
			`const o = {}; o.toString = () => String(o); String(o)`,
			`const p = new Proxy({}, {get(t, k, r) { return r[k]; }}); p.x`,
			`let a = []; for (let i = 0; i < 1e5; i++) a = [a]; JSON.stringify(a)`,
			`JSON.parse("[".repeat(1e5) + "]".repeat(1e5))`,
			`new Function("return " + "(".repeat(1e5) + "1" + ")".repeat(1e5))()`,
			`class C { constructor() { new C(); } } new C()`,
		}
		for _, c := range cases {
			for _, fresh := range []bool{true, false} {
				var vm *engine.VM
				if fresh {
					vm, err = eng.NewVM(ctx, engine.Limits{MemoryBytes: 64 << 20})
				} else {
					vm, err = tpl.NewVM(ctx)
				}
				Expect(err).NotTo(HaveOccurred())
				src := "let r; try { (0, eval)(" + jsString(c) + "); r = 'no error' } catch (e) { r = (e instanceof RangeError) + ': ' + e.message } r"
				got, err := vm.Eval(ctx, src, "t.js")
				Expect(err).NotTo(HaveOccurred(), "%s (fresh VM %v): the recursion must be a JavaScript exception, not a trap", c, fresh)
				Expect(got).To(Equal("true: Maximum call stack size exceeded"), "%s (fresh VM %v): the guest must catch a RangeError", c, fresh)
				Expect(vm.Eval(ctx, `40 + 2`, "t.js")).To(Equal("42"), "%s: the VM must stay usable", c)
				vm.Close(ctx)
			}
		}
	})
})

func jsString(s string) string {
	b := []byte{'"'}
	for _, c := range []byte(s) {
		if c == '"' || c == '\\' {
			b = append(b, '\\')
		}
		b = append(b, c)
	}
	return string(append(b, '"'))
}
