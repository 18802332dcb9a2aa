package main_test

import (
	"os"

	"github.com/codemode-conformance/codemode/reference/engine"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("codemode-conformance version", Label("version"), func() {
	It("prints the harness, catalogue, protocol and engine versions and the wasm's sha256", func() {
		o := invoke(os.Environ(), "version")
		Expect(o.Code).To(Equal(0), "version exits 0; stderr: %s", o.Stderr)
		Expect(o.Stdout).To(MatchRegexp(`(?m)^codemode-conformance \S+\ncatalogue: \d+\nprotocol: 1\nengine: QuickJS-NG `+engine.Version),
			"version prints its four lines in order")
		Expect(o.Stdout).To(ContainSubstring("quickjs.wasm sha256 "+engine.WasmSHA256), "the test build embeds the pinned engine")
	})
})
