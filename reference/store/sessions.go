package store

import (
	"encoding/json"
	"fmt"
	"sync"
)

// MaxKeyBytes bounds a session store key.
const MaxKeyBytes = 256

// Branch identifies one session branch: the session (id and key) and the
// branch of its transcript (protocol.Session.Branch). Values committed under
// one Branch are never visible under another (CM-STO-03).
type Branch struct {
	SessionID, SessionKey, Name string
}

// Sessions holds the committed values of every session branch of a process.
// The zero value is ready to use.
type Sessions struct {
	mu sync.Mutex
	by map[Branch]map[string][]byte
}

// WriteSet is one cell's uncommitted writes: sets and deletes by key. It
// lives with the cell on the host, so it survives suspend and resume
// (CM-STO-01), and is committed only when the cell completes (CM-STO-02).
type WriteSet struct {
	mu   sync.Mutex
	sets map[string][]byte // nil value: deleted
}

// CheckKey validates a store key.
func CheckKey(key string) error {
	if key == "" || len(key) > MaxKeyBytes {
		return ErrBadKey
	}
	return nil
}

// Set buffers key = v (v nil deletes key).
func (w *WriteSet) Set(key string, v json.RawMessage, maxBytes int64) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	var b []byte
	if v != nil {
		var err error
		if b, err = Normalise(v); err != nil {
			return err
		}
		if int64(len(b)) > maxBytes {
			return fmt.Errorf("%w: %d bytes, the budget is %d", ErrValueTooLarge, len(b), maxBytes)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sets == nil {
		w.sets = map[string][]byte{}
	}
	w.sets[key] = b
	return nil
}

// Empty reports whether the cell wrote nothing.
func (w *WriteSet) Empty() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.sets) == 0
}

// Load returns key's value on branch b as the cell sees it: its own
// uncommitted sets and deletes over the committed values. found is false for
// a key never set or deleted.
func (s *Sessions) Load(b Branch, w *WriteSet, key string) (v json.RawMessage, found bool, err error) {
	if err := CheckKey(key); err != nil {
		return nil, false, err
	}
	if w != nil {
		w.mu.Lock()
		own, ok := w.sets[key]
		w.mu.Unlock()
		if ok {
			return append(json.RawMessage(nil), own...), own != nil, nil
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.by[b][key]
	if !ok {
		return nil, false, nil
	}
	return append(json.RawMessage(nil), c...), true, nil
}

// Discard drops w: its cell did not complete (CM-STO-02).
func (s *Sessions) Discard(_ Branch, w *WriteSet) {
	w.mu.Lock()
	w.sets = nil
	w.mu.Unlock()
}

// Commit applies w to branch b. Only a completed cell's write set is
// committed (the caller's duty, CM-STO-02); an empty one changes nothing.
func (s *Sessions) Commit(b Branch, w *WriteSet) {
	if w == nil {
		return
	}
	w.mu.Lock()
	sets := w.sets
	w.sets = nil
	w.mu.Unlock()
	if len(sets) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.by == nil {
		s.by = map[Branch]map[string][]byte{}
	}
	m := s.by[b]
	if m == nil {
		m = map[string][]byte{}
		s.by[b] = m
	}
	for k, v := range sets {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
}
