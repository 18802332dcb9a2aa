package store

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/google/go-cmp/cmp"
)

// appended is a transcript append that succeeds.
func appended(protocol.StoreEntry) error { return nil }

// TestResultsLimits pins CM-RES-02: 64 entries, the byte budget, a refused
// save keeps what is there, a delete frees both.
func TestResultsLimits(t *testing.T) {
	r := NewResults(100)
	var refs []string
	for i := 0; i < MaxResults; i++ {
		ref, err := r.Save(json.RawMessage(`1`), false)
		if err != nil {
			t.Fatalf("save %d: %v", i, err)
		}
		refs = append(refs, ref)
	}
	if _, err := r.Save(json.RawMessage(`2`), false); !errors.Is(err, ErrResultsFull) {
		t.Fatalf("the 65th save: got %v, want ErrResultsFull", err)
	}
	if v, _, err := r.Load(refs[0]); err != nil || string(v) != "1" {
		t.Fatalf("a refused save must keep the entries: %s %v", v, err)
	}
	if !r.Delete(refs[1]) {
		t.Fatal("delete of a saved reference reported false")
	}
	if _, err := r.Save(json.RawMessage(`3`), false); err != nil {
		t.Fatalf("a delete must free an entry: %v", err)
	}

	b := NewResults(10)
	big := json.RawMessage(`"` + strings.Repeat("x", 7) + `"`) // 9 bytes
	ref, err := b.Save(big, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Save(json.RawMessage(`"ab"`), false); !errors.Is(err, ErrResultsFull) {
		t.Fatalf("a save past the byte budget: got %v, want ErrResultsFull", err)
	}
	b.Delete(ref)
	if _, err := b.Save(json.RawMessage(`"ab"`), false); err != nil {
		t.Fatalf("a delete must free its bytes: %v", err)
	}
	b.Clear()
	if _, _, err := b.Load(ref); !errors.Is(err, ErrUnknownReference) {
		t.Fatalf("after Clear: got %v, want ErrUnknownReference", err)
	}
	if _, _, err := b.Load(ref); !errors.Is(err, ErrResultsCleared) {
		t.Fatalf("after Clear: got %v, want ErrResultsCleared too", err)
	}
	if _, err := b.Save(json.RawMessage(`1`), false); !errors.Is(err, ErrResultsCleared) {
		t.Fatalf("a save after Clear: got %v, want ErrResultsCleared", err)
	}
}

// TestSessionsCommit pins CM-STO-02/03 and read-your-writes: a write set is
// seen by its cell, committed only by Commit, and only on its branch.
func TestSessionsCommit(t *testing.T) {
	var s Sessions
	b1, b2 := Branch{"s", "k", "b1"}, Branch{"s", "k", "b2"}
	var w WriteSet
	if err := w.Set("k", json.RawMessage(` {"a": 1} `), false, 100); err != nil {
		t.Fatal(err)
	}
	if v, f, _, _ := s.Load(b1, &w, "k"); !f || string(v) != `{"a":1}` {
		t.Fatalf("the cell must read its own write: %s %v", v, f)
	}
	if _, f, _, _ := s.Load(b1, nil, "k"); f {
		t.Fatal("an uncommitted write is visible to another cell")
	}
	var failed WriteSet
	_ = failed.Set("gone", json.RawMessage(`1`), false, 100)
	s.Discard(b1, &failed)
	s.Commit(b1, &w, appended)
	if _, f, _, _ := s.Load(b1, nil, "gone"); f {
		t.Fatal("a discarded write set was committed")
	}
	if _, f, _, _ := s.Load(b1, nil, "k"); !f {
		t.Fatal("a committed write is not visible on its branch")
	}
	if _, f, _, _ := s.Load(b2, nil, "k"); f {
		t.Fatal("a committed write is visible on another branch")
	}
	var del WriteSet
	_ = del.Set("k", nil, false, 100)
	if _, f, _, _ := s.Load(b1, &del, "k"); f {
		t.Fatal("the cell's own delete must hide the committed value")
	}
	if err := del.Set("k", json.RawMessage(`"toolong"`), false, 3); !errors.Is(err, ErrValueTooLarge) {
		t.Fatalf("got %v, want ErrValueTooLarge", err)
	}
	if err := del.Set("", json.RawMessage(`1`), false, 3); !errors.Is(err, ErrBadKey) {
		t.Fatalf("got %v, want ErrBadKey", err)
	}
}

// TestSessionStoreBounds pins the session store's bounds (protocol.md §5.7):
// a cell's keys and bytes, and the bytes of the process, which a closed
// runtime's stores give back.
func TestSessionStoreBounds(t *testing.T) {
	var w WriteSet
	for i := 0; i < MaxCellKeys; i++ {
		if err := w.Set("k"+strconv.Itoa(i), json.RawMessage(`1`), false, 1<<20); err != nil {
			t.Fatalf("key %d: %v", i, err)
		}
	}
	if err := w.Set("one-more", json.RawMessage(`1`), false, 1<<20); !errors.Is(err, ErrStoreFull) {
		t.Fatalf("key %d: got %v, want ErrStoreFull", MaxCellKeys+1, err)
	}
	if err := w.Set("k0", json.RawMessage(`2`), false, 1<<20); err != nil {
		t.Fatalf("overwriting a key the cell wrote is no new key: %v", err)
	}

	var v WriteSet
	big := json.RawMessage(`"` + strings.Repeat("y", 600) + `"`)
	if err := v.Set("a", big, false, 1000); err != nil {
		t.Fatal(err)
	}
	if err := v.Set("b", big, false, 1000); !errors.Is(err, ErrStoreFull) {
		t.Fatalf("a second 600-byte value within a 1000-byte budget: got %v, want ErrStoreFull", err)
	}
	if v.Empty() {
		t.Fatal("a refused store must keep the cell's earlier writes")
	}

	before := CommittedBytes()
	var s Sessions
	b := Branch{SessionID: "s", SessionKey: "k", Name: "main"}
	s.Commit(b, &v, appended)
	if got := CommittedBytes() - before; got != int64(len("a")+len(big)+KeyOverhead) {
		t.Fatalf("committed bytes grew by %d, want %d (key, value and KeyOverhead)", got, len("a")+len(big)+KeyOverhead)
	}
	s.Release()
	if CommittedBytes() != before {
		t.Fatalf("Release left %d bytes counted", CommittedBytes()-before)
	}
}

// TestCommitAppends pins CM-STO-05/06: a commit hands one entry with the
// sets and sorted deletes to the append, and a failed append commits nothing.
func TestCommitAppends(t *testing.T) {
	var s Sessions
	b := Branch{"s", "k", "main"}
	var w WriteSet
	_ = w.Set("a", json.RawMessage(`1`), false, 100)
	_ = w.Set("z", nil, false, 100)
	_ = w.Set("y", nil, false, 100)
	var got []protocol.StoreEntry
	if err := s.Commit(b, &w, func(e protocol.StoreEntry) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Type != protocol.StoreEntryType || string(got[0].Sets["a"]) != "1" || strings.Join(got[0].Deletes, ",") != "y,z" {
		t.Fatalf("entries: %+v", got)
	}
	var f WriteSet
	_ = f.Set("a", json.RawMessage(`2`), false, 100)
	if err := s.Commit(b, &f, func(protocol.StoreEntry) error { return errors.New("disk full") }); !errors.Is(err, ErrAppendFailed) {
		t.Fatalf("a failed append: got %v, want ErrAppendFailed", err)
	}
	if v, _, _, _ := s.Load(b, nil, "a"); string(v) != "1" {
		t.Fatalf("a failed append must leave the committed value: %s", v)
	}
}

// TestLiveLeaf pins CM-STO-10: the branch of the last prepared run is the
// live leaf; the entry goes with the session's last run.
func TestLiveLeaf(t *testing.T) {
	var s Sessions
	b1, b2 := Branch{"s", "k", "b1"}, Branch{"s", "k", "b2"}
	s.Enter(b1)
	if err := s.CheckLeaf(b1); err != nil {
		t.Fatal(err)
	}
	s.Enter(b2)
	if err := s.CheckLeaf(b1); !errors.Is(err, ErrLeafMismatch) {
		t.Fatalf("b1 after b2 was prepared: got %v, want ErrLeafMismatch", err)
	}
	if err := s.CheckLeaf(b2); err != nil {
		t.Fatal(err)
	}
	s.Leave(b1)
	s.Leave(b2)
	if len(s.leaves) != 0 {
		t.Fatalf("leaves kept after every run left: %v", s.leaves)
	}
}

// TestReplay pins CM-STO-08: the store entries of a transcript, in order,
// are the committed values; other entries are skipped; bad input is refused.
func TestReplay(t *testing.T) {
	tr := []json.RawMessage{
		json.RawMessage(`{"type":"openclaw.code-mode-store","sets":{"a":1,"b":2},"deletes":[]}`),
		json.RawMessage(`{"type":"compaction","summary":"x"}`),
		json.RawMessage(`{"type":"openclaw.code-mode-store","sets":{"c":3},"deletes":["b"]}`),
	}
	entries, err := ParseTranscript(tr)
	if err != nil || len(entries) != 2 {
		t.Fatalf("ParseTranscript: %d entries, %v", len(entries), err)
	}
	var s Sessions
	b := Branch{"s", "k", "main"}
	before := CommittedBytes()
	if err := s.Replay(b, entries); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"a": "1", "b": "", "c": "3"} {
		if v, _, _, _ := s.Load(b, nil, k); string(v) != want {
			t.Fatalf("%s: got %s, want %q", k, v, want)
		}
	}
	if got := CommittedBytes() - before; got != 2*(2+KeyOverhead) {
		t.Fatalf("a replay of two one-byte keys with one-byte values counts %d bytes, want %d (KeyOverhead each: tiny keys must not be nearly free)", got, 2*(2+KeyOverhead))
	}
	if err := s.Replay(b, nil); err != nil || CommittedBytes() != before {
		t.Fatalf("an empty replay must drop the branch's values and their bytes: %v, %d", err, CommittedBytes()-before)
	}
	for _, bad := range []string{`1`, `{"kind":"x"}`, `{"type":"openclaw.code-mode-store","sets":{"":1}}`} {
		if _, err := ParseTranscript([]json.RawMessage{json.RawMessage(bad)}); err == nil {
			t.Fatalf("ParseTranscript accepted %s", bad)
		}
	}
}

// TestNetworkProvenance pins the provenance of network-controlled values
// (CM-RES-08, CM-STO-11): a results entry and a committed key keep it, the
// transcript entry lists it, a replay restores it, and a later trusted set
// of the key clears it.
func TestNetworkProvenance(t *testing.T) {
	r := NewResults(1 << 10)
	net, _ := r.Save(json.RawMessage(`"page"`), true)
	own, _ := r.Save(json.RawMessage(`1`), false)
	if _, n, _ := r.Load(net); !n {
		t.Error("a result saved from network content must load with its provenance")
	}
	if _, n, _ := r.Load(own); n {
		t.Error("a result saved from trusted content must load without network provenance")
	}

	var s Sessions
	b := Branch{SessionID: "s", SessionKey: "k", Name: "main"}
	var w WriteSet
	_ = w.Set("page", json.RawMessage(`"page"`), true, 100)
	_ = w.Set("own", json.RawMessage(`1`), false, 100)
	if _, _, n, _ := s.Load(b, &w, "page"); !n {
		t.Error("the cell's own network write must load with its provenance")
	}
	var entry protocol.StoreEntry
	_ = s.Commit(b, &w, func(e protocol.StoreEntry) error { entry = e; return nil })
	if d := cmp.Diff([]string{"page"}, entry.NetworkContent); d != "" {
		t.Errorf("transcript entry networkContent (-want +got):\n%s", d)
	}
	for key, want := range map[string]bool{"page": true, "own": false} {
		if _, _, n, _ := s.Load(b, nil, key); n != want {
			t.Errorf("committed %q: network provenance %v, want %v", key, n, want)
		}
	}
	var fresh Sessions
	_ = fresh.Replay(b, []protocol.StoreEntry{entry})
	if _, _, n, _ := fresh.Load(b, nil, "page"); !n {
		t.Error("a replayed transcript entry must restore the key's network provenance")
	}
	var again WriteSet
	_ = again.Set("page", json.RawMessage(`"mine"`), false, 100)
	_ = s.Commit(b, &again, func(protocol.StoreEntry) error { return nil })
	if _, _, n, _ := s.Load(b, nil, "page"); n {
		t.Error("a key set again from trusted content must lose its network provenance")
	}
}
