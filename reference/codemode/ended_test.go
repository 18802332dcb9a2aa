package codemode

import (
	"fmt"
	"testing"
)

// The reasons kept for wait messages are bounded: a long session cannot grow
// them without limit, and the newest ones survive.
func TestMarkEndedIsBounded(t *testing.T) {
	rt := New(nil, nil, Options{})
	for i := 0; i < maxEnded+100; i++ {
		rt.markEnded(fmt.Sprintf("cm_%d", i), "completed")
	}
	rt.markEnded("cm_4000", "aborted") // re-marking does not duplicate
	if len(rt.ended) != maxEnded || len(rt.order) != maxEnded {
		t.Fatalf("kept %d reasons (%d in order), want %d", len(rt.ended), len(rt.order), maxEnded)
	}
	if _, ok := rt.ended["cm_0"]; ok {
		t.Error("the oldest reason was not dropped")
	}
	if got := rt.ended[fmt.Sprintf("cm_%d", maxEnded+99)]; got != "completed" {
		t.Errorf("newest reason = %q, want completed", got)
	}
	if got := rt.ended["cm_4000"]; got != "aborted" {
		t.Errorf("re-marked reason = %q, want aborted", got)
	}
}
