package engine_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// asyncGeneratorReentry is quickjs-ng #1355's pattern (a then getter on
// Object.prototype that re-enters an async generator while it resolves),
// with each request's promise tracked: the return(1) made inside the getter
// never settles on QuickJS-NG 0.18.0 (issue 25 item 5; ENGINE.md
// "Known engine regressions").
const asyncGeneratorReentry = `globalThis.st = "pending"; globalThis.log = {};
function track(k, p) { log[k] = "pending"; p.then(() => { log[k] = "ok" }, () => { log[k] = "err" }); }
function deferred() { let resolve; const promise = new Promise(f => { resolve = f; }); return { promise, resolve }; }
let it, a, b, c; let getterHit = 0; let inGetter = false;
Object.defineProperty(Object.prototype, "then", { configurable: true, get() {
  if (inGetter || !it) return undefined; inGetter = true;
  try { if (getterHit === 0) { track("r0", it.return(0)); } else if (getterHit === 1) { track("n1", it.next(1)); track("r1", it.return(1)); } getterHit++; } catch (_) {}
  inGetter = false; return undefined; } });
async function* g() { try { await a.promise; yield 1; await b.promise; yield 2; await c.promise; } finally { await c.promise; } }
(async () => { a = deferred(); b = deferred(); c = deferred(); it = g();
  track("n0", it.next()); a.resolve({}); await Promise.resolve(); await Promise.resolve(); b.resolve({}); c.resolve({}); await Promise.resolve(); return "done"; })().then(v => { st = v });
""`

var _ = Describe("known engine regressions (ENGINE.md)", func() {
	It("an async generator's return() requested from a re-entrant then getter never settles (quickjs-ng #1355's pattern)", func(ctx SpecContext) {
		vm := newVM(ctx)
		_, err := vm.Eval(ctx, asyncGeneratorReentry, "t.js")
		Expect(err).NotTo(HaveOccurred())
		_, err = vm.RunJobs(ctx)
		Expect(err).NotTo(HaveOccurred())
		// When this starts to fail, the engine fixed it: update ENGINE.md.
		Expect(vm.Eval(ctx, `delete Object.prototype.then; st + " " + JSON.stringify(log)`, "t.js")).
			To(Equal(`done {"n0":"ok","r0":"ok","n1":"ok","r1":"pending"}`), "no job is left, so r1 is pending for good")
	})
})
