// Guest dialect, profile v2 (generation 2, page 001): the helpers spec cells
// call, rendered onto 001's model-facing surface, "快速索引、目录句柄和
// API.read" (001 [TypeScript]: quick index, catalog handles and API.read),
// as spec/protocol.md §12.13 defines it. The canonical v2 call is a catalog
// handle: catalog.all() lists the run's handles, and await handle(input) is
// a nested call of the tool that resolves with its result (§12.13 "Async
// tool globals and handles"; the async global of the same name is the same
// handle). Prepended to a cell on one line (suites/framework Guest), as
// test262 prepends its includes; lines starting with "//" are dropped.
//
// A helper the target's surface lacks throws an Error whose message starts
// with "codemode-dialect: blocked by CM-TS-06:", and the harness turns the
// cell's failure into "blocked by CM-TS-06", the requirement that owns the
// catalog handles (001 [TypeScript], §12.13).
//
// - dispatch(name, input?): the promise the handle whose toolName is name
//   returned, unchanged (for specs about unawaited or unhandled calls,
//   CM-NEST-09/-22/-23, where the promise itself counts).
// - call(name, input?): the tool's plain result (await dispatch).
// - search(query, options?): catalog.search's handles as plain entries
//   {name, label?, description, source, sourceName?, callableName}.
// - describe(name): the handle's describe(), plus name (its toolName):
//   description, parameters (the input schema) and outputSchema if declared.
// - listTools(): every handle of catalog.all() as a plain entry, as search.
// - refKey(ref): what load and delete take for a reference results.save
//   resolved to. 001 [运行和快照生命周期] says only "results.save(value) 引用"
//   (a reference) and gives it no shape: a descriptor object with a string
//   id (OpenClaw 2026.9.6: {id, bytes, count, shape, preview, ...}, loaded
//   by its id) gives that id, anything else (the reference's string) itself.
// - id(name) and callValue(catalogId, x) are generation 1's (v1.js), for
//   cells still written in 000's tools.* API; without ALL_TOOLS, id(name)
//   is name, so callValue(id(name), x) is x (no v2 surface has envelopes).
const __dialectMissing = (what) => { throw new Error("codemode-dialect: blocked by CM-TS-06: " + what + " (page 001 names catalog handles without defining them; the names catalog.all(), toolName and describe() are OpenClaw 2026.9.6's source, spec/protocol.md §12.13)"); };
// A v2 target that has no catalog global but declares 000's surface
// (feature tools-api, which v2 allows) is reached through tools.call: these
// helpers only carry a spec's cell to its tools, and CM-TS-06 judges the
// catalog surface itself. The stand-in handles keep 000's catalog id, so
// call unwraps an envelope with callValue as v1.js does.
const __dialectOldSurface = () => (typeof catalog === "undefined" || catalog === null) && typeof tools === "object" && tools !== null && typeof tools.call === "function" && Array.isArray(typeof ALL_TOOLS === "undefined" ? undefined : ALL_TOOLS);
const __dialectStandIn = (t) => { const h = (...input) => tools.call(t.id, ...input); h.toolName = t.name; h.label = t.label; h.description = t.description; h.source = t.source; h.sourceName = t.sourceName; h.catalogId = t.id; h.describe = () => tools.describe(t.id); return h; };
const __dialectHandles = () => { if (__dialectOldSurface()) return ALL_TOOLS.map(__dialectStandIn); if (typeof catalog === "undefined" || catalog === null || typeof catalog.all !== "function") __dialectMissing("the cell has no catalog global with catalog.all()"); const a = catalog.all(); if (!Array.isArray(a)) __dialectMissing("catalog.all() did not return an array of handles"); return a; };
const __dialectHandle = (n) => { const h = __dialectHandles().find((h) => typeof h === "function" && h.toolName === n); if (!h) throw new Error("no tool named " + n); return h; };
const __dialectEntry = (h) => { const e = {name: h.toolName}; if (h.label !== undefined) e.label = h.label; e.description = h.description; e.source = h.source; if (h.sourceName !== undefined) e.sourceName = h.sourceName; e.callableName = h.callableName; return e; };
const id = (n) => { if (typeof ALL_TOOLS === "undefined") return n; const t = ALL_TOOLS.find((t) => t.name === n); if (!t) throw new Error("no tool named " + n); return t.id; };
const callValue = (catalogId, x) => { if (x === null || typeof x !== "object" || Array.isArray(x)) return x; const k = Object.keys(x).sort(); if (k.length !== 2 || k[0] !== "result" || k[1] !== "tool") return x; const t = x.tool, r = x.result; if (t === null || typeof t !== "object" || t.id !== catalogId || r === null || typeof r !== "object" || !Object.prototype.hasOwnProperty.call(r, "details")) return x; return r.details; };
const dispatch = (n, ...input) => __dialectHandle(n)(...input);
const call = async (n, ...input) => { const h = __dialectHandle(n); const v = await h(...input); return h.catalogId === undefined ? v : callValue(h.catalogId, v); };
const search = async (q, ...options) => { if (__dialectOldSurface()) return tools.search(q, ...options); __dialectHandles(); return (await catalog.search(q, ...options)).map(__dialectEntry); };
const describe = async (n) => { const h = __dialectHandle(n); const d = await h.describe(); if (h.catalogId !== undefined) return d; return Object.assign({name: d.toolName}, d); };
const listTools = () => __dialectHandles().map(__dialectEntry);
const refKey = (ref) => (ref !== null && typeof ref === "object" && !Array.isArray(ref) && typeof ref.id === "string") ? ref.id : ref;
