package broken

import "github.com/codemode-conformance/codemode/reference/codemode"

// The queue variants of CM-NEST-16 (feature bridge-queue, profile v2): a
// bridge queue that treats the calls it parks apart from the calls it sends
// at once, so queueing bypasses policy or cancellation or raises the memory
// limit, or resolves a queued call in a catalog a run.update replaced.
func init() {
	Variants = append(Variants,
		Variant{Name: "queue-skips-policy", Breaks: "CM-NEST-16", Spec: "denies still fails", Profile: "v2",
			Defect: "a call that has to queue is looked up among every tool the run declared, so a policy-denied tool called while the slots are taken is sent",
			Serve:  withDefects(codemode.Defects{QueueSkipsPolicy: true})},
		Variant{Name: "queue-outlives-cell", Breaks: "CM-NEST-16", Spec: "cancelled with their cell", Profile: "v2",
			Defect: "the calls still queued when their cell ends (run.abort) are sent instead of dropped",
			Serve:  withDefects(codemode.Defects{QueueOutlivesCell: true})},
		Variant{Name: "queue-stale-spec", Breaks: "CM-NEST-16", Spec: "checked against the run's catalog when it is sent", Profile: "v2",
			Defect: "a queued call keeps the tool spec it was resolved to when queued, so after run.update restrictTo removed the tool the queued calls are still sent",
			Serve:  withDefects(codemode.Defects{QueueStaleSpec: true})},
		Variant{Name: "queue-uncounted-memory", Breaks: "CM-NEST-16", Spec: "raises no memory limit", Profile: "v2",
			Defect: "the inputs parked in the bridge queue are not counted against memoryLimitBytes, so a guest can hold any amount of data on the host through the queue",
			Serve:  withDefects(codemode.Defects{QueueUncounted: true})},
	)
}
