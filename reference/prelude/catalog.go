package prelude

import _ "embed"

// CatalogSource is catalog.js, the prelude extension of generation 2's
// catalog surface (Boot.Handles; feature javascript-only, CM-TS-06,
// spec/protocol.md §12.13).
//
//go:embed catalog.js
var CatalogSource string
