package engine_test

import (
	"github.com/codemode-conformance/codemode/reference/engine"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("loop polls (looppoll.go)", func() {
	It("refuse a module they cannot decode, with ErrUnavailable, instead of running it unpolled", func() {
		_, err := engine.AddLoopPolls([]byte("not wasm"))
		Expect(err).To(MatchError(engine.ErrUnavailable))
		// Two bodies: the largest (left as it is, the interpreter's place) and
		// one cut short (a loop without the function's end).
		head := "\x00asm\x01\x00\x00\x00" +
			"\x01\x08\x02\x60\x00\x01\x7f\x60\x00\x00" + // types: () -> i32, () -> ()
			"\x02\x16\x01\x03env\x0ehost_interrupt\x00\x00" + // import env.host_interrupt
			"\x03\x03\x02\x01\x01" + // two functions of type 1
			"\x06\x06\x01\x7f\x01\x41\x00\x0b" // one mutable i32 global
		_, err = engine.AddLoopPolls([]byte(head +
			"\x0a\x0e\x02\x06\x00\x01\x01\x01\x01\x0b" + // body 0: nop ×4
			"\x05\x00\x03\x40\x0b\x0b")) // body 1: loop end
		Expect(err).NotTo(HaveOccurred(), "the same module, whole")
		mod := []byte(head +
			"\x0a\x0d\x02\x06\x00\x01\x01\x01\x01\x0b" + // body 0: nop ×4
			"\x04\x00\x03\x40\x0b") // body 1: loop ... end, the function's end missing
		_, err = engine.AddLoopPolls(mod)
		Expect(err).To(MatchError(engine.ErrUnavailable))
	})
})
