package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// invokeBounded runs nested call p of cell c with a deadline of its own:
// snapshotTtlSeconds after it was sent (spec/protocol.md §4, "Nested call
// deadline"). A call the host never answers then rejects in the guest, and
// tool.cancel tells the host, instead of keeping the cell waiting on every
// wait for as long as the model goes on calling it.
func (s *step) invokeBounded(c *cell, p protocol.InvokeParams) (json.RawMessage, error) {
	ttl := time.Duration(c.run.cfg.SnapshotTTLSeconds) * time.Second
	ctx, cancel := context.WithTimeout(c.callCtx, ttl)
	defer cancel()
	v, err := s.rt.inv.Invoke(ctx, p)
	if err != nil && c.callCtx.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, &ToolError{Message: fmt.Sprintf("nested tool call %s (%s) got no answer within snapshotTtlSeconds (%d s) and was canceled",
			p.ToolCallID, p.CatalogID, c.run.cfg.SnapshotTTLSeconds)}
	}
	return v, err
}
