package prelude

import _ "embed"

// storeSource is store.js, the guest half of results.save/load/delete and
// store/load (features results and session-store).
//
//go:embed store.js
var storeSource string

// StoreOps are the bridge operations of store.js. Request.Key carries the
// reference or the key, Request.Input the value.
const (
	OpResultsSave   = "results.save"
	OpResultsLoad   = "results.load"
	OpResultsDelete = "results.delete"
	OpStoreSet      = "store.set"
	OpStoreLoad     = "store.load"
)
