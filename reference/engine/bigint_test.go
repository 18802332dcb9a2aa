package engine_test

import (
	"fmt"

	"github.com/codemode-conformance/codemode/reference/engine"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The BigInt size cap (bigint.go, issue 25 item 3): QuickJS's own RangeError,
// at BigIntMaxBits instead of 2^20 bits.
var _ = Describe("BigInt size cap", func() {
	It("throws QuickJS's RangeError for a BigInt past BigIntMaxBits, whatever makes it", func(ctx SpecContext) {
		vm := newVM(ctx)
		m := engine.BigIntMaxBits
		Expect(vm.Eval(ctx, fmt.Sprintf(`String((1n << %dn) > 0n)`, m-64), "t.js")).To(Equal("true"), "a BigInt just under the cap is made")
		for _, code := range []string{
			fmt.Sprintf(`1n << %dn`, m),
			fmt.Sprintf(`{ const x = 1n << %dn; x * x }`, m/2+64),
			fmt.Sprintf(`3n ** %dn`, m),
			fmt.Sprintf(`BigInt("9".repeat(%d))`, m/2),
			fmt.Sprintf(`eval("1" + "0".repeat(%d) + "n")`, m/2),
			`String((1n << 1040000n) - 1n)`, // issue 25's cell: 12 s of native code without the cap
		} {
			_, err := vm.Eval(ctx, `try { `+code+`; "made" } catch (e) { e instanceof RangeError ? "range" : String(e) }`, "t.js")
			Expect(err).NotTo(HaveOccurred(), code)
			Expect(vm.Eval(ctx, `try { `+code+`; "made" } catch (e) { e instanceof RangeError ? e.message : String(e) }`, "t.js")).
				To(Equal("BigInt is too large to allocate"), code)
		}
	})
})
