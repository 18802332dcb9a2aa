package engine

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
)

// The engine is quickjs.wasm from the npm package quickjs-wasi@3.7.0 (MIT), a
// WASI reactor build of QuickJS-NG 0.18.0, pinned by integrity in
// quickjs/package-lock.json. `make engine` installs it and copies it into
// wasm/ (gitignored), so the binaries embed it and stay self-contained.
// wasm/README.md is tracked, so this embed never fails to build.
//
//go:embed wasm
var wasmDir embed.FS

// Version is the embedded QuickJS-NG version.
const Version = "v0.18.0"

// Package is the npm package the wasm comes from.
const Package = "quickjs-wasi@3.7.0"

// WasmSHA256 is the sha256 of quickjs.wasm in Package.
const WasmSHA256 = "c0bd8f296e18cf074969f6401b9ecb72609a1323818ec2b9bf7a8f8d740d1363"

// wasmFile is where `make engine` puts the wasm, relative to this package.
const wasmFile = "wasm/quickjs.wasm"

// installHint says exactly how to install the engine.
const installHint = "run `make engine` in the repository root (npm ci --ignore-scripts in reference/engine/quickjs, " +
	"then it copies node_modules/quickjs-wasi/quickjs.wasm to reference/engine/wasm/quickjs.wasm), then rebuild"

// wasmBytes returns the embedded quickjs.wasm after checking its hash. The
// error wraps ErrUnavailable and says how to install it.
func wasmBytes() ([]byte, error) {
	b, err := wasmDir.ReadFile(wasmFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: reference/engine/%s is not installed in this build: %s", ErrUnavailable, wasmFile, installHint)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != WasmSHA256 {
		return nil, fmt.Errorf("%w: reference/engine/%s has sha256 %s, want %s (%s): %s", ErrUnavailable, wasmFile, got, WasmSHA256, Package, installHint)
	}
	return b, nil
}
