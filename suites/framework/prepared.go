package framework

import (
	"strings"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// limitFields are the tools.codeMode fields CM-CFG-05 owns (its clamps and
// the fallback of invalid values, 000 [Configurazione]).
var limitFields = []string{"timeoutMs", "memoryLimitBytes", "maxOutputBytes", "maxSnapshotBytes", "maxPendingToolCalls", "snapshotTtlSeconds", "maxSearchLimit", "searchDefaultLimit"}

// prepareOwner names the requirement that owns a refused run.prepare of a
// run whose tools.codeMode is cm: CM-CFG-07 for runtime_unavailable,
// CM-CFG-05 when cm sets a limit field, else CM-CFG-06 (the config is
// valid). Verdict audit 2026-12-02 A1.
func prepareOwner(cm any, f *protocol.Failure) string {
	if f != nil && f.Code == "runtime_unavailable" {
		return "CM-CFG-07"
	}
	if m, ok := cm.(map[string]any); ok {
		for _, k := range limitFields {
			if _, set := m[k]; set {
				return "CM-CFG-05"
			}
		}
	}
	return "CM-CFG-06"
}

// blockRefusedPrepare stops the running spec as blocked when run.prepare
// refused r (Prepared.Failure set) and the spec's subject is not the
// configuration: a spec that prepares a run as valid relies on it being
// accepted, and the refusal is charged to the config requirement that owns
// it (prepareOwner), with the target's refusal text, not to the spec's
// requirement as the "unknown run" of its next exec (verdict audit A1).
// Specs of areas CFG and ACT judge prepare failures themselves.
func blockRefusedPrepare(r *Run, cm any) {
	f := r.Prepared.Failure
	if f == nil {
		return
	}
	own := currentRequirement()
	if own == "" || strings.HasPrefix(own, "CM-CFG-") || strings.HasPrefix(own, "CM-ACT-") {
		return
	}
	blocked(prepareOwner(cm, f), "run.prepare refused tools.codeMode "+string(r.Params.CodeMode)+": "+f.Code+": "+f.Error, 1)
}

// Gen1Fields returns base plus gen1 when the run is judged under profile
// v1, else base alone: the tools.codeMode fields languages, mode and runtime
// are page 000's (001 names none of them), so a spec whose subject is not one
// of them sends them only where they exist (verdict audit A1, A4). base is
// not modified; nil base is an empty map.
func Gen1Fields(base, gen1 map[string]any) map[string]any {
	m := map[string]any{}
	for k, v := range base {
		m[k] = v
	}
	if Profile() == "v1" {
		for k, v := range gen1 {
			m[k] = v
		}
	}
	return m
}
