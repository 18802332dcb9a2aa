package framework

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/creachadair/jrpc2"
)

// RequiredFeatures sorts each required feature the run lacks into missing,
// exempted by the user or not drivable, and never lists a declared one.
func TestRequiredFeatures(t *testing.T) {
	savedCur, savedProf, savedFeat, savedInit := current, profile, features, lastInit
	defer func() { current, profile, features, lastInit = savedCur, savedProf, savedFeat, savedInit }()

	current = Config{ExemptFeatures: []string{"typescript"}}
	profile = "v1"
	features = FeatureSet{"yield": true, "isolation": true}
	lastInit = protocol.InitializeResult{NotDrivable: []protocol.NotDrivable{{Feature: "hooks", Reason: "not wired"}}}
	g := RequiredFeatures()
	if g.Profile != "v1" || !slices.Equal(g.Exempted, []string{"typescript"}) || !slices.Equal(g.NotDrivable, []string{"hooks"}) {
		t.Errorf("RequiredFeatures() = %+v: want profile v1, exempted [typescript], not drivable [hooks]", g)
	}
	for _, f := range []string{"snapshot-executor", "pending-call-limit", "agent-turn"} {
		if !slices.Contains(g.Missing, f) {
			t.Errorf("missing %v lacks %s", g.Missing, f)
		}
	}
	for _, f := range []string{spec.FeatureCore, "yield", "isolation", "typescript", "hooks", "streaming"} {
		if slices.Contains(g.Missing, f) {
			t.Errorf("missing %v holds %s (core, declared, exempted, not drivable or only allowed)", g.Missing, f)
		}
	}

	// Under v2 isolation and snapshot-executor are only allowed.
	profile = "v2"
	current = Config{}
	features = FeatureSet{}
	lastInit = protocol.InitializeResult{}
	g = RequiredFeatures()
	if slices.Contains(g.Missing, "isolation") || slices.Contains(g.Missing, "snapshot-executor") || !slices.Contains(g.Missing, "javascript-only") {
		t.Errorf("v2 RequiredFeatures().Missing = %v: want javascript-only, never isolation or snapshot-executor", g.Missing)
	}

	profile = ""
	if g := RequiredFeatures(); !g.Empty() {
		t.Errorf("before a target connected RequiredFeatures() = %+v, want empty", g)
	}
}

// A driven feature's one verdict goes to its lowest requirement id with a
// spec, whatever order the specs registered in (Ginkgo shuffles them).
func TestVerdictOwner(t *testing.T) {
	featureReqMu.Lock()
	saved := featureReqs
	featureReqs = map[string][]string{}
	featureReqMu.Unlock()
	defer func() { featureReqMu.Lock(); featureReqs = saved; featureReqMu.Unlock() }()

	if got := verdictOwner("agent-turn"); got != "" {
		t.Errorf("verdictOwner before any spec registered = %q, want \"\"", got)
	}
	for _, id := range []string{"CM-E2E-03", "CM-CFG-10", "CM-E2E-01", "CM-ACT-09", "CM-CFG-10"} {
		registerRequirement("agent-turn", id)
	}
	registerRequirement("hooks", "CM-NEST-21")
	if got := verdictOwner("agent-turn"); got != "CM-ACT-09" {
		t.Errorf("verdictOwner(agent-turn) = %q, want CM-ACT-09", got)
	}
	if got := verdictOwner("hooks"); got != "CM-NEST-21" {
		t.Errorf("verdictOwner(hooks) = %q, want CM-NEST-21", got)
	}
	savedInit := lastInit
	lastInit = protocol.InitializeResult{NotDrivable: []protocol.NotDrivable{{Requirement: "CM-ACT-09", Reason: "skipped, so it cannot carry the verdict"}}}
	if got := verdictOwner("agent-turn"); got != "CM-CFG-10" {
		t.Errorf("verdictOwner(agent-turn) with CM-ACT-09 not drivable = %q, want CM-CFG-10", got)
	}
	lastInit = savedInit
	if n := len(featureReqs["agent-turn"]); n != 4 {
		t.Errorf("a requirement with two specs registered twice: %v", featureReqs["agent-turn"])
	}
	for d, want := range map[string]string{"agent.turn": "`agent.turn`", "run.prepare sandbox": "`run.prepare`'s `sandbox` member"} {
		if got := driverText(d); got != want {
			t.Errorf("driverText(%q) = %q, want %q", d, got, want)
		}
	}
}

// A declared feature's driver method answering -32601 reads "not
// implemented or not drivable" (audit F3); any other error is the caller's.
func TestNotAnsweredMessage(t *testing.T) {
	nf := fmt.Errorf("call: %w", &jrpc2.Error{Code: jrpc2.MethodNotFound, Message: `method "agent.turn" not found`})
	want := NotImplementedPrefix + "the target declares feature agent-turn but does not answer `agent.turn` (-32601: method \"agent.turn\" not found)"
	if got := notAnsweredMessage("agent-turn", "agent.turn", nf); got != want {
		t.Errorf("notAnsweredMessage(-32601) = %q, want %q", got, want)
	}
	for _, err := range []error{nil, &jrpc2.Error{Code: jrpc2.InvalidParams, Message: "bad"}, errors.New("connection closed")} {
		if got := notAnsweredMessage("agent-turn", "agent.turn", err); got != "" {
			t.Errorf("notAnsweredMessage(%v) = %q, want \"\"", err, got)
		}
	}
}

// With a label filter that selects only some of a driven feature's
// requirements, the feature's one verdict goes to the lowest selected one,
// so it appears in the run; a block by a requirement the run does not
// select says so.
func TestVerdictOwnerAmongSelected(t *testing.T) {
	featureReqMu.Lock()
	saved := featureReqs
	featureReqs = map[string][]string{}
	featureReqMu.Unlock()
	specLabelMu.Lock()
	savedLabels := specLabels
	specLabels = map[string][][]string{}
	specLabelMu.Unlock()
	savedFilter := labelFilter
	defer func() {
		featureReqMu.Lock()
		featureReqs = saved
		featureReqMu.Unlock()
		specLabelMu.Lock()
		specLabels = savedLabels
		specLabelMu.Unlock()
		labelFilter = savedFilter
	}()
	for _, id := range []string{"CM-E2E-03", "CM-ACT-09", "CM-E2E-01"} {
		registerRequirement("agent-turn", id)
		recordLabels(id, []string{"req:" + id, "feature:agent-turn"}, nil)
	}
	for filter, want := range map[string]string{
		"":                                     "CM-ACT-09",
		"req:CM-E2E-03":                        "CM-E2E-03",
		"req:CM-E2E-03 || req:CM-E2E-01":       "CM-E2E-01",
		"req:CM-EXEC-01":                       "CM-ACT-09",
		"feature:agent-turn && !req:CM-ACT-09": "CM-E2E-01",
	} {
		labelFilter = func() string { return filter }
		if got := verdictOwner("agent-turn"); got != want {
			t.Errorf("label filter %q: verdictOwner(agent-turn) = %q, want %q", filter, got, want)
		}
	}
	labelFilter = func() string { return "req:CM-E2E-03" }
	if note := notSelectedNote("CM-ACT-09"); !strings.Contains(note, "CM-ACT-09, which owns this precondition, is not selected in this run") {
		t.Errorf("notSelectedNote(CM-ACT-09) under --req CM-E2E-03 = %q", note)
	}
	if note := notSelectedNote("CM-E2E-03"); note != "" {
		t.Errorf("notSelectedNote of a selected requirement = %q, want none", note)
	}
}
