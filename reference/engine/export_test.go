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
