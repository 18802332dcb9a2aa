// Package hygiene holds the repository's own checks that need no target:
// no build output is tracked (no file over 1 MB, every main package's
// binary ignored). It has no code of its own; see hygiene_test.go.
package hygiene
