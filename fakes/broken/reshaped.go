package broken

import (
	"context"
	"io"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// The specs issue 24's triage reshaped (commit 2eb66c7, helper ocfix;
// spec/CHANGES.md, "issue 23: variants for the specs issue 24's triage
// reshaped"): CM-E2E-08 compares the trajectory by position, CM-RUN-05
// suspends at a harness-released hold tool and completes every cell it
// suspended, CM-SEC-02's realm probe walks page 001's catalog handles on a
// target without 000's tools. Each variant is a fault the reshaped spec
// still catches, charged to the requirement whose text it violates.
func init() {
	Variants = append(Variants,
		Variant{Name: "trajectory-one-parent", Breaks: "CM-E2E-08",
			Defect: "run.trajectory files every nested call of a cell under the exec that started the cell, also the calls made after a wait resumed it (their tool.invoke named the wait as parentToolCallId)",
			Serve:  outbound(oneParentTrajectory)},
		Variant{Name: "resume-keeps-suspended-place", Breaks: "CM-RUN-05",
			Defect: "a cell that wait restores stays counted among the process's suspended runs (the count falls only when a parked snapshot is deleted: run.abort, run.end, expiry), so once 64 cells completed through wait every new suspension fails with too many suspended code mode runs",
			Serve:  withDefectsUnder("", codemode.Defects{ResumeKeepsSuspendedPlace: true})},
		Variant{Name: "catalog-handles-host-errors", Breaks: "CM-SEC-02", Profile: "v2",
			Spec:   "every value the host hands the guest is of the guest realm",
			Defect: "a v2 target with 001's catalog handles only (no tools-api, no tools or ALL_TOOLS, as OpenClaw 2026.9.6) whose failed handle calls reject with the host's own Error object: a prototype chain of the host realm, e.constructor.constructor the host's Function, which returns the host global with process",
			Serve:  catalogOnly(hostErrorHandles)},
	)
}

// oneParentTrajectory rewrites a run.trajectory answer so that every nested
// row's parentToolCallId is the toolCallId of the first exec/wait row
// before it that is an exec: the cell's origin, not the exec or wait call
// during which the guest made the call (protocol.md §4, run.trajectory's
// TrajectoryCall).
func oneParentTrajectory(msg map[string]any) (edited, drop bool) {
	res, ok := msg["result"].(map[string]any)
	calls, isTrajectory := res["calls"].([]any)
	if !ok || msg["method"] != nil || !isTrajectory {
		return false, false
	}
	exec := ""
	for _, x := range calls {
		c, _ := x.(map[string]any)
		if c == nil {
			continue
		}
		parent, _ := c["parentToolCallId"].(string)
		switch {
		case parent == "" && c["tool"] == "exec":
			exec, _ = c["toolCallId"].(string)
		case parent != "" && exec != "" && parent != exec:
			c["parentToolCallId"] = exec
			edited = true
		}
	}
	return edited, false
}

// catalogHidden is put before the code of every exec of catalogOnly: the
// cell finds neither 000's tools nor ALL_TOOLS, lexically or on globalThis
// (a Proxy that reads and writes the global's other properties; the global itself
// cannot be proxied: its tools is a non-configurable property, whose value
// a get trap must return), only 001's catalog.
const catalogHidden = `const tools = undefined, ALL_TOOLS = undefined; ` +
	`const globalThis = (() => { const g = Function("return this")(); return new Proxy(Object.create(null), {get: (_, k) => (k === "tools" || k === "ALL_TOOLS" ? undefined : k === "catalog" ? catalog : Reflect.get(g, k)), ` +
	`has: (_, k) => k !== "tools" && k !== "ALL_TOOLS" && Reflect.has(g, k), set: (_, k, v) => Reflect.set(g, k, v), deleteProperty: (_, k) => Reflect.deleteProperty(g, k)}); })(); `

// hostErrorHandles shadows catalog with one whose handles reject, when the
// tool call fails, with a stand-in for the host realm's Error: its chain
// ends at the host's Object.prototype (not the guest's), and its
// constructor's constructor is the host's Function, whose
// Function("return this")() is the host global with process, as an Error
// handed over from a Node host into a node:vm context would be.
const hostErrorHandles = `const catalog = (() => { const real = Function("return this")().catalog; ` +
	`const hostObjectPrototype = Object.create(null); const hostGlobal = Object.create(hostObjectPrototype); hostGlobal.process = Object.create(hostObjectPrototype); ` +
	`const HostFunction = function Function() { return () => hostGlobal; }; const HostError = function Error() {}; Object.defineProperty(HostError, "constructor", {value: HostFunction}); ` +
	`const hostErrorPrototype = Object.create(hostObjectPrototype); Object.defineProperty(hostErrorPrototype, "constructor", {value: HostError}); ` +
	`const hostError = (e) => { const h = Object.create(hostErrorPrototype); if (e !== null && typeof e === "object") for (const k of Object.keys(e)) h[k] = e[k]; else h.message = String(e); return h; }; ` +
	`const wrapped = new Map(); const wrap = (h) => { if (typeof h !== "function") return h; if (wrapped.has(h)) return wrapped.get(h); ` +
	`const w = (input) => Promise.resolve(h(input)).catch((e) => { throw hostError(e); }); Object.defineProperty(w, "name", {value: h.name}); ` +
	`for (const k of Object.keys(h)) w[k] = h[k]; if (typeof h.describe === "function") w.describe = h.describe; w.toJSON = () => h.toJSON(); ` +
	`Object.freeze(w); wrapped.set(h, w); return w; }; ` +
	`const c = Object.create(null); c.all = () => Object.freeze(real.all().map(wrap)); c.search = (q, o) => real.search(q, o).then((hs) => Object.freeze(hs.map(wrap))); ` +
	`return Object.freeze(c); })(); `

// catalogOnly serves the v2 reference as a target with page 001's catalog
// surface only: initialize leaves tools-api out of its features, and every
// exec's code starts with shadow (a const catalog of the variant's own),
// then catalogHidden. suites/framework/dialect/v2surface hides 000's
// surface the same way for the conforming reference (its catalogonly test:
// CM-SEC-02 passes there on the handles).
func catalogOnly(shadow string) serveFunc {
	v2 := codemode.Options{Profile: "v2"}
	return func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
		fromInner, innerW := io.Pipe()
		go func() {
			pump(fromInner, w, func(msg map[string]any) (bool, verdict) {
				res, ok := msg["result"].(map[string]any)
				if _, isInit := res["protocolVersion"]; !ok || msg["method"] != nil || !isInit {
					return false, forward
				}
				feats := []any{}
				for _, f := range v2.Features() {
					if f != "tools-api" {
						feats = append(feats, f)
					}
				}
				res["features"] = feats
				return true, forward
			})
			fromInner.Close()
			w.Close()
		}()
		innerR, toInner := io.Pipe()
		go func() {
			pump(r, toInner, func(msg map[string]any) (bool, verdict) {
				return msg["method"] == protocol.MethodToolExec && editCode(msg, func(code string) string {
					return shadow + catalogHidden + code
				}), forward
			})
			toInner.Close()
		}()
		return server.Serve(ctx, innerR, innerW, server.Options{Engine: eng, Runtime: v2})
	}
}
