// Package targets owns the --target syntax and the registry of targets the
// conformance harness can run against. Importing it installs Open as the
// framework's Opener (framework.UseTargets): the framework knows only
// Endpoint, never a target name.
//
//	builtin                 the reference runtime in process (package targets/builtin)
//	fake:<variant>          a deliberately broken reference variant, in process (targets/builtin)
//	exec:<command line>     spawned under /bin/sh, the protocol on its stdio
//	tcp:<host:port>         a process already serving the protocol over TCP
//	openclaw:<version>      the real OpenClaw code mode (installed on first use; targets/openclaw)
//	container:<image>       an image started per connection (package targets/container registers it)
//
// In-process names are added with Register, prefixes such as openclaw: and
// container: with RegisterPrefix.
package targets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/targets/container"
	"github.com/codemode-conformance/codemode/targets/openclaw"
)

// Prefixes of the syntax this package parses itself.
const (
	ExecPrefix = "exec:"
	TCPPrefix  = "tcp:"
)

// ErrUnknown is wrapped by the error for a spec that names no target.
var ErrUnknown = errors.New("unknown target")

// Prefix is a family of targets named "<Prefix><rest>", resolved on use.
type Prefix struct {
	// Prefix starts the spec, e.g. "openclaw:".
	Prefix string
	// Syntax and Help describe it in usage, e.g. "openclaw:<version>".
	Syntax, Help string
	// Prepare, if set, does the one-time setup of spec (an install, an
	// image build) with progress lines; the CLI calls it before the suites
	// start, so that it is not bounded by the initialize timeout.
	Prepare func(ctx context.Context, spec string, progress io.Writer) error
	// Check, if set, rejects a spec of the family that can name no target
	// (an unpinned version), without starting anything: a usage error.
	Check func(spec string) error
	// Open returns the endpoint of one connection to spec: a command line,
	// or an address with a Close that undoes what Open started. A target
	// Open starts itself gets o.Canary as CanaryEnv in its environment
	// (then Endpoint.Canary says so) and writes its output to o.Logs.
	Open func(ctx context.Context, spec string, o framework.OpenOptions) (framework.Endpoint, error)
}

var (
	mu       sync.Mutex
	named    = map[string]named1{}
	prefixes = map[string]Prefix{}
)

type named1 struct {
	serve framework.Connector
	help  string
}

func init() {
	framework.UseTargets(Open)
	RegisterPrefix(Prefix{
		Prefix: openclaw.Prefix,
		Syntax: "openclaw:<version>[+quickjs]",
		Help:   "the real OpenClaw code mode (installed on first use with npm; e.g. openclaw:2026.7.35; openclaw:2026.9.6+quickjs selects 9.6's bundled QuickJS executor)",
		Check: func(spec string) error {
			v, _, err := openclaw.ParseSpec(spec)
			if err != nil {
				return fmt.Errorf("%w %q: %w", ErrUnknown, spec, err)
			}
			if !slices.Contains(openclaw.Versions(), v) {
				return fmt.Errorf("%w %q: %w %q (pinned: %s)", ErrUnknown, spec, openclaw.ErrUnknownVersion, v, strings.Join(openclaw.Versions(), ", "))
			}
			return nil
		},
		Prepare: func(ctx context.Context, spec string, progress io.Writer) error {
			_, err := openclaw.Resolve(ctx, spec, progress)
			return err
		},
		Open: func(ctx context.Context, spec string, _ framework.OpenOptions) (framework.Endpoint, error) {
			cmd, err := openclaw.Resolve(ctx, spec, os.Stderr)
			return framework.Endpoint{Command: cmd}, err
		},
	})
	RegisterPrefix(Prefix{
		Prefix: container.Prefix,
		Syntax: "container:<image>",
		Help:   "run a local image through testcontainers-go (its one EXPOSEd port speaks the driver protocol); a fresh container per connection, removed at the end",
		Prepare: func(ctx context.Context, _ string, _ io.Writer) error {
			return container.Available(ctx) // say so before the suites start when no Docker daemon answers
		},
		Open: openContainer,
	})
}

// Register makes an in-process target available as --target name; help
// describes it in usage.
func Register(name, help string, serve framework.Connector) {
	mu.Lock()
	defer mu.Unlock()
	named[name] = named1{serve: serve, help: help}
}

// RegisterPrefix makes the targets "<p.Prefix><rest>" available.
func RegisterPrefix(p Prefix) {
	mu.Lock()
	defer mu.Unlock()
	prefixes[p.Prefix] = p
}

// lookup finds what spec names: an in-process target or a prefix.
func lookup(spec string) (framework.Connector, *Prefix) {
	mu.Lock()
	defer mu.Unlock()
	if n, ok := named[spec]; ok {
		return n.serve, nil
	}
	for k, p := range prefixes {
		if strings.HasPrefix(spec, k) {
			return nil, &p
		}
	}
	return nil, nil
}

