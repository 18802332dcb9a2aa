package store

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestResultsLimits pins CM-RES-02: 64 entries, the byte budget, a refused
// save keeps what is there, a delete frees both.
func TestResultsLimits(t *testing.T) {
	r := NewResults(100)
	var refs []string
	for i := 0; i < MaxResults; i++ {
		ref, err := r.Save(json.RawMessage(`1`))
		if err != nil {
			t.Fatalf("save %d: %v", i, err)
		}
		refs = append(refs, ref)
	}
	if _, err := r.Save(json.RawMessage(`2`)); !errors.Is(err, ErrResultsFull) {
		t.Fatalf("the 65th save: got %v, want ErrResultsFull", err)
	}
	if v, err := r.Load(refs[0]); err != nil || string(v) != "1" {
		t.Fatalf("a refused save must keep the entries: %s %v", v, err)
	}
	if !r.Delete(refs[1]) {
		t.Fatal("delete of a saved reference reported false")
	}
	if _, err := r.Save(json.RawMessage(`3`)); err != nil {
		t.Fatalf("a delete must free an entry: %v", err)
	}

	b := NewResults(10)
	big := json.RawMessage(`"` + strings.Repeat("x", 7) + `"`) // 9 bytes
	ref, err := b.Save(big)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Save(json.RawMessage(`"ab"`)); !errors.Is(err, ErrResultsFull) {
		t.Fatalf("a save past the byte budget: got %v, want ErrResultsFull", err)
	}
	b.Delete(ref)
	if _, err := b.Save(json.RawMessage(`"ab"`)); err != nil {
		t.Fatalf("a delete must free its bytes: %v", err)
	}
	b.Clear()
	if _, err := b.Load(ref); !errors.Is(err, ErrUnknownReference) {
		t.Fatalf("after Clear: got %v, want ErrUnknownReference", err)
	}
}

// TestSessionsCommit pins CM-STO-02/03 and read-your-writes: a write set is
// seen by its cell, committed only by Commit, and only on its branch.
func TestSessionsCommit(t *testing.T) {
	var s Sessions
	b1, b2 := Branch{"s", "k", "b1"}, Branch{"s", "k", "b2"}
	var w WriteSet
	if err := w.Set("k", json.RawMessage(` {"a": 1} `), 100); err != nil {
		t.Fatal(err)
	}
	if v, f, _ := s.Load(b1, &w, "k"); !f || string(v) != `{"a":1}` {
		t.Fatalf("the cell must read its own write: %s %v", v, f)
	}
	if _, f, _ := s.Load(b1, nil, "k"); f {
		t.Fatal("an uncommitted write is visible to another cell")
	}
	var failed WriteSet
	_ = failed.Set("gone", json.RawMessage(`1`), 100)
	s.Discard(b1, &failed)
	s.Commit(b1, &w)
	if _, f, _ := s.Load(b1, nil, "gone"); f {
		t.Fatal("a discarded write set was committed")
	}
	if _, f, _ := s.Load(b1, nil, "k"); !f {
		t.Fatal("a committed write is not visible on its branch")
	}
	if _, f, _ := s.Load(b2, nil, "k"); f {
		t.Fatal("a committed write is visible on another branch")
	}
	var del WriteSet
	_ = del.Set("k", nil, 100)
	if _, f, _ := s.Load(b1, &del, "k"); f {
		t.Fatal("the cell's own delete must hide the committed value")
	}
	if err := del.Set("k", json.RawMessage(`"toolong"`), 3); !errors.Is(err, ErrValueTooLarge) {
		t.Fatalf("got %v, want ErrValueTooLarge", err)
	}
	if err := del.Set("", json.RawMessage(`1`), 3); !errors.Is(err, ErrBadKey) {
		t.Fatalf("got %v, want ErrBadKey", err)
	}
}
