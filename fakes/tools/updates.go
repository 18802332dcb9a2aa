package tools

import (
	"context"
	"errors"
)

// Partial updates (feature streaming, CM-NEST-11): the harness puts an
// updater in the context of each tool.invoke it answers; a Handler calls
// Update to send one partial update (tool.update) while its call is
// outstanding.

type updaterKey struct{}

// ErrNoUpdater: Update was called outside a tool.invoke the harness
// answers.
var ErrNoUpdater = errors.New("tools: no partial-update channel in this context")

// WithUpdater returns ctx carrying send, which sends one partial update of
// the call ctx belongs to.
func WithUpdater(ctx context.Context, send func(partial any) error) context.Context {
	return context.WithValue(ctx, updaterKey{}, send)
}

// Update sends one partial update of the tool call ctx belongs to.
func Update(ctx context.Context, partial any) error {
	send, ok := ctx.Value(updaterKey{}).(func(any) error)
	if !ok {
		return ErrNoUpdater
	}
	return send(partial)
}
