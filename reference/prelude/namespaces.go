package prelude

import _ "embed"

// namespacesSource is namespaces.js, the guest half of plugin namespaces.
//
//go:embed namespaces.js
var namespacesSource string

// The namespace builder is evaluated first, in the same script as
// prelude.js, which takes it before any guest code runs.
func init() { Source = namespacesSource + Source }
