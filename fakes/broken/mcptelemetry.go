package broken

import "strings"

// The MCP telemetry variants (audit 2026-12-02-stop34, rows CM-CAT-05 and
// CM-MCP-01 (c)): telemetry is there and truthful about a run catalog that
// lost its MCP entries, or about calls resolved per server, so the fault is
// the requirement's own, not CM-TEL-01's.
func init() {
	Variants = append(Variants,
		Variant{Name: "mcp-out-of-run-catalog", Breaks: "CM-CAT-05", Spec: "MCP tools stay out of the guest catalog",
			Defect: "MCP server tools are kept out of the run catalog too, and the telemetry says so truthfully: catalogSources has no \"mcp\" entry",
			Serve: outbound(func(msg map[string]any) (bool, bool) {
				tel := resultTelemetry(msg)
				src, ok := tel["catalogSources"].(map[string]any)
				if !ok || src["mcp"] == nil {
					return false, false
				}
				delete(src, "mcp")
				return true, false
			})},
		Variant{Name: "mcp-ids-per-server", Breaks: "CM-MCP-01", Spec: "reaches exactly that tool of that server",
			Defect: "MCP calls resolve to one catalog id per server (mcp:alpha), not per tool: calledToolIds names two ids for three tools",
			Serve: outbound(func(msg map[string]any) (bool, bool) {
				tel := resultTelemetry(msg)
				ids, ok := tel["calledToolIds"].([]any)
				if !ok || len(ids) == 0 {
					return false, false
				}
				seen := map[string]bool{}
				var out []any
				for _, x := range ids {
					id, _ := x.(string)
					if rest, isMCP := strings.CutPrefix(id, "mcp:"); isMCP {
						srv, _, _ := strings.Cut(rest, ":")
						srv, _, _ = strings.Cut(srv, ".")
						id = "mcp:" + srv
					}
					if !seen[id] {
						seen[id] = true
						out = append(out, id)
					}
				}
				tel["calledToolIds"] = out
				if res, ok := msg["result"].(map[string]any); ok {
					for _, p := range asSlice(res["pendingToolCalls"]) {
						if m, ok := p.(map[string]any); ok {
							delete(m, "toolId")
						}
					}
				}
				return true, false
			})},
	)
}

// resultTelemetry is the telemetry object of a response's result, or nil.
func resultTelemetry(msg map[string]any) map[string]any {
	res, ok := msg["result"].(map[string]any)
	if !ok || msg["method"] != nil {
		return nil
	}
	tel, _ := res["telemetry"].(map[string]any)
	return tel
}

func asSlice(v any) []any { s, _ := v.([]any); return s }
