package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// router sends each tool.invoke to the tool set of the run it names.
type router struct {
	mu   sync.Mutex
	runs map[string]*tools.Set
}

func newRouter() *router { return &router{runs: map[string]*tools.Set{}} }

func (r *router) add(run string, s *tools.Set) {
	r.mu.Lock()
	r.runs[run] = s
	r.mu.Unlock()
}

func (r *router) remove(run string) {
	r.mu.Lock()
	delete(r.runs, run)
	r.mu.Unlock()
}

func (r *router) invoke(ctx context.Context, p protocol.InvokeParams) (json.RawMessage, error) {
	r.mu.Lock()
	s, ok := r.runs[p.Run]
	r.mu.Unlock()
	if !ok {
		return nil, protocol.ToolError(fmt.Sprintf("harness: no active run %q", p.Run), nil)
	}
	return s.Invoke(ctx, p)
}
