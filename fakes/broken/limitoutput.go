package broken

// limit-drops-output: the fault of issue 25 item 2 (CM-EXEC-14).
func init() {
	Variants = append(Variants, Variant{Name: "limit-drops-output", Breaks: "CM-EXEC-14", Spec: "timeout or an out-of-memory failure",
		Defect: "a cell that a timeout or out of memory ends loses the output written since the last collection, as a host that collects output only after the job loop would",
		Serve: rewritingResults(func(res map[string]any) bool {
			if res["status"] != "failed" || (res["code"] != "timeout" && res["code"] != "memory_limit_exceeded") {
				return false
			}
			delete(res, "output")
			return true
		})})
}
