package broken

func init() {
	Variants = append(Variants, Variant{Name: "no-nested-deadline", Breaks: "CM-NEST-24",
		Defect: "a nested call has no deadline of its own: an unanswered call keeps its cell waiting for as long as the model calls wait",
		Serve:  withoutNestedDeadline()})
}

// withoutNestedDeadline: the reference's nested call deadline is
// snapshotTtlSeconds; the proxy prepares every run with the largest TTL
// (one day), so within a spec an unanswered call never reaches its deadline
// and the cell answers waiting to every wait, as before issue 11.
func withoutNestedDeadline() serveFunc {
	return rewriting(func(p map[string]any) {
		switch cm := p["codeMode"].(type) {
		case map[string]any:
			cm["snapshotTtlSeconds"] = 86400
		case bool:
			if cm {
				p["codeMode"] = map[string]any{"enabled": true, "snapshotTtlSeconds": 86400}
			}
		}
	})
}
