package framework

import (
	"testing"
	"time"
)

// A wait loop stops before the spec's deadline when one more wait at the
// run's timeoutMs, plus the grace for the verdict, would not fit
// (independent-target review rows 6–9); outside a spec it never stops.
func TestWaitFitsTheSpecDeadline(t *testing.T) {
	defer inSpec.Store(false)
	defer deadline.Store(0)
	inSpec.Store(false)
	if !WaitFits(time.Hour) {
		t.Errorf("outside a spec every wait fits")
	}
	inSpec.Store(true)
	deadline.Store(time.Now().Add(3 * time.Minute).UnixNano())
	if !WaitFits(10 * time.Second) {
		t.Errorf("a 10 s wait fits 3 minutes before the deadline (bound %s)", 10*time.Second+Timeouts.ToolCallSlack+Timeouts.VerdictGrace)
	}
	deadline.Store(time.Now().Add(Timeouts.ToolCallSlack + Timeouts.VerdictGrace + 5*time.Second).UnixNano())
	if WaitFits(10 * time.Second) {
		t.Errorf("a 10 s wait does not fit when only its slack and the grace are left")
	}
}
