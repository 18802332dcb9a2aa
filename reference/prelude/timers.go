package prelude

import _ "embed"

// TimersSource is timers.js, the timers extension of the prelude (feature
// bridge-queue, CM-NEST-13).
//
//go:embed timers.js
var TimersSource string

// Bridge operations of timers.js: a timer takes a bridge slot and fires
// after its delay; clearTimer drops or stops the guest's timer number.
const (
	OpTimer      = "timer"
	OpClearTimer = "clearTimer"
)
