package engine

// IdleInstances is how many instances are kept for reuse (instances.go),
// over every runtime of e.
func (e *Engine) IdleInstances() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, rt := range e.runtimes {
		rt.mu.Lock()
		n += len(rt.idle)
		rt.mu.Unlock()
	}
	return n
}

// WithPolls chooses the deadline machinery for benchmarks that compare it:
// loop polls in the wasm (addLoopPolls) and listeners on bulkPolls.
func WithPolls(loop, bulk bool) Option {
	return func(o *options) { o.noLoopPolls, o.bulkPolls = !loop, bulk }
}

// AddLoopPolls is addLoopPolls, for its fail-closed test.
var AddLoopPolls = addLoopPolls
