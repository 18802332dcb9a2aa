package broken

// The big-state-refused variant: a target whose snapshots of a cell holding
// megabytes outgrow the default maxSnapshotBytes (10 MiB), as an engine
// storing strings as UTF-16 with per-string metadata would: here the
// default limit is lowered to 2 MiB, so CM-EXEC-08's cell holding 4 MiB is
// refused with snapshot_limit_exceeded instead of suspending. That is
// CM-EXEC-08's failure ("resumes a cell holding megabytes of state"), not a
// suspension fault of CM-EXEC-17, whose small cells suspend.
func init() {
	Variants = append(Variants, Variant{Name: "big-state-refused", Breaks: "CM-EXEC-08", Spec: "megabytes of state",
		Defect: "a cell holding a few MiB is refused with snapshot_limit_exceeded under the default maxSnapshotBytes (the target's snapshots outgrow 10 MiB; here the default is 2 MiB)",
		Serve: rewriting(func(p map[string]any) {
			const small = 2 << 20
			switch cm := p["codeMode"].(type) {
			case map[string]any:
				if _, set := cm["maxSnapshotBytes"]; !set {
					cm["maxSnapshotBytes"] = small
				}
			case bool:
				if cm {
					p["codeMode"] = map[string]any{"enabled": true, "maxSnapshotBytes": small}
				}
			}
		})})
}
