package store

import (
	"encoding/json"
	"fmt"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// ParseTranscript checks a run.prepare session transcript and returns its
// openclaw.code-mode-store entries in order (CM-STO-08): every element must
// be an object with a string type; a store entry must have valid keys and
// JSON values. Other entries are skipped.
func ParseTranscript(raw []json.RawMessage) ([]protocol.StoreEntry, error) {
	if len(raw) > protocol.MaxTranscriptEntries {
		return nil, fmt.Errorf("session.transcript: %d entries, at most %d", len(raw), protocol.MaxTranscriptEntries)
	}
	var out []protocol.StoreEntry
	for i, r := range raw {
		var head struct {
			Type *string `json:"type"`
		}
		if err := json.Unmarshal(r, &head); err != nil || head.Type == nil {
			return nil, fmt.Errorf("session.transcript[%d]: must be an object with a string type", i)
		}
		if *head.Type != protocol.StoreEntryType {
			continue
		}
		var e protocol.StoreEntry
		if err := json.Unmarshal(r, &e); err != nil {
			return nil, fmt.Errorf("session.transcript[%d]: %s entry: %v", i, protocol.StoreEntryType, err)
		}
		for k, v := range e.Sets {
			if CheckKey(k) != nil || !json.Valid(v) || len(v) == 0 {
				return nil, fmt.Errorf("session.transcript[%d]: sets[%q]: %w or the value is not JSON", i, k, ErrBadKey)
			}
		}
		for _, k := range e.Deletes {
			if err := CheckKey(k); err != nil {
				return nil, fmt.Errorf("session.transcript[%d]: deletes: %w", i, err)
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// Replay makes the committed values of branch b exactly what entries, in
// order, leave (CM-STO-08): the transcript is the persistence, the values
// here its projection. Past MaxProcessBytes it returns ErrStoreFull and
// changes nothing.
func (s *Sessions) Replay(b Branch, entries []protocol.StoreEntry) error {
	m := map[string][]byte{}
	network := map[string]bool{} // provenance, as Commit keeps it (CM-STO-11)
	for _, e := range entries {
		for k, v := range e.Sets {
			c, err := Normalise(v)
			if err != nil {
				return err
			}
			m[k] = c
			delete(network, k)
		}
		for _, k := range e.NetworkContent {
			if _, set := e.Sets[k]; set {
				network[k] = true
			}
		}
		for _, k := range e.Deletes {
			delete(m, k)
			delete(network, k)
		}
	}
	var size int64
	for k, v := range m {
		size += heldBytes(k, v)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var old int64
	for k, v := range s.by[b] {
		old += heldBytes(k, v)
	}
	if committed.Load()-old+size > MaxProcessBytes {
		return fmt.Errorf("%w: replaying the transcript needs %d bytes; the process's session stores hold %d, at most %d", ErrStoreFull, size, committed.Load(), MaxProcessBytes)
	}
	committed.Add(size - old)
	if s.by == nil {
		s.by = map[Branch]map[string][]byte{}
	}
	if len(m) == 0 {
		delete(s.by, b)
	} else {
		s.by[b] = m
	}
	delete(s.network, b)
	if len(network) > 0 {
		if s.network == nil {
			s.network = map[Branch]map[string]bool{}
		}
		s.network[b] = network
	}
	return nil
}
