package engine_test

import (
	"github.com/codemode-conformance/codemode/reference/engine"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the output sink (CM-EXEC-14)", func() {
	It("hands a string to the VM's sink inside the guest's call, and says whether one took it", func(ctx SpecContext) {
		vm := newVM(ctx)
		Expect(vm.DefineSink(ctx)).To(Succeed())
		call := `String(globalThis.` + engine.SinkName + `("café ☃ \u{1F600}"))`
		Expect(vm.Eval(ctx, call, "t.js")).To(Equal("undefined"), "without a sink nothing takes the string")
		var got []string
		vm.SetSink(func(s string) { got = append(got, s) })
		Expect(vm.Eval(ctx, call, "t.js")).To(Equal("true"), "a sink took the string")
		Expect(got).To(Equal([]string{"café ☃ \U0001F600"}), "the sink gets the string's UTF-8 as written")
		// Taken before a deadline ends the call: nothing waits for a poll.
		_, err := vm.Eval(ctx, `globalThis.`+engine.SinkName+`("before"); for (let i = 0; i < 3; i++) globalThis.`+engine.SinkName+`("n" + i); "done"`, "t.js")
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal([]string{"café ☃ \U0001F600", "before", "n0", "n1", "n2"}), "every call reaches the sink in order")
	})
})
