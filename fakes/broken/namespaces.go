package broken

// The namespace variants (issue 13): each edits the namespace registrations
// of run.prepare on their way to the reference, so the reference behaves as
// a runtime with that defect would.
func init() {
	Variants = append(Variants,
		Variant{Name: "namespace-ownership-unchecked", Breaks: "CM-NS-02", Spec: "same-named tools of another plugin",
			Defect: "namespace visibility checks only that each required tool name is in the catalog, not its sourceName: another plugin's same-named tools expose the namespace and its calls run them",
			Serve:  rewriting(func(p map[string]any) { forEachRegistration(p, claimSameNamedTools(p)) })},
		Variant{Name: "namespace-proto-accepted", Breaks: "CM-NS-07", Spec: "rejected before any guest code runs",
			Defect: "a __proto__ key of a namespace scope is not rejected: the serialiser renames it and the guest code runs",
			Serve: rewriting(func(p map[string]any) {
				forEachRegistration(p, func(reg map[string]any) { reg["scope"] = renameKey(reg["scope"], "__proto__", "__proto_") })
			})},
		Variant{Name: "namespace-missing-tool-leaks", Breaks: "CM-ACT-07", Spec: "only when the namespace is visible",
			Defect: "a namespace whose required tool is missing from the run catalog is exposed (without the verbs of the missing tool), its prompt in the exec description: only the required tools present are checked",
			Serve: rewriting(func(p map[string]any) {
				forEachRegistration(p, func(reg map[string]any) {
					kept := []any{}
					missing := map[any]bool{}
					req, _ := reg["requiredToolNames"].([]any)
					for _, n := range req {
						if hasTool(p, n, reg["pluginId"]) {
							kept = append(kept, n)
						} else {
							missing[n] = true
						}
					}
					reg["requiredToolNames"] = kept
					dropCallables(reg["scope"], missing)
				})
			})},
	)
}

// forEachRegistration calls f on every registration of run.prepare's
// namespaces member.
func forEachRegistration(p map[string]any, f func(reg map[string]any)) {
	ns, _ := p["namespaces"].(map[string]any)
	regs, _ := ns["register"].([]any)
	for _, x := range regs {
		if reg, ok := x.(map[string]any); ok {
			f(reg)
		}
	}
}

// hasTool reports whether run.prepare declares tool name owned by owner.
func hasTool(p map[string]any, name, owner any) bool {
	found := false
	forEachTool(p, func(t map[string]any) { found = found || (t["name"] == name && t["owner"] == owner) })
	return found
}

// claimSameNamedTools hands a registration to the owner of the declared
// tool named like its first required tool, as a visibility check that
// ignores sourceName would treat it.
func claimSameNamedTools(p map[string]any) func(reg map[string]any) {
	return func(reg map[string]any) {
		req, _ := reg["requiredToolNames"].([]any)
		if len(req) == 0 || hasTool(p, req[0], reg["pluginId"]) {
			return
		}
		forEachTool(p, func(t map[string]any) {
			if t["name"] == req[0] {
				reg["pluginId"] = t["owner"]
			}
		})
	}
}

// renameKey renames every object member named from to to, at any depth.
func renameKey(v any, from, to string) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if k == from {
				k = to
			}
			out[k] = renameKey(e, from, to)
		}
		return out
	case []any:
		for i := range x {
			x[i] = renameKey(x[i], from, to)
		}
	}
	return v
}

// dropCallables removes, at any depth, the tool markers of the tools in
// missing.
func dropCallables(v any, missing map[any]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if m, ok := e.(map[string]any); ok && m["$codemode"] == "tool" && missing[m["tool"]] {
				delete(x, k)
				continue
			}
			dropCallables(e, missing)
		}
	case []any:
		for _, e := range x {
			dropCallables(e, missing)
		}
	}
}
