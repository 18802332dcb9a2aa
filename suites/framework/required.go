package framework

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/creachadair/jrpc2"
	"github.com/onsi/ginkgo/v2"
)

// NotImplementedPrefix starts the failure message of the one spec that
// carries the verdict of a required driven feature (spec.Feature.Driver)
// the target does not declare, and of a spec whose declared feature's
// driver method answers -32601 (protocol.md §9; audit F2/F3).
const NotImplementedPrefix = "not implemented or not drivable: "

// RequiredGap is what the judged profile requires (spec.Profile.Required)
// that the run's feature set lacks, each list in features: order.
type RequiredGap struct {
	// Profile is the judged profile (Profile()).
	Profile string
	// Missing are required features neither in the effective feature set,
	// nor exempted, nor declared not drivable: their specs run and are
	// judged on behaviour, or, for a driven feature (spec.Feature.Driver),
	// one fails as not implemented or not drivable and the rest are blocked
	// by it (absentFeature).
	Missing []string
	// Exempted are required features removed by --exempt-features
	// (Config.ExemptFeatures): their specs skip, and the reports say the
	// user exempted a required feature.
	Exempted []string
	// NotDrivable are required features the target declared it cannot drive
	// (initialize notDrivable[].feature): their specs skip as not drivable.
	NotDrivable []string
}

// Empty reports whether the run lacks no required feature.
func (g RequiredGap) Empty() bool {
	return len(g.Missing) == 0 && len(g.Exempted) == 0 && len(g.NotDrivable) == 0
}

// RequiredFeatures returns the run's RequiredGap; zero before the suite
// connected to the target (or under an unknown profile, a target error).
func RequiredFeatures() RequiredGap {
	name := Profile()
	p, err := spec.LookupProfile(name)
	if name == "" || err != nil {
		return RequiredGap{}
	}
	g := RequiredGap{Profile: p.Name}
	have := Features()
	for _, f := range p.Required {
		switch {
		case have.Has(f):
		case slices.Contains(current.ExemptFeatures, f):
			g.Exempted = append(g.Exempted, f)
		case notDrivableFeature(f) != "":
			g.NotDrivable = append(g.NotDrivable, f)
		default:
			g.Missing = append(g.Missing, f)
		}
	}
	return g
}

// featureReqs are the requirements with at least one spec, by feature,
// filled by It at tree construction: a driven feature's one verdict goes
// to the lowest of them (absentFeature).
var (
	featureReqMu sync.Mutex
	featureReqs  = map[string][]string{}
)

// registerRequirement records that requirement id of feature has a spec.
func registerRequirement(feature, id string) {
	featureReqMu.Lock()
	defer featureReqMu.Unlock()
	if !slices.Contains(featureReqs[feature], id) {
		featureReqs[feature] = append(featureReqs[feature], id)
	}
}

// verdictOwner is the requirement that carries the one verdict of driven
// feature f when the target does not declare it: the lowest requirement id
// of f with a spec (CM-ACT-09 for agent-turn) that the target did not
// declare not drivable. By id, not by run order, since Ginkgo shuffles the
// top-level containers.
//
// Among the requirements the run selects, when it selects one (--req
// CM-ACT-05 alone): the feature's verdict then appears in the run, still
// once, instead of a block by a requirement that does not run.
func verdictOwner(f string) string {
	featureReqMu.Lock()
	ids := slices.Clone(featureReqs[f])
	featureReqMu.Unlock()
	lowest := func(keep func(string) bool) string {
		owner := ""
		for _, id := range ids {
			// One the target declared not drivable skips, so it cannot
			// carry the verdict.
			if (owner == "" || id < owner) && notDrivable("", id) == "" && keep(id) {
				owner = id
			}
		}
		return owner
	}
	if o := lowest(selectedInRun); o != "" {
		return o
	}
	return lowest(func(string) bool { return true })
}

