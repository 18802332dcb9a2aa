package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// bounded runs invoke, nested call callID of the cell to catalog id
// toolID (a harness tool or an MCP tool), with a deadline of its own:
// snapshotTtlSeconds after it was sent (spec/protocol.md §4, "Nested call
// deadline"). A call the host never answers then rejects in the guest, and
// tool.cancel tells the host, instead of keeping the cell waiting on every
// wait for as long as the model goes on calling it.
func (c *Calls) bounded(callID, toolID string, invoke Invoke) (json.RawMessage, error) {
	ttl := time.Duration(c.cfg.Run.SnapshotTTLSeconds) * time.Second
	ctx, cancel := context.WithTimeout(c.ctx, ttl)
	defer cancel()
	v, err := invoke(ctx)
	if err != nil && c.ctx.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, &ToolError{Message: fmt.Sprintf("nested tool call %s (%s) got no answer within snapshotTtlSeconds (%d s) and was canceled",
			callID, toolID, c.cfg.Run.SnapshotTTLSeconds)}
	}
	return v, err
}
