package codemode

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// Implemented are the features (spec/requirements.yaml features:) the
// reference implements under some profile. The features it declares are the
// ones its profile defines among these (Options.Features); a helper who
// builds a feature adds its name here and branches on Options.HasFeature.
var Implemented = []string{
	spec.FeatureCore, "yield", "typescript", "javascript-only", "shell-exec", "telemetry", "tools-api",
	"snapshot-executor", "isolation", "fault-injection", "pending-call-limit",
	"run-lifecycle-messages", "direct-only-tools", "results", "session-store", "hooks", "approvals",
	"bridge-queue", "execution-mode", "trajectory", "agent-turn", "untrusted-content", "nested-activity",
	"namespaces", "mcp", "mcp-resources", // reference/namespaces (§5.5), reference/mcp (§5.6, §12.10)
	"sandbox",   // the run's sandbox policy rides in its RunContext (spec/protocol.md §3, CM-NEST-10)
	"streaming", // reference/server forwards tool.update as tool.progress (spec/protocol.md §4, CM-NEST-11)
}

// ProfileName is the profile the options select: Profile, or
// spec.DefaultProfile ("v1") when empty.
func (o Options) ProfileName() string {
	if o.Profile == "" {
		return spec.DefaultProfile
	}
	return o.Profile
}

// Features are the features the reference declares in initialize under the
// selected profile: those of Implemented that the profile defines, in
// Implemented order. An unknown profile declares nothing (the server refuses
// it before a runtime exists: spec.LookupProfile).
func (o Options) Features() []string { return o.withoutSnapshotExecutor(slices.Clone(o.features())) }

// featureCache holds features per profile name: the catalogue and
// Implemented are fixed while the process runs, and HasFeature is asked
// several times per nested call (spec.LookupProfile copies every profile).
var featureCache sync.Map

func (o Options) features() []string {
	name := o.ProfileName()
	if f, ok := featureCache.Load(name); ok {
		return f.([]string)
	}
	p, err := spec.LookupProfile(name)
	if err != nil {
		return nil
	}
	var out []string
	for _, f := range Implemented {
		if p.Has(f) {
			out = append(out, f)
		}
	}
	featureCache.Store(name, out)
	return out
}

// HasFeature reports whether the reference, under the selected profile,
// implements feature name: the behaviour switch for the choices where the
// two generations disagree (e.g. "javascript-only" refuses TypeScript,
// "run-lifecycle-messages" gives CM-EXEC-10's wait failures).
func (o Options) HasFeature(name string) bool {
	return slices.Contains(o.features(), name) && (name != "snapshot-executor" || !o.Continuations())
}

// expiredCode is the code of a wait on an expired snapshot: snapshot_expired
// (000, CM-EXEC-19), or invalid_input under run-lifecycle-messages (001,
// CM-EXEC-10: expiry is no distinct terminal state).
func (o Options) expiredCode() result.ErrorCode {
	if o.HasFeature("run-lifecycle-messages") {
		return result.CodeInvalidInput
	}
	return result.CodeSnapshotExpired
}

// refuseTypeScript is the failed result of an exec whose language is
// "typescript" under javascript-only (001, CM-TS-04: cells are plain
// JavaScript, no compiler is loaded), or nil.
func (o Options) refuseTypeScript(input json.RawMessage) *result.Result {
	if !o.HasFeature("javascript-only") {
		return nil
	}
	var in struct {
		Language *string `json:"language"`
	}
	if json.Unmarshal(input, &in) != nil || in.Language == nil || *in.Language != "typescript" {
		return nil
	}
	r := result.Failed(result.CodeInvalidInput, `language "typescript" is not accepted: code mode cells are plain JavaScript (no TypeScript compiler, no type stripping); send the cell as JavaScript without type annotations`)
	return &r
}

// splitDirectOnly splits the effective tools of an active run into the
// hidden catalog's and the direct-only tools that stay model-visible beside
// exec and wait (direct-only-tools, CM-ACT-08). Without that feature every
// tool goes to the catalog.
func (o Options) splitDirectOnly(effective []protocol.ToolSpec) (hidden []protocol.ToolSpec, direct []protocol.ModelTool) {
	if !o.HasFeature("direct-only-tools") {
		return effective, nil
	}
	for _, t := range effective {
		if !t.DirectOnly {
			hidden = append(hidden, t)
			continue
		}
		schema := t.Parameters
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		direct = append(direct, protocol.ModelTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	return hidden, direct
}
