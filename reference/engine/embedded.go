package engine

import (
	"crypto/sha256"
	"encoding/hex"
)

// EmbeddedSHA256 is the hex sha256 of the quickjs.wasm embedded in this
// build (equal to WasmSHA256 when the engine is installed). The error wraps
// ErrUnavailable when the build has no engine or another wasm, and says how
// to install it. codemode-conformance version prints it.
func EmbeddedSHA256() (string, error) {
	b, err := wasmBytes()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
