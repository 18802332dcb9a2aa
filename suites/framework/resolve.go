package framework

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/codemode-conformance/codemode/targets/openclaw"
	"github.com/onsi/ginkgo/v2"
)

// Resolver turns a target spec with a registered prefix (for example
// "openclaw:2026.7.35") into the command line of an exec: target, after any
// one-time setup such as an install. Progress lines go to progress.
type Resolver func(ctx context.Context, spec string, progress io.Writer) (cmdline string, err error)

var (
	resolveMu sync.Mutex
	resolvers = map[string]Resolver{}
)

func init() {
	RegisterResolver(openclaw.Prefix, openclaw.Resolve)
}

// RegisterResolver makes targets "<prefix><rest>" resolvable through r.
func RegisterResolver(prefix string, r Resolver) {
	resolveMu.Lock()
	defer resolveMu.Unlock()
	resolvers[prefix] = r
}

func resolverFor(spec string) Resolver {
	resolveMu.Lock()
	defer resolveMu.Unlock()
	for p, r := range resolvers {
		if strings.HasPrefix(spec, p) {
			return r
		}
	}
	return nil
}

// HasResolver reports whether spec names a resolvable target (openclaw:<version>).
func HasResolver(spec string) bool { return resolverFor(spec) != nil }

// ResolveTarget returns the exec: spec a resolvable target runs as (installing
// first, progress on stderr), or spec unchanged. The CLI calls it before the
// suites start, so a first install is not bounded by the initialize timeout.
func ResolveTarget(ctx context.Context, spec string) (string, error) {
	r := resolverFor(spec)
	if r == nil {
		return spec, nil
	}
	cmdline, err := r(ctx, spec, os.Stderr)
	if err != nil {
		return "", err
	}
	return "exec:" + cmdline, nil
}

// notDrivable returns the target's reason when it declared surface (or the
// requirement id) not drivable in initialize, else "".
func notDrivable(surface, id string) string {
	tgtMu.Lock()
	defer tgtMu.Unlock()
	for _, n := range lastInit.NotDrivable {
		if (surface != "" && n.Surface == surface) || (id != "" && n.Requirement == id) {
			what := n.Surface
			if what == "" {
				what = n.Requirement
			}
			return what + ": " + n.Reason
		}
	}
	return ""
}

// currentRequirement is the req: label of the running spec.
func currentRequirement() string {
	for _, l := range ginkgo.CurrentSpecReport().Labels() {
		if strings.HasPrefix(l, evidence.LabelRequirement) {
			return strings.TrimPrefix(l, evidence.LabelRequirement)
		}
	}
	return ""
}

// RequireDrivable skips the running spec when the target declared surface
// not drivable: the report shows its requirement as not drivable, never as
// a pass or a failure of the requirement.
func RequireDrivable(surface string) {
	ginkgo.GinkgoHelper()
	if why := notDrivable(surface, ""); why != "" {
		ginkgo.Skip(fmt.Sprintf("%s%s (requirement %s)", protocol.NotDrivablePrefix, why, currentRequirement()))
	}
}
