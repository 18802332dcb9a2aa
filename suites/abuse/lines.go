package abuse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// over is how far past the target's maximum the oversized lines go.
const over = 1 << 20

var _ = Describe("abuse", "oversized and unterminated lines", func() {
	It("CM-PROT-01", "a tool.exec over the maximum message size is not run: it gets -32011 with its id and the connection keeps serving", func(ctx SpecContext) {
		c := OpenRaw(ctx)
		limit := maxMessageBytes
		run := prepare(ctx, c, map[string]any{"timeoutMs": 30000})
		head := fmt.Sprintf(`{"jsonrpc":"2.0","id":"oversized","method":%q,"params":{"run":%q,"toolCallId":"oversized","input":{"code":"return 1; //`, protocol.MethodToolExec, run)
		tail := `"}}}` + "\n"
		line := append(append([]byte(head), bytes.Repeat([]byte("a"), limit+over-len(head)-len(tail))...), tail...)
		go func() { _ = c.Write(line) }() // a target that stops reading must not block the spec
		judgeOversized(ctx, c, "oversized", fmt.Sprintf("a %d-byte tool.exec (the maximum is %d)", len(line), limit))
	})

	It("CM-PROT-01", "a line that passes the maximum message size long before its newline is not run: it gets -32011 with its id and the connection keeps serving", func(ctx SpecContext) {
		c := OpenRaw(ctx)
		limit := maxMessageBytes
		head := fmt.Sprintf(`{"jsonrpc":"2.0","id":"unterminated","method":%q,"params":{"pad":"`, protocol.MethodRuntimeStats)
		go func() {
			// In pieces, as a slow peer would send it; the newline comes last.
			chunk := bytes.Repeat([]byte("a"), 1<<20)
			if c.Write([]byte(head)) != nil {
				return
			}
			for sent := len(head); sent < limit+over; sent += len(chunk) {
				if c.Write(chunk) != nil {
					return
				}
			}
			_ = c.Write([]byte(`"}}` + "\n"))
		}()
		judgeOversized(ctx, c, "unterminated", fmt.Sprintf("a line that grew past the maximum (%d bytes) before its newline", limit))
	})
})

// errMessageTooLarge is protocol.md §1's code for a message over the
// receiver's maximum size.
const errMessageTooLarge = protocol.ErrMessageTooLarge

// judgeOversized waits for the target's answer to the oversized request
// with id (an error with id null counts as its answer too, to be judged)
// and judges it: protocol.md §1 wants -32011 with the request's id (its
// first 4 KiB show it) and a connection that keeps serving; a result means
// the target ran it.
func judgeOversized(ctx context.Context, c *RawConn, id, what string) {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	m, err := c.WaitFor(cctx, func(m RawMessage) bool {
		return m.IsResponse() && (m.HasID(id) || len(m.ID) == 0 || string(m.ID) == "null")
	})
	if errors.Is(err, ErrRawClosed) {
		ginkgo.Fail(fmt.Sprintf("%s must get error %d and leave the connection usable; the target closed the connection instead: %v", what, errMessageTooLarge, err))
	}
	Expect(err).NotTo(HaveOccurred(), "%s must get error %d", what, errMessageTooLarge)
	Expect(m.Error).NotTo(BeNil(), "%s must not be run: it got a result instead of error %d: %s", what, errMessageTooLarge, m)
	Expect(m.Error.Code).To(Equal(errMessageTooLarge), "%s must get error %d (message too large): %s", what, errMessageTooLarge, m)
	Expect(m.HasID(id)).To(BeTrue(), "the error for %s must carry the request's id %q, which its first 4 KiB show: %s", what, id, m)
	expectServing(ctx, c, what)
}
