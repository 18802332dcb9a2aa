package framework

import (
	"cmp"
	"iter"
	"maps"
	"slices"
)

// Sorted ranges over m in key order: specs that check a table of cases
// kept in a map use it, so the first failing case, and the order of a
// failure message, are the same on every run of the same target (issue 23
// item 8; Go randomises map order).
func Sorted[K cmp.Ordered, V any](m map[K]V) iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if !yield(k, m[k]) {
				return
			}
		}
	}
}
