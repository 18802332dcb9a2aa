package abuse

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

// floodSize is the number of requests or notifications of one flood.
const floodSize = 5000

var _ = Describe("abuse", "floods", func() {
	It("CM-PROT-02", "thousands of pipelined requests are each answered once, and a trivial cell runs afterwards", func(ctx SpecContext) {
		c := OpenRaw(ctx)
		var buf bytes.Buffer
		ids := make([]string, floodSize)
		for i := range ids {
			ids[i] = fmt.Sprintf("flood-%d", i)
			fmt.Fprintf(&buf, `{"jsonrpc":"2.0","id":%q,"method":%q}`+"\n", ids[i], protocol.MethodRuntimeStats)
		}
		go func() { _ = c.Write(buf.Bytes()) }() // the target may read slower than we write
		count := func() map[string]int {
			seen := map[string]int{}
			for _, m := range c.Received() {
				if m.IsResponse() {
					seen[string(m.ID)]++
				}
			}
			return seen
		}
		Eventually(func() int {
			stopIfClosed(c, "during the flood of pipelined requests")
			return len(count())
		}).WithTimeout(2*time.Minute).WithPolling(100*time.Millisecond).Should(BeNumerically(">=", floodSize),
			"each of %d pipelined runtime.stats requests must be answered", floodSize)
		for id, n := range Sorted(count()) {
			Expect(n).To(Equal(1), "request %s of the flood must be answered exactly once", id)
		}
		expectServing(ctx, c, fmt.Sprintf("%d pipelined requests", floodSize))
	})

	It("CM-PROT-02", "a flood of notifications gets no answers, and a trivial cell runs afterwards", func(ctx SpecContext) {
		c := OpenRaw(ctx)
		from := len(c.Received())
		var buf bytes.Buffer
		for i := 0; i < floodSize; i++ {
			method := protocol.MethodRuntimeStats
			if i%2 == 1 {
				method = "abuse.no_such_notification"
			}
			fmt.Fprintf(&buf, `{"jsonrpc":"2.0","method":%q}`+"\n", method)
		}
		go func() { _ = c.Write(buf.Bytes()) }()
		expectServing(ctx, c, fmt.Sprintf("%d notifications", floodSize))
		// The probe answered after the flood: anything the target meant to
		// send for the notifications it read first is out by now or lost.
		// An error answer (runtime.stats not drivable) orders as well.
		answered(ctx, c, protocol.MethodRuntimeStats)
		for _, m := range c.Received()[from:] {
			Expect(m.IsResponse() && (len(m.ID) == 0 || string(m.ID) == "null")).To(BeFalse(),
				"a notification must never be answered (JSON-RPC 2.0 §4.1), got: %s", m)
		}
	})

	It("CM-PROT-02", "requests that reuse an id are answered or refused, and a trivial cell runs afterwards", func(ctx SpecContext) {
		c := OpenRaw(ctx)
		// The liveVMs baseline protects the next spec, it is not what this
		// one judges: a target without runtime.stats is judged without it.
		withStats := Drivable(protocol.SurfaceStats)
		var base protocol.Stats
		if withStats {
			base = stats(ctx, c)
		}
		run := prepare(ctx, c, map[string]any{"timeoutMs": 10000})
		var buf bytes.Buffer
		const pairs = 200
		for i := 0; i < pairs; i++ {
			// The same id twice in a row, the first a cell that takes a
			// moment, so that both are in flight at once.
			fmt.Fprintf(&buf, `{"jsonrpc":"2.0","id":"dup-%d","method":%q,"params":{"run":%q,"toolCallId":"dup-%d-a","input":{"code":"let s = 0; for (let i = 0; i < 1e4; i++) s += i; return s"}}}`+"\n", i, protocol.MethodToolExec, run, i)
			fmt.Fprintf(&buf, `{"jsonrpc":"2.0","id":"dup-%d","method":%q}`+"\n", i, protocol.MethodRuntimeStats)
		}
		go func() { _ = c.Write(buf.Bytes()) }()
		answered := func() int {
			stopIfClosed(c, "during the requests that reuse ids")
			seen := map[string]bool{}
			for _, m := range c.Received() {
				if m.IsResponse() && bytes.HasPrefix(m.ID, []byte(`"dup-`)) {
					seen[string(m.ID)] = true
				}
			}
			return len(seen)
		}
		Eventually(answered).WithTimeout(2*time.Minute).WithPolling(100*time.Millisecond).Should(Equal(pairs),
			"each of %d reused ids must get at least one answer (a result or an error)", pairs)
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		_, err := c.Call(cctx, protocol.MethodRunEnd, protocol.RunParams{Run: run})
		Expect(err).NotTo(HaveOccurred(), "run.end after the reused ids must be answered")
		expectServing(ctx, c, fmt.Sprintf("%d reused ids", pairs))
		// A cell whose id a runtime.stats reused may still run; the next
		// spec's baseline of liveVMs (counted over the process) must not
		// catch it.
		if withStats {
			Eventually(func() int { return stats(ctx, c).LiveVMs }).WithTimeout(30*time.Second).Should(BeNumerically("<=", base.LiveVMs),
				"every cell of the reused ids must end once its run ended")
		}
	})
})

// stopIfClosed ends an Eventually at once, failing it, when the target
// closed c: no answer can come any more.
func stopIfClosed(c *RawConn, when string) {
	if c.Closed() {
		StopTrying("the target closed the connection " + when).Now()
	}
}
