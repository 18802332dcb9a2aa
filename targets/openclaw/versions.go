package openclaw

import (
	"fmt"
	"slices"
	"strings"
)

// generations maps a pinned version to the OpenClaw generation of its code
// mode; absent means generation 1 (2026.5–2026.7.x, profile v1).
// Generation 2 (2026.8–2026.9.x, profile v2) has another run setup
// (createAgentHarnessToolSurfaceRuntimeCore, exported by 2026.8.2 only
// through a wrapper that delegates to it), driven by adapter-v2.mjs; 2026.8.x
// ships .js chunks, 2026.9.x .mjs (lib/chunks.mjs scans both).
//
// Pinned releases the adapters cannot drive stay pinned, so that
// openclaw-install --check can say why (make openclaw-matrix writes it to
// reports/openclaw-<version>/drivability.json): 2026.5.28 defines the
// generation-1 code-mode functions inside its embedded-attempt chunk and
// exports none of them; 2026.9.4 has no createAgentHarnessToolSurfaceRuntimeCore
// (its embedded attempt composes the tool surface from
// resolveAgentToolSurfacePlan and applyAgentToolSurfaceCatalog itself).
var generations = map[string]int{
	"2026.8.2": 2,
	"2026.9.4": 2,
	"2026.9.6": 2,
}

// adapterEntry is the adapter script that drives version.
func adapterEntry(version string) string {
	if generations[version] == 2 {
		return "adapter-v2.mjs"
	}
	return "adapter.mjs"
}

// Executors a target spec can select with "+<executor>" after the version
// (openclaw:2026.9.6+quickjs), per version: 2026.9.6 ships QuickJS as a
// bundled plugin executor (extensions/code-mode-quickjs) beside its default
// Node executor (001), chosen by tools.codeMode.executor. 2026.8.2, also
// generation 2, ships no such plugin.
var executors = map[string][]string{"2026.9.6": {"quickjs"}}

// ParseSpec splits "openclaw:<version>[+<executor>]" into the pinned
// version and the executor ("" for OpenClaw's default). An executor the
// version does not ship (executors) is ErrUnknownVersion.
func ParseSpec(spec string) (version, executor string, err error) {
	v := strings.TrimSpace(strings.TrimPrefix(spec, Prefix))
	version, executor, _ = strings.Cut(v, "+")
	if executor != "" && !slices.Contains(executors[version], executor) {
		return "", "", fmt.Errorf("%w %q: %s ships no selectable executor %q (selectable: 2026.9.6+quickjs)", ErrUnknownVersion, v, version, executor)
	}
	return version, executor, nil
}

// Generation is the OpenClaw generation of version's code mode: 2 for the
// versions the generation table names, else 1.
func Generation(version string) int {
	if generations[version] == 2 {
		return 2
	}
	return 1
}

// Profile is the conformance profile version's generation is judged under
// ("v1" for generation 1, "v2" for generation 2; spec/protocol.md §9).
func Profile(version string) string {
	return fmt.Sprintf("v%d", Generation(version))
}
