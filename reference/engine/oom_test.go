package engine_test

import (
	"context"

	"github.com/codemode-conformance/codemode/reference/engine"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("out-of-memory detection", func() {
	DescribeTable("sees an allocation failure whatever the guest does with the error",
		func(ctx SpecContext, src string) {
			vm, err := eng.NewVM(ctx, engine.Limits{MemoryBytes: 8 << 20})
			Expect(err).NotTo(HaveOccurred())
			defer vm.Close(context.Background())
			_, _ = vm.Eval(ctx, src, "oom.js")
			Expect(vm.OutOfMemory()).To(BeTrue())
		},
		Entry("caught, big strings", `try { const k = []; for (;;) k.push("x".repeat(1 << 20) + k.length); } catch (e) { "survived" }`),
		Entry("caught, small objects (QuickJS throws null)", `let keep = []; try { for (;;) keep.push({a: keep.length}); } catch (e) { keep = null; "survived" }`),
		Entry("inside a stack-trace hook", `let out; Error.prepareStackTrace = () => { Error.prepareStackTrace = undefined; try { const k = []; for (;;) k.push("x".repeat(1 << 20) + k.length); } catch (x) { out = "survived"; } return ""; }; new Error(); out`),
		Entry("uncaught", `const k = []; for (;;) k.push("x".repeat(1 << 20) + k.length);`),
	)
	It("is not fooled by a guest-made InternalError or other internal errors", func(ctx SpecContext) {
		vm, err := eng.NewVM(ctx, engine.Limits{MemoryBytes: 8 << 20})
		Expect(err).NotTo(HaveOccurred())
		defer vm.Close(context.Background())
		_, _ = vm.Eval(ctx, `try { throw new InternalError("out of memory"); } catch (e) {} function f() { return f(); } try { f(); } catch (e) {} 1`, "fake.js")
		Expect(vm.OutOfMemory()).To(BeFalse())
	})
})
