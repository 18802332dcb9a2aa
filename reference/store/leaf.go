package store

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// session is a session's identity, without its branch.
type session struct{ id, key string }

// leaf is the live leaf of a session: the branch of its most recently
// prepared run, and how many runs of the session are prepared and not
// ended (the entry goes with the last of them, so the map is bounded by the
// prepared runs).
type leaf struct {
	branch string
	runs   int
}

// Enter records that a run continuing b was prepared: b becomes the live
// leaf of its session (CM-STO-10).
func (s *Sessions) Enter(b Branch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.leaves == nil {
		s.leaves = map[session]*leaf{}
	}
	k := session{b.SessionID, b.SessionKey}
	l := s.leaves[k]
	if l == nil {
		l = &leaf{}
		s.leaves[k] = l
	}
	l.branch = b.Name
	l.runs++
}

// Leave records that a run Enter recorded has ended.
func (s *Sessions) Leave(b Branch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := session{b.SessionID, b.SessionKey}
	if l := s.leaves[k]; l != nil {
		if l.runs--; l.runs <= 0 {
			delete(s.leaves, k)
		}
	}
}

// CheckLeaf returns ErrLeafMismatch unless b is its session's live leaf
// (CM-STO-10).
func (s *Sessions) CheckLeaf(b Branch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.leaves[session{b.SessionID, b.SessionKey}]
	if l == nil || l.branch != b.Name {
		live := "none"
		if l != nil {
			live = fmt.Sprintf("%q", l.branch)
		}
		return fmt.Errorf("%w (run branch %q, live leaf %s)", ErrLeafMismatch, b.Name, live)
	}
	return nil
}

// entryOf is the openclaw.code-mode-store transcript entry of a write set
// (CM-STO-05), with the per-key provenance of its network-controlled sets
// in NetworkContent, sorted (CM-STO-11).
func entryOf(b Branch, sets map[string][]byte, network map[string]bool) protocol.StoreEntry {
	e := protocol.StoreEntry{Type: protocol.StoreEntryType, Branch: b.Name, Sets: map[string]json.RawMessage{}, Deletes: []string{}}
	for k, v := range sets {
		switch {
		case v == nil:
			e.Deletes = append(e.Deletes, k)
		default:
			e.Sets[k] = append([]byte(nil), v...)
			if network[k] {
				e.NetworkContent = append(e.NetworkContent, k)
			}
		}
	}
	sort.Strings(e.Deletes)
	sort.Strings(e.NetworkContent)
	return e
}
