// Package store holds the reference's two guest data stores (feature results
// and feature session-store, page 001): Results, the per-run results store of
// results.save/load/delete (CM-RES-01..03), and Sessions, the committed
// session store of store/load with its per-cell WriteSet (CM-STO-01..04).
// It knows nothing of VMs or the bridge: reference/codemode binds it.
package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
)

// MaxResults is the entry limit of a results store (CM-RES-02).
const MaxResults = 64

// Results is the results store of one admitted catalog lifetime, which in the
// driver protocol is one prepared run (one reply): references expire with it
// (CM-RES-03). The zero value is not usable; use NewResults.
type Results struct {
	mu       sync.Mutex
	maxBytes int64
	used     int64
	entries  map[string][]byte // reference -> compact JSON
	// network holds the references saved from network-controlled content
	// (CM-RES-08): loading one makes the receiving cell's result untrusted.
	network map[string]bool
}

// NewResults returns an empty store holding at most MaxResults entries and
// maxBytes encoded JSON bytes (min(memoryLimitBytes, maxSnapshotBytes)).
func NewResults(maxBytes int64) *Results {
	return &Results{maxBytes: maxBytes, entries: map[string][]byte{}}
}

// Normalise returns v as compact JSON, or ErrNotJSON.
func Normalise(v json.RawMessage) ([]byte, error) {
	if len(bytes.TrimSpace(v)) == 0 || !json.Valid(v) {
		return nil, ErrNotJSON
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return nil, ErrNotJSON
	}
	return b.Bytes(), nil
}

// refSeq numbers references across every store of the process: a reference
// of a cleared or replaced store never names an entry of another one
// (CM-RES-03, CM-RES-07).
var refSeq atomic.Int64

// Save keeps v and returns its reference ("result-<n>", n unique in the
// process); network records that v came from network-controlled content
// (CM-RES-08). A value that would pass either limit is refused with
// ErrResultsFull and nothing changes.
func (r *Results) Save(v json.RawMessage, network bool) (string, error) {
	b, err := Normalise(v)
	if err != nil {
		return "", err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.entries == nil {
		return "", ErrResultsCleared
	}
	if len(r.entries) >= MaxResults {
		return "", fmt.Errorf("%w: %d entries (the limit); delete one first", ErrResultsFull, MaxResults)
	}
	if r.used+int64(len(b)) > r.maxBytes {
		return "", fmt.Errorf("%w: %d of %d bytes used, the value needs %d", ErrResultsFull, r.used, r.maxBytes, len(b))
	}
	ref := fmt.Sprintf("result-%d", refSeq.Add(1))
	r.entries[ref] = b
	r.used += int64(len(b))
	if network {
		if r.network == nil {
			r.network = map[string]bool{}
		}
		r.network[ref] = true
	}
	return ref, nil
}

// Load returns the JSON saved under ref, and whether it came from
// network-controlled content; the caller decodes a detached copy.
func (r *Results) Load(ref string) (v json.RawMessage, network bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.entries == nil {
		return nil, false, fmt.Errorf("%w: %q: %w", ErrUnknownReference, ref, ErrResultsCleared)
	}
	b, ok := r.entries[ref]
	if !ok {
		return nil, false, fmt.Errorf("%w: %q", ErrUnknownReference, ref)
	}
	return append(json.RawMessage(nil), b...), r.network[ref], nil
}

// Delete frees ref's entry and bytes; it reports whether ref existed.
func (r *Results) Delete(ref string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.entries[ref]
	if ok {
		delete(r.entries, ref)
		delete(r.network, ref)
		r.used -= int64(len(b))
	}
	return ok
}

// Clear drops every entry for good (abort, teardown: CM-RES-03); later
// saves are refused.
func (r *Results) Clear() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entries, r.network = nil, nil
	r.used = 0
}
