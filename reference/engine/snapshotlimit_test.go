package engine_test

import (
	"github.com/codemode-conformance/codemode/reference/engine"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("SnapshotWithin", func() {
	It("stops at its bound instead of copying the whole heap (CM-RUN-04)", func(ctx SpecContext) {
		vm := newVM(ctx)
		_, err := vm.Eval(ctx, `globalThis.keep = new Uint8Array(4 << 20).fill(7); 1`, "t.js")
		Expect(err).NotTo(HaveOccurred())
		_, err = vm.SnapshotWithin(1 << 20)
		Expect(err).To(MatchError(engine.ErrSnapshotTooLarge), "4 MiB of live state against a 1 MiB bound")
		s, err := vm.SnapshotWithin(16 << 20)
		Expect(err).NotTo(HaveOccurred(), "the same VM within a 16 MiB bound")
		Expect(s.Bytes()).To(BeNumerically(">", 4<<20), "the snapshot holds the 4 MiB of live state")
	})
})
