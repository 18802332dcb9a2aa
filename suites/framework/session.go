package framework

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/onsi/ginkgo/v2"
)

// The target session: the one connected target of the suite run (T,
// RestartTarget), its effective features and what it said in initialize.
// Define connects it before the first spec (connectTarget) and closes it
// after the last.

// checkAlive asks the target a cheap runtime.stats (bounded by
// Timeouts.Alive) unless it is known dead, and returns why the spec must be
// charged with the target's death, or "".
func checkAlive() string {
	tgtMu.Lock()
	t := tgt
	tgtMu.Unlock()
	if t == nil || stopping.Load() {
		return ""
	}
	if t.chargedIn.Load() == specSeq.Load() {
		if why := t.chargedWhy.Load(); why != nil && hangFails() {
			return "the target stopped working during this spec, which this requirement forbids: " + *why
		}
		return "" // already charged to this spec (and marked as an error)
	}
	if t.Alive() {
		ctx, cancel := context.WithTimeout(context.Background(), Timeouts.Alive)
		defer cancel()
		_, err := t.Stats(ctx)
		if err == nil || t.Alive() {
			return "" // answered (a protocol error is still an answer)
		}
		// Call charged it: lost or unresponsive.
		return fmt.Sprintf("the target stopped working during this spec: %v", err)
	}
	if t.chargedIn.Load() != 0 {
		return "" // charged to an earlier spec; the next T() reconnects
	}
	reason := "the target died during this spec (its connection closed)" + t.diagnostics() + t.stderrTail()
	t.charge(reason)
	return reason
}

// RequireFeature skips the current spec, with a reason naming the feature and
// why, when the target does not declare f. For specs that need a test hook
// beyond their requirement's own feature (fault-injection for CM-CFG-07): a
// skipped core requirement still makes the run partial.
//
// f must be a feature of spec/requirements.yaml: an unknown name (a typo)
// fails the spec instead of skipping it.
func RequireFeature(f, why string) {
	ginkgo.GinkgoHelper()
	if _, err := spec.LookupFeature(f); err != nil {
		ginkgo.Fail(fmt.Sprintf("RequireFeature(%q): %v", f, err))
	}
	if nd := notDrivableFeature(f); nd != "" {
		ginkgo.Skip(fmt.Sprintf("%s%s (%s)", protocol.NotDrivablePrefix, nd, why))
	}
	if !Features().Has(f) {
		ginkgo.Skip(fmt.Sprintf("feature %q is not declared by the target (%s)", f, why))
	}
}

// RequireDrivenFeature is RequireFeature for a feature of another
// requirement that the spec needs only as the harness's means of driving
// it (CM-RES-06 binds its runs to a headless session, feature
// session-store: spec/protocol.md §3). One fault, one requirement: when the
// target lacks the feature, the spec is not judged, and its verdict says why:
//   - the target declares f not drivable, or does not declare it and the
//     judged profile does not require it (or the user exempted it): a skip
//     naming the feature, since f's own requirements are not judged either
//     (a block by a requirement that is not applicable would name no fault);
//   - the profile requires f and the target does not declare it: blocked by
//     the requirement that carries f's verdict (verdictOwner: for a feature
//     with a driver, its lowest requirement fails as not implemented).
//
// f must be a feature of spec/requirements.yaml (else the spec fails).
func RequireDrivenFeature(f, why string) {
	ginkgo.GinkgoHelper()
	if _, err := spec.LookupFeature(f); err != nil {
		ginkgo.Fail(fmt.Sprintf("RequireDrivenFeature(%q): %v", f, err))
	}
	if nd := notDrivableFeature(f); nd != "" {
		ginkgo.Skip(fmt.Sprintf("%s%s (%s)", protocol.NotDrivablePrefix, nd, why))
	}
	if Features().Has(f) {
		return
	}
	p, err := spec.LookupProfile(Profile())
	if owner := verdictOwner(f); err == nil && p.Requires(f) && !slices.Contains(current.ExemptFeatures, f) && owner != "" && owner != currentRequirement() {
		Blocked(owner, "profile %s requires feature %s, which the target does not declare; %s is driven only through it (%s), so it is not judged", p.Name, f, currentRequirement(), why)
	}
	ginkgo.Skip(fmt.Sprintf("feature %q is not declared by the target (%s)", f, why))
}

// FeatureSet is the effective feature set of the run.
type FeatureSet map[string]bool

// Has reports whether f is in the set; core (spec.FeatureCore) is always in.
// f must be a feature of spec/requirements.yaml: an unknown name (a typo in
// a spec) panics, which fails the spec instead of silently skipping a check.
func (s FeatureSet) Has(f string) bool {
	if _, err := spec.LookupFeature(f); err != nil {
		panic(fmt.Sprintf("FeatureSet.Has(%q): %v", f, err))
	}
	return f == spec.FeatureCore || s[f]
}

var (
	tgtMu    sync.Mutex
	tgt      *Target
	features FeatureSet
	// FeatureSource records where the feature set came from: "declared" or
	// "command line".
	FeatureSource = "declared"
	// profile is the profile the run judges (Profile).
	profile string
)

// Profile is the profile the run judges the target against: Config.Profile
// when given, else the one the target declared in initialize, else
// spec.DefaultProfile.
func Profile() string {
	tgtMu.Lock()
	defer tgtMu.Unlock()
	return profile
}

