package framework

import "github.com/codemode-conformance/codemode/fakes/tools"

// ServeTools answers the target's tool.invoke calls for run from set, and
// its tool.cancel notifications, until stop is called. NewRun does this for
// specs; callers that drive runs outside a spec (the bench command) use it
// directly.
func (t *Target) ServeTools(run string, set *tools.Set) (stop func()) {
	t.router.add(run, set)
	return func() { t.router.remove(run) }
}
