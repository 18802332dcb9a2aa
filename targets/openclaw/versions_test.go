package openclaw

import (
	"errors"
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

func TestParseSpecExecutor(t *testing.T) {
	for spec, want := range map[string][2]string{"openclaw:2026.9.6": {"2026.9.6", ""}, "openclaw:2026.9.6+quickjs": {"2026.9.6", "quickjs"}, "openclaw:2026.7.35": {"2026.7.35", ""}} {
		v, e, err := ParseSpec(spec)
		if err != nil || v != want[0] || e != want[1] {
			t.Errorf("ParseSpec(%q) = %q, %q, %v; want %q, %q", spec, v, e, err, want[0], want[1])
		}
	}
	for _, bad := range []string{"openclaw:2026.7.35+quickjs", "openclaw:2026.9.6+node2", "openclaw:2026.8.2+quickjs"} {
		if _, _, err := ParseSpec(bad); !errors.Is(err, ErrUnknownVersion) {
			t.Errorf("ParseSpec(%q): err %v, want ErrUnknownVersion (only an executor the version ships: 8.2, generation 2, ships none)", bad, err)
		}
	}
}

func TestProfilePerGeneration(t *testing.T) {
	for version, want := range map[string]string{"2026.5.28": "v1", "2026.6.35": "v1", "2026.7.1": "v1", "2026.7.35": "v1", "2026.8.2": "v2", "2026.9.4": "v2", "2026.9.6": "v2"} {
		if got := Profile(version); got != want {
			t.Errorf("Profile(%q) = %q, want %q", version, got, want)
		}
		if !slices.Contains(Versions(), version) {
			t.Errorf("%s is not pinned (pinned: %v): the release matrix needs one release per minor line", version, Versions())
		}
	}
}
