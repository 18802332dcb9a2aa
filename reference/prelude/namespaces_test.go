package prelude_test

import (
	"encoding/json"

	"github.com/codemode-conformance/codemode/reference/prelude"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("namespaces.js", func() {
	It("installs each namespace as a frozen global and namespaces member whose callables send {namespace, path, args}", func(ctx SpecContext) {
		vm := newVM(ctx)
		br, err := prelude.Load(ctx, vm)
		Expect(err).NotTo(HaveOccurred())
		descs := json.RawMessage(`[{"id":"gh","globalName":"Issues","value":{"repo":{"name":"demo"},"list":null,"deep":{"update":null},"items":[1,null]},"callables":[["list"],["deep","update"],["items","1"]]}]`)
		Expect(br.Boot(ctx, vm, prelude.Boot{MaxOutputBytes: 65536, SearchDefaultLimit: 8, MaxSearchLimit: 8, Namespaces: descs})).To(Succeed())

		out, err := vm.Eval(ctx, `JSON.stringify((() => {
  "use strict";
  let assignFails = false;
  try { Issues.list = null; } catch (e) { assignFails = true; }
  let addFails = false;
  try { namespaces.Evil = {}; } catch (e) { addFails = true; }
  Issues.list({state: "open"}, 2); Issues.deep.update(7, {t: 1}); Issues.items[1]();
  return {same: namespaces.Issues === Issues, repo: Issues.repo.name, frozen: Object.isFrozen(Issues) && Object.isFrozen(Issues.repo),
    assignFails, addFails, kit: typeof globalThis.__codemodeNamespaceKit, keys: Object.keys(namespaces), name: Issues.deep.update.name};
})())`, "check")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(MatchJSON(`{"same":true,"repo":"demo","frozen":true,"assignFails":true,"addFails":true,"kit":"undefined","keys":["Issues"],"name":"update"}`))

		raw, err := br.Poll(ctx, vm)
		Expect(err).NotTo(HaveOccurred())
		var p prelude.Poll
		Expect(json.Unmarshal([]byte(raw), &p)).To(Succeed())
		Expect(p.Requests).To(HaveLen(3))
		for i, want := range []struct{ path, args string }{{"list", `[{"state":"open"},2]`}, {"deep.update", `[7,{"t":1}]`}, {"items.1", `[]`}} {
			Expect(p.Requests[i].Op).To(Equal("namespace"))
			Expect(p.Requests[i].Namespace).To(Equal("gh"))
			Expect(p.Requests[i].Path).To(Equal(want.path))
			Expect(p.Requests[i].Args).To(MatchJSON(want.args))
		}
		Expect(p.Counts).To(HaveKeyWithValue("call", 3), "a namespace call counts as a catalog call")
	})

	It("fails the boot when a namespace would replace an existing global", func(ctx SpecContext) {
		vm := newVM(ctx)
		br, err := prelude.Load(ctx, vm)
		Expect(err).NotTo(HaveOccurred())
		err = br.Boot(ctx, vm, prelude.Boot{MaxOutputBytes: 65536, SearchDefaultLimit: 8, MaxSearchLimit: 8,
			Namespaces: json.RawMessage(`[{"id":"x","globalName":"JSON","value":{},"callables":[]}]`)})
		Expect(err).To(HaveOccurred(), "the host refuses such a globalName; the guest builder refuses it too")
	})
})
