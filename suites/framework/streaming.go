package framework

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/onsi/ginkgo/v2"
)

// Partial updates (feature streaming, CM-NEST-11, spec/protocol.md §4): a
// harness tool sends tool.update through tools.Update while its
// tool.invoke is outstanding; the tool.progress notifications the target
// forwards are kept per run, in the order they arrived (Run.Progress).

// maxProgress bounds what one run keeps: a hostile target cannot grow it
// without limit.
const maxProgress = 4096

type progressLog struct {
	mu   sync.Mutex
	seen []protocol.ProgressParams
	// changed is closed (and replaced) when a notification is kept.
	changed chan struct{}
}

// progressByRun holds each live run's progressLog by run id; notifications
// naming another run are dropped.
var progressByRun sync.Map

// watchProgress keeps the tool.progress notifications of run id until the
// spec ends.
func watchProgress(id string) {
	progressByRun.Store(id, &progressLog{changed: make(chan struct{})})
	ginkgo.DeferCleanup(func() { progressByRun.Delete(id) })
}

// Progress receives tool.progress notifications (protocol.ProgressSink).
func (runGates) Progress(p protocol.ProgressParams) {
	v, ok := progressByRun.Load(p.Run)
	if !ok {
		return
	}
	l := v.(*progressLog)
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.seen) < maxProgress {
		p.Partial = append(json.RawMessage(nil), p.Partial...)
		l.seen = append(l.seen, p)
		close(l.changed)
		l.changed = make(chan struct{})
	}
}

// AwaitProgress blocks until the target has sent this run a tool.progress
// whose partial is the JSON of want, and reports whether it did before ctx
// ended. A harness tool calls it to hold its result until its update was
// forwarded (CM-NEST-11), so order is observed without sleeps.
func (r *Run) AwaitProgress(ctx context.Context, want any) bool {
	v, ok := progressByRun.Load(r.ID)
	if !ok {
		return false
	}
	l := v.(*progressLog)
	for {
		l.mu.Lock()
		for _, p := range l.seen {
			if SamePartial(p.Partial, want) {
				l.mu.Unlock()
				return true
			}
		}
		changed := l.changed
		l.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}

// SamePartial reports whether raw is the JSON of want (as values: spacing
// and member order do not matter).
func SamePartial(raw json.RawMessage, want any) bool {
	b, err := json.Marshal(want)
	if err != nil {
		return false
	}
	var x, y any
	if json.Unmarshal(raw, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// Progress returns the tool.progress notifications the target sent for
// this run so far, in the order they arrived.
func (r *Run) Progress() []protocol.ProgressParams {
	v, ok := progressByRun.Load(r.ID)
	if !ok {
		return nil
	}
	l := v.(*progressLog)
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]protocol.ProgressParams(nil), l.seen...)
}

// withUpdater gives the tool answering p a way to send its partial updates
// (tools.Update): each is one tool.update naming p's call.
func (r *router) withUpdater(ctx context.Context, p protocol.InvokeParams) context.Context {
	notify := r.notify
	if notify == nil {
		return ctx
	}
	return tools.WithUpdater(ctx, func(partial any) error {
		b, err := json.Marshal(partial)
		if err != nil {
			return err
		}
		return notify(ctx, protocol.MethodToolUpdate, protocol.ToolUpdateParams{Run: p.Run, ToolCallID: p.ToolCallID, Partial: b})
	})
}