// absentFeature decides a spec of requirement req whose feature the run's
// feature set does not hold (protocol.md §9):
//   - a skip when the judged profile does not define the feature, when it
//     only allows it (optional), or when the user exempted it
//     (--exempt-features);
//   - nil when the profile requires it and its specs need no driver surface
//     (spec.Feature.Driver ""): the spec runs and behaviour decides, since
//     nothing was observed yet (isolation, telemetry, typescript…);
//   - when the profile requires it and the harness drives it through a
//     surface of its own (agent.turn, run.prepare sandbox…), one verdict for
//     the feature: the specs of verdictOwner(feature) get the returned
//     func, which fails them "not implemented or not drivable" (once the
//     spec began, so its probe is evidence), and every other requirement of
//     the feature is blocked by that owner (audit F2/F3: one fault, one
//     requirement).
func absentFeature(req spec.Requirement) func(context.Context) {
	p, err := spec.LookupProfile(Profile())
	if err == nil && !p.Has(req.Feature) {
		ginkgo.Skip(fmt.Sprintf("feature %q is not part of profile %s, which this run judges (requirement %s; see --profile)", req.Feature, p.Name, req.ID))
	}
	if err != nil || !p.Requires(req.Feature) {
		ginkgo.Skip(fmt.Sprintf("feature %q is not declared by the target (requirement %s)", req.Feature, req.ID))
	}
	if slices.Contains(current.ExemptFeatures, req.Feature) {
		ginkgo.Skip(fmt.Sprintf("required feature %q exempted by the user (--exempt-features): profile %s requires it (requirement %s)", req.Feature, p.Name, req.ID))
	}
	f, _ := spec.LookupFeature(req.Feature)
	if f.Driver == "" {
		return nil
	}
	owner := verdictOwner(f.Name)
	if owner != req.ID && owner != "" {
		Blocked(owner, "profile %s requires feature %s, which the target does not declare; the harness drives it only through %s, so the feature gets one verdict, %s's (not implemented or not drivable), and %s is not judged",
			p.Name, f.Name, driverText(f.Driver), owner, req.ID)
	}
	return func(ctx context.Context) {
		ginkgo.Fail(fmt.Sprintf("%sprofile %s requires feature %s; the target declares no feature %s and %s (requirement %s, %s: %s). An adapter that cannot drive it lists it in initialize notDrivable[].feature (docs/targets.md)",
			NotImplementedPrefix, p.Name, f.Name, f.Name, undriven(ctx, f.Driver), req.ID, req.Level, req.Text))
	}
}

// driverText renders a spec.Feature.Driver for messages: "`agent.turn`" or
// "`run.prepare`'s `sandbox` member".
func driverText(d string) string {
	if method, member, ok := strings.Cut(d, " "); ok {
		return fmt.Sprintf("`%s`'s `%s` member", method, member)
	}
	return "`" + d + "`"
}

// undriven says what the target does with driver d of a feature it does not
// declare. A method is probed with empty params: -32601 is "does not answer
// it" (audit F3: the harness can tell not implemented from silent only
// there); any other answer is reported as it came. A run.prepare member
// cannot be probed: §3 lets a target without the feature ignore it.
func undriven(ctx context.Context, d string) string {
	if _, _, member := strings.Cut(d, " "); member {
		return fmt.Sprintf("%s is only for targets that declare it (spec/protocol.md §3), so the harness cannot drive it and observed nothing", driverText(d))
	}
	cctx, cancel := context.WithTimeout(ctx, Timeouts.Call)
	defer cancel()
	err := T().Call(cctx, d, map[string]any{}, nil)
	var je *jrpc2.Error
	switch {
	case errors.As(err, &je) && je.Code == jrpc2.MethodNotFound:
		return fmt.Sprintf("does not answer %s (-32601: %s)", driverText(d), je.Message)
	case err != nil:
		return fmt.Sprintf("was probed with %s {} and answered %v; the harness drives only a declared feature", driverText(d), err)
	default:
		return fmt.Sprintf("was probed with %s {} and answered it; the harness drives only a declared feature", driverText(d))
	}
}

// NotAnswered fails the running spec when err is the -32601 answer to
// method, the driver of feature f the target declares (agent.turn,
// run.trajectory): "not implemented or not drivable", never a protocol
// failure of the requirement (audit F3). Other errors are left to the
// caller.
func NotAnswered(f, method string, err error) {
	ginkgo.GinkgoHelper()
	if msg := notAnsweredMessage(f, method, err); msg != "" {
		ginkgo.Fail(fmt.Sprintf("%s (requirement %s)", msg, currentRequirement()))
	}
}

// notAnsweredMessage is NotAnswered's failure message, "" when err is not
// a -32601 answer.
func notAnsweredMessage(f, method string, err error) string {
	var je *jrpc2.Error
	if errors.As(err, &je) && je.Code == jrpc2.MethodNotFound {
		return fmt.Sprintf("%sthe target declares feature %s but does not answer `%s` (-32601: %s)", NotImplementedPrefix, f, method, je.Message)
	}
	return ""
}
