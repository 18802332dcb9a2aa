package prelude

import _ "embed"

// namespacesSource is namespaces.js, the guest half of plugin namespaces.
//
//go:embed namespaces.js
var namespacesSource string
