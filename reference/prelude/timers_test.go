package prelude_test

import (
	"encoding/json"

	"github.com/codemode-conformance/codemode/reference/prelude"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("timers.js", func() {
	It("defines no timer globals without config.timers (generation 1: no host timers in the guest)", func(ctx SpecContext) {
		vm := newVM(ctx)
		loadAndBoot(ctx, vm, prelude.Boot{Catalog: catalog, MaxOutputBytes: 65536, SearchDefaultLimit: 8, MaxSearchLimit: 3})
		out, err := vm.Eval(ctx, `JSON.stringify([typeof setTimeout, typeof clearTimeout])`, "probe")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal(`["undefined","undefined"]`), "without config.timers neither global may exist")
	})

	It("sends one timer request per setTimeout and a clearTimer for a timer cleared before it fired", func(ctx SpecContext) {
		vm := newVM(ctx)
		poll := loadAndBoot(ctx, vm, prelude.Boot{Catalog: catalog, MaxOutputBytes: 65536, SearchDefaultLimit: 8, MaxSearchLimit: 3, Timers: true})
		out, err := vm.Eval(ctx, `(() => {
			const a = setTimeout(() => {}, 250.7), b = setTimeout(() => {}, -5);
			setTimeout(() => {}, 1e300); setTimeout(() => {}, 2 ** 63); setTimeout(() => {}, Infinity); setTimeout(() => {}, NaN);
			clearTimeout(b); clearTimeout(b); clearTimeout(99);
			let bad = "none"; try { setTimeout("code", 1); } catch (e) { bad = e.name; }
			return JSON.stringify([a, b, bad, Object.getOwnPropertyDescriptor(globalThis, "setTimeout").writable]);
		})()`, "probe")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal(`[1,2,"TypeError",false]`), "timer numbers, a string callback refused, a read-only global")
		var p prelude.Poll
		Expect(json.Unmarshal([]byte(poll()), &p)).To(Succeed())
		type req struct {
			Op        string
			Timer, Ms int64
		}
		var reqs []req
		for _, r := range p.Requests {
			reqs = append(reqs, req{r.Op, r.Timer, r.Ms})
		}
		Expect(reqs).To(Equal([]req{{prelude.OpTimer, 1, 250}, {prelude.OpTimer, 2, 0},
			{prelude.OpTimer, 3, 86400000}, {prelude.OpTimer, 4, 86400000}, {prelude.OpTimer, 5, 0}, {prelude.OpTimer, 6, 0},
			{prelude.OpClearTimer, 2, 0}}),
			"a timer request per setTimeout (delay floored, negative, NaN and Infinity as 0 as before, huge finite ones clamped to 24 h so that they reach the host as integers), one clearTimer for the cleared timer, none for a repeated or unknown clear")
	})
})
