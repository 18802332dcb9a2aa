package framework

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/creachadair/jrpc2"
	"github.com/onsi/ginkgo/v2"
)

// TrajectoryFeature is the feature whose driver, run.trajectory, the
// session-store specs read their evidence through (spec/protocol.md §5.7:
// the entries member).
const TrajectoryFeature = "trajectory"

// TrajectoryOwner is the requirement that owns run.trajectory as a
// precondition of specs of other features: the one that carries the
// trajectory feature's verdict (verdictOwner: the lowest requirement id of
// the feature with a spec, CM-E2E-08), else CM-NEST-07.
func TrajectoryOwner() string {
	if o := verdictOwner(TrajectoryFeature); o != "" {
		return o
	}
	return "CM-NEST-07"
}

// TrajectoryAid returns run.trajectory of run r for a spec whose own
// requirement is not the trajectory's but reads its evidence there (the
// session store's transcript entries: CM-STO-05, -08, -09, -11). why says
// what the spec reads, for the messages. The trajectory is a precondition
// owned by TrajectoryOwner, never a fault of the caller's requirement
// (one fault, one requirement):
//   - the target declares trajectory not drivable: a skip, as RequireFeature;
//   - it does not declare trajectory: blocked by the owner when the judged
//     profile requires the feature (the owner fails as not implemented),
//     else a skip;
//   - run.trajectory answers -32601, another JSON-RPC error, or names
//     another run: blocked by the owner.
//
// A spec whose requirement needs the trajectory for only part of its
// evidence checks TrajectoryAvailable first and judges the rest without it.
func (r *Run) TrajectoryAid(ctx context.Context, why string) protocol.TrajectoryResult {
	ginkgo.GinkgoHelper()
	RequireTrajectory(why)
	p := protocol.RunParams{Run: r.ID}
	var tr protocol.TrajectoryResult
	err := T().Call(ctx, protocol.MethodRunTrajectory, p, &tr)
	r.log(protocol.MethodRunTrajectory, p, tr, err)
	var je *jrpc2.Error
	switch {
	case errors.As(err, &je) && je.Code == jrpc2.MethodNotFound:
		Blocked(TrajectoryOwner(), "the target declares feature %s but does not answer `%s` (-32601: %s); %s relies on it: %s",
			TrajectoryFeature, protocol.MethodRunTrajectory, je.Message, currentRequirement(), why)
	case err != nil:
		Blocked(TrajectoryOwner(), "`%s` failed at the protocol level: %v; %s relies on it: %s", protocol.MethodRunTrajectory, err, currentRequirement(), why)
	case tr.Run != r.ID:
		Blocked(TrajectoryOwner(), "`%s` answered for run %q, not %q; %s relies on it: %s", protocol.MethodRunTrajectory, tr.Run, r.ID, currentRequirement(), why)
	}
	return tr
}

// RequireTrajectory is TrajectoryAid's decision before anything is sent:
// a spec that cannot be judged without the trajectory calls it first, so
// that it skips or is blocked before it drives the target.
func RequireTrajectory(why string) {
	ginkgo.GinkgoHelper()
	if skip, block := trajectoryAbsent(why); skip != "" {
		ginkgo.Skip(skip)
	} else if block != "" {
		Blocked(TrajectoryOwner(), "%s", block)
	}
}

// TrajectoryAvailable reports whether TrajectoryAid can be asked at all:
// the target declares trajectory and not as not drivable. A -32601 answer
// is found only by asking (and blocks).
func TrajectoryAvailable() bool {
	skip, block := trajectoryAbsent("")
	return skip == "" && block == ""
}

// trajectoryAbsent says why run.trajectory cannot be asked: a skip reason,
// or a block message for TrajectoryOwner; both "" when it can.
func trajectoryAbsent(why string) (skip, block string) {
	if nd := notDrivableFeature(TrajectoryFeature); nd != "" {
		return fmt.Sprintf("%s%s (%s)", protocol.NotDrivablePrefix, nd, why), ""
	}
	if Features().Has(TrajectoryFeature) {
		return "", ""
	}
	p, err := spec.LookupProfile(Profile())
	if err == nil && p.Requires(TrajectoryFeature) && !slices.Contains(current.ExemptFeatures, TrajectoryFeature) {
		return "", fmt.Sprintf("profile %s requires feature %s, which the target does not declare; %s reads its evidence through `%s` (%s), so it is not judged",
			p.Name, TrajectoryFeature, currentRequirement(), protocol.MethodRunTrajectory, why)
	}
	return fmt.Sprintf("feature %q is not declared by the target (%s)", TrajectoryFeature, why), ""
}