// Check reports whether spec can name a target, without starting anything:
// a usage error (ErrUnknown) lists the syntax.
func Check(spec string) error {
	switch {
	case strings.HasPrefix(spec, ExecPrefix):
		if strings.TrimSpace(spec[len(ExecPrefix):]) == "" {
			return fmt.Errorf("target %q: empty command line", spec)
		}
		return nil
	case strings.HasPrefix(spec, TCPPrefix):
		if !strings.Contains(spec[len(TCPPrefix):], ":") {
			return fmt.Errorf("target %q: want tcp:<host:port>", spec)
		}
		return nil
	}
	if serve, p := lookup(spec); serve != nil || p != nil {
		if p != nil && p.Check != nil {
			return p.Check(spec)
		}
		return nil
	}
	if family, name, ok := strings.Cut(spec, ":"); ok {
		if names := Names(family + ":"); len(names) > 0 {
			known := "known: " + strings.Join(names, ", ")
			if len(names) > shortList {
				known = fmt.Sprintf("%d known; list them with: codemode-conformance list %ss", len(names), family)
			}
			return fmt.Errorf("%w %q: there is no %s variant named %q (%s)", ErrUnknown, spec, family, name, known)
		}
	}
	return fmt.Errorf("%w %q: want %s", ErrUnknown, spec, strings.Join(Syntax(), ", "))
}

// Prepare runs the one-time setup of a prefixed target (see Prefix.Prepare);
// for other targets it does nothing.
func Prepare(ctx context.Context, spec string, progress io.Writer) error {
	if _, p := lookup(spec); p != nil && p.Prepare != nil {
		return p.Prepare(ctx, spec, progress)
	}
	return nil
}

// Open resolves spec into the endpoint of one connection: the framework's
// Opener.
func Open(ctx context.Context, spec string, o framework.OpenOptions) (framework.Endpoint, error) {
	if err := Check(spec); err != nil {
		return framework.Endpoint{}, err
	}
	switch {
	case strings.HasPrefix(spec, ExecPrefix):
		return framework.Endpoint{Command: strings.TrimSpace(spec[len(ExecPrefix):])}, nil
	case strings.HasPrefix(spec, TCPPrefix):
		return framework.Endpoint{Address: spec[len(TCPPrefix):]}, nil
	}
	serve, p := lookup(spec)
	if serve != nil {
		return framework.Endpoint{Serve: serve}, nil
	}
	return p.Open(ctx, spec, o)
}

// Syntax lists every target form, for usage and errors: builtin, the
// in-process names grouped by family (fake:<variant>), exec:, tcp: and the
// prefixes.
func Syntax() []string {
	fakes := Names("fake:")
	mu.Lock()
	defer mu.Unlock()
	var out []string
	if _, ok := named["builtin"]; ok {
		out = append(out, "builtin")
	}
	out = append(out, "exec:<command line>", "tcp:<host:port>")
	var ps []string
	for _, p := range prefixes {
		ps = append(ps, p.Syntax)
	}
	sort.Strings(ps)
	out = append(out, ps...)
	if len(fakes) > 0 {
		out = append(out, "fake:<variant>")
	}
	return out
}

// Usage describes each target form in one line per form, for help texts.
func Usage() string {
	mu.Lock()
	lines := map[string]string{}
	if n, ok := named["builtin"]; ok {
		lines["builtin"] = n.help
	}
	for _, p := range prefixes {
		lines[p.Syntax] = p.Help
	}
	mu.Unlock()
	lines["exec:<command line>"] = "spawn a process speaking the driver protocol on stdio"
	lines["tcp:<host:port>"] = "connect to a process speaking the driver protocol"
	if v := Names("fake:"); len(v) > shortList {
		lines["fake:<variant>"] = fmt.Sprintf("a deliberately broken reference variant, e.g. fake:%s (%d of them; list them with: codemode-conformance list fakes)", v[0], len(v))
	} else if len(v) > 0 {
		lines["fake:<variant>"] = "a deliberately broken reference variant: " + strings.Join(v, ", ")
	}
	var b strings.Builder
	for _, s := range Syntax() {
		fmt.Fprintf(&b, "  %-23s %s\n", s, lines[s])
	}
	return b.String()
}

// shortList is the most names a help line or error lists in full.
const shortList = 10

// Help is the help registered with the in-process target name ("" when
// there is none).
func Help(name string) string {
	mu.Lock()
	defer mu.Unlock()
	return named[name].help
}

// Names lists the registered in-process names starting with prefix, without
// it, sorted.
func Names(prefix string) []string {
	mu.Lock()
	defer mu.Unlock()
	var out []string
	for n := range named {
		if rest, ok := strings.CutPrefix(n, prefix); ok && rest != "" {
			out = append(out, rest)
		}
	}
	sort.Strings(out)
	return out
}
