package store

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// MaxKeyBytes bounds a session store key.
const MaxKeyBytes = 256

// Bounds of the session store (hardening; protocol.md §5.7): one cell may
// write at most MaxCellKeys keys and its budget of bytes (keys and values),
// and the committed keys and values of every branch of the process together
// stay within MaxProcessBytes. Past either, store() rejects with
// ErrStoreFull and nothing of the cell's earlier writes is lost.
const (
	MaxCellKeys     = 1024
	MaxProcessBytes = 256 << 20
)

// KeyOverhead is what a committed key costs beyond its bytes and its
// value's: the map entry, the string and slice headers and allocation
// rounding. Without it a replayed transcript of ~900k one-byte keys (13 MB of
// JSON, under the message bound) was counted as 3.6 MB against
// MaxProcessBytes but held ~240 MB, so a few branches took a gigabyte.
const KeyOverhead = 128

// heldBytes is what key k with value v counts against MaxProcessBytes.
func heldBytes(k string, v []byte) int64 { return int64(len(k)+len(v)) + KeyOverhead }

// committed is the bytes (keys and values) committed in every Sessions of
// the process.
var committed atomic.Int64

// CommittedBytes is the bytes the session stores of the process hold.
func CommittedBytes() int64 { return committed.Load() }

// Branch identifies one session branch: the session (id and key) and the
// branch of its transcript (protocol.Session.Branch). Values committed under
// one Branch are never visible under another (CM-STO-03).
type Branch struct {
	SessionID, SessionKey, Name string
}

// Sessions holds the committed values of every session branch of a process.
// The zero value is ready to use.
type Sessions struct {
	mu     sync.Mutex
	by     map[Branch]map[string][]byte
	leaves map[session]*leaf // leaf.go
	// network holds, per branch, the committed keys whose value came from
	// network-controlled content (CM-STO-11).
	network map[Branch]map[string]bool
}

// WriteSet is one cell's uncommitted writes: sets and deletes by key. It
// lives with the cell on the host, so it survives suspend and resume
// (CM-STO-01), and is committed only when the cell completes (CM-STO-02).
type WriteSet struct {
	mu    sync.Mutex
	sets  map[string][]byte // nil value: deleted
	bytes int64             // keys and values in sets
	// network holds the keys of sets whose value came from
	// network-controlled content (CM-STO-11).
	network map[string]bool
}

// CheckKey validates a store key.
func CheckKey(key string) error {
	if key == "" || len(key) > MaxKeyBytes {
		return ErrBadKey
	}
	return nil
}

// Set buffers key = v (v nil deletes key); network records that v came
// from network-controlled content (CM-STO-11).
func (w *WriteSet) Set(key string, v json.RawMessage, network bool, maxBytes int64) error {
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
	old, had := w.sets[key]
	next := w.bytes + int64(len(key)+len(b))
	if had {
		next -= int64(len(key) + len(old))
	}
	switch {
	case !had && len(w.sets) >= MaxCellKeys:
		return fmt.Errorf("%w: a cell may write at most %d keys", ErrStoreFull, MaxCellKeys)
	case next > maxBytes:
		return fmt.Errorf("%w: the cell's writes would hold %d bytes, the budget is %d", ErrStoreFull, next, maxBytes)
	case committed.Load()+next > MaxProcessBytes:
		return fmt.Errorf("%w: the process's session stores hold %d bytes, at most %d", ErrStoreFull, committed.Load(), MaxProcessBytes)
	}
	if w.sets == nil {
		w.sets = map[string][]byte{}
	}
	w.sets[key] = b
	w.bytes = next
	delete(w.network, key)
	if network && b != nil {
		if w.network == nil {
			w.network = map[string]bool{}
		}
		w.network[key] = true
	}
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
// a key never set or deleted; network is true for a value that came from
// network-controlled content (CM-STO-11).
func (s *Sessions) Load(b Branch, w *WriteSet, key string) (v json.RawMessage, found, network bool, err error) {
	if err := CheckKey(key); err != nil {
		return nil, false, false, err
	}
	if w != nil {
		w.mu.Lock()
		own, ok := w.sets[key]
		net := w.network[key]
		w.mu.Unlock()
		if ok {
			return append(json.RawMessage(nil), own...), own != nil, net, nil
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.by[b][key]
	if !ok {
		return nil, false, false, nil
	}
	return append(json.RawMessage(nil), c...), true, s.network[b][key], nil
}

// Discard drops w: its cell did not complete (CM-STO-02).
func (s *Sessions) Discard(_ Branch, w *WriteSet) {
	w.mu.Lock()
	w.sets, w.bytes, w.network = nil, 0, nil
	w.mu.Unlock()
}

// Commit applies w to branch b. Only a completed cell's write set is
// committed (the caller's duty, CM-STO-02); an empty one changes nothing.
// The write set first becomes one openclaw.code-mode-store transcript entry
// handed to appendEntry (CM-STO-05); when the append fails, the committed
// values stay as they were and the error, wrapping ErrAppendFailed, is
// returned (CM-STO-06). w is empty afterwards either way.
func (s *Sessions) Commit(b Branch, w *WriteSet, appendEntry func(protocol.StoreEntry) error) error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	sets, network := w.sets, w.network
	w.sets, w.bytes, w.network = nil, 0, nil
	w.mu.Unlock()
	if len(sets) == 0 {
		return nil
	}
	if err := appendEntry(entryOf(b, sets, network)); err != nil {
		return fmt.Errorf("%w: %v", ErrAppendFailed, err)
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
		if old, ok := m[k]; ok {
			committed.Add(-heldBytes(k, old))
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
			committed.Add(heldBytes(k, v))
		}
	}
	if len(m) == 0 {
		delete(s.by, b)
	}
	s.setNetwork(b, sets, network)
	return nil
}

// Release drops every committed value of s (its runtime closed), so that
// they no longer count against MaxProcessBytes.
func (s *Sessions) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.by {
		for k, v := range m {
			committed.Add(-heldBytes(k, v))
		}
	}
	s.by, s.network = nil, nil
}

// setNetwork records the provenance of the keys of sets on branch b: a key
// set from network-controlled content (network) is marked, any other key of
// sets, deleted or set from trusted content, is not (CM-STO-11). The caller
// holds s.mu.
func (s *Sessions) setNetwork(b Branch, sets map[string][]byte, network map[string]bool) {
	m := s.network[b]
	for k, v := range sets {
		switch {
		case v != nil && network[k]:
			if m == nil {
				m = map[string]bool{}
				if s.network == nil {
					s.network = map[Branch]map[string]bool{}
				}
				s.network[b] = m
			}
			m[k] = true
		case m != nil:
			delete(m, k)
		}
	}
	if m != nil && len(m) == 0 {
		delete(s.network, b)
	}
}
