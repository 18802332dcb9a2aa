package prelude

import _ "embed"

// storeSource is store.js, the guest half of results.save/load/delete and
// store/load (features results and session-store).
//
//go:embed store.js
var storeSource string

// The store installer is evaluated first, in the same script as prelude.js,
// which takes it before any guest code runs.
func init() { Source = storeSource + Source }

// StoreOps are the bridge operations of store.js. Request.Key carries the
// reference or the key, Request.Input the value.
const (
	OpResultsSave   = "results.save"
	OpResultsLoad   = "results.load"
	OpResultsDelete = "results.delete"
	OpStoreSet      = "store.set"
	OpStoreLoad     = "store.load"
)