// JudgeProfile sets the profile the run judges (Profile) for a caller that
// connects a target outside the suites (codemode-conformance case), where
// no BeforeSuite does it: guest cells render their dialect for it
// (Rendered).
func JudgeProfile(p string) {
	tgtMu.Lock()
	defer tgtMu.Unlock()
	profile = p
}

// RequestedProfile is the profile the run was configured to judge
// (Config.Profile; "" means the one the target declares). An in-process
// reference target serves it.
func RequestedProfile() string { return current.Profile }

// checkProfile returns the profile the run judges and why the target's
// declaration is a target error (""): ProfileVerdict for the run's
// requested profile.
func checkProfile(declared string, list []string, source string) (string, string) {
	return ProfileVerdict(current.Profile, declared, list, source, "run")
}

// ProfileVerdict returns the profile a target is judged against (requested,
// else the one it declares, else spec.DefaultProfile) and why its
// declaration is a target error there (""): the profile it declares must be
// known and, when one is requested, the same; its features (from source,
// e.g. "declared") must be features of that profile that do not exclude each
// other (protocol.md §9). judge names what judges it ("run", "case").
func ProfileVerdict(requested, declared string, features []string, source, judge string) (string, string) {
	p := requested
	if p == "" {
		p = declared
	}
	if p == "" {
		p = spec.DefaultProfile
	}
	if declared != "" && declared != p {
		return p, fmt.Sprintf("target error: the target implements profile %q, the %s judges profile %q", declared, judge, p)
	}
	if err := spec.CheckFeatureSet(p, features); err != nil {
		return p, fmt.Sprintf("target error: features %v (%s) under profile %s: %v", features, source, p, err)
	}
	return p, ""
}

// T returns the connected target, reconnecting first if the previous spec
// left it dead (a crashed target makes that spec an error, never fails the
// rest of the run). A failed reconnect is a harness error of the current spec.
//
// Within one spec the target is connected at most once more: when it died
// or was killed during the running spec, that spec is charged with it (a
// harness error, not a failure of its requirement) and T fails it at once;
// the next spec reconnects.
func T() *Target {
	tgtMu.Lock()
	defer tgtMu.Unlock()
	if tgt == nil || !tgt.Alive() {
		if tgt != nil && inSpec.Load() && !stopping.Load() {
			if tgt.chargedIn.Load() != specSeq.Load() {
				tgt.charge("the target died during this spec (its connection closed)" + tgt.diagnostics() + tgt.stderrTail())
			}
			if tgt.chargedIn.Load() == specSeq.Load() {
				blockLoss(tgt, "before the spec's next call")
				ginkgo.Fail("the target was lost earlier in this spec (see the harness error); the harness restarts it for the next spec")
			}
		}
		if tgt != nil {
			tgt.Close()
		}
		var err error
		tgt, err = Connect(context.Background(), current.Target)
		if err != nil {
			markHarnessError(fmt.Sprintf("could not reconnect to the target: %v", err))
			ginkgo.Fail(fmt.Sprintf("harness could not (re)connect to the target: %v", err))
		}
	}
	return tgt
}

// RestartTarget closes the target (shutdown; an exec: target's process
// exits) and connects a fresh one: the "runtime restart" of CM-RUN-06. For a
// tcp: target the connection is what restarts.
func RestartTarget() {
	ginkgo.GinkgoHelper()
	tgtMu.Lock()
	old := tgt
	tgt = nil
	tgtMu.Unlock()
	if old != nil {
		_ = old.Close()
	}
	T()
}

// Features is the effective feature set (declared, or as overridden).
func Features() FeatureSet {
	tgtMu.Lock()
	defer tgtMu.Unlock()
	return features
}

func connectTarget(ctx context.Context) {
	t, err := Connect(ctx, current.Target)
	if err != nil {
		ginkgo.Fail(err.Error())
	}
	tgtMu.Lock()
	defer tgtMu.Unlock()
	tgt = t
	lastInit = t.Init
	features = FeatureSet{}
	list := t.Init.Features
	if current.Features != nil {
		list = current.Features
		FeatureSource = "command line"
	}
	for _, f := range list {
		features[f] = true
	}
	for _, f := range current.ExemptFeatures {
		delete(features, f)
		FeatureSource = "command line"
	}
	var why string
	profile, why = checkProfile(t.Init.Profile, list, FeatureSource)
	ginkgo.GinkgoWriter.Printf("target %s: %s %s, profile %s, features %v (%s)\n", current.Target, t.Init.Implementation.Name, t.Init.Implementation.Version, profile, list, FeatureSource)
	if why != "" {
		ginkgo.Fail(why)
	}
}

func disconnectTarget() {
	tgtMu.Lock()
	defer tgtMu.Unlock()
	if tgt != nil {
		tgt.Close()
		tgt = nil
	}
}

// DeclaredProfile returns the profile the target declared in initialize
// ("" when it declared none, which means spec.DefaultProfile).
func DeclaredProfile() string {
	tgtMu.Lock()
	defer tgtMu.Unlock()
	return lastInit.Profile
}

// Implementation returns what the target said in initialize (zero before the
// suite connected).
func Implementation() (name, version string, declared []string) {
	tgtMu.Lock()
	defer tgtMu.Unlock()
	return lastInit.Implementation.Name, lastInit.Implementation.Version, lastInit.Features
}

// lastInit outlives the connection so that reports written after the suite
// can still name the implementation.
var lastInit protocol.InitializeResult
