package broken

import "github.com/codemode-conformance/codemode/reference/codemode"

// The continuation variants keep a waiting cell's live VM, as the
// conforming builtin:continuation target does (codemode.ContinuationSuspender,
// spec/protocol.md §8 "Targets without snapshots"), and then misreport it.
// They serve and are judged under v2, which allows a target without
// snapshot-executor (v1 requires it).
func init() {
	continuations := codemode.Options{Suspender: codemode.ContinuationSuspender{}, DrainFraction: 1, Profile: "v2"}
	Variants = append(Variants,
		Variant{Name: "phantom-snapshot-events", Breaks: "CM-TEL-03", Profile: "v2",
			Defect: "a waiting cell is a live continuation (no snapshot-executor, runtime.stats snapshots 0), yet telemetry reports its lifecycle as snapshot events: no kind \"continuation\"",
			Serve: outboundWith(continuations, func(msg map[string]any) (edited, drop bool) {
				res, _ := msg["result"].(map[string]any)
				tel, _ := res["telemetry"].(map[string]any)
				evs, _ := tel["snapshotEvents"].([]any)
				for _, e := range evs {
					if m, ok := e.(map[string]any); ok {
						delete(m, "kind")
						edited = true
					}
				}
				return edited, false
			})},
		Variant{Name: "uncounted-continuations", Breaks: "CM-RUN-02", Profile: "v2",
			Defect: "a waiting cell is a live continuation and runtime.stats never counts it: suspendedRuns, snapshots and liveVMs always 0, so no deletion can be seen",
			Serve: outboundWith(continuations, func(msg map[string]any) (edited, drop bool) {
				res, ok := msg["result"].(map[string]any)
				if _, stats := res["liveVMs"]; !ok || !stats {
					return false, false
				}
				res["liveVMs"], res["snapshots"], res["snapshotBytes"], res["suspendedRuns"] = 0, 0, 0, 0
				return true, false
			})},
	)
}
