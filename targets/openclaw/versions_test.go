package openclaw

import (
	"io/fs"
	"slices"
	"testing"
)

func TestAdapterEntryPerGeneration(t *testing.T) {
	for version, want := range map[string]string{"2026.7.35": "adapter.mjs", "2026.9.6": "adapter-v2.mjs", "2026.5.1": "adapter.mjs"} {
		if got := adapterEntry(version); got != want {
			t.Errorf("adapterEntry(%q) = %q, want %q", version, got, want)
		}
	}
	for version := range generations {
		if !slices.Contains(Versions(), version) {
			t.Errorf("generation table names %s, which is not pinned (pinned: %v)", version, Versions())
		}
		if _, err := fs.Stat(files, adapterEntry(version)); err != nil {
			t.Errorf("%s: its adapter %s is not embedded: %v", version, adapterEntry(version), err)
		}
	}
}
