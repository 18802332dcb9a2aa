// Guest dialect, profile v1 (generation 1, page 000): the helpers spec cells
// call, rendered onto 000's guest API (spec/protocol.md §12.2-§12.3).
// Prepended to a cell on one line (suites/framework Guest), as test262
// prepends its includes; lines starting with "//" are dropped when rendered.
//
// A helper the target's surface lacks throws an Error whose message starts
// with "codemode-dialect: blocked by CM-GUEST-01:", and the harness turns the
// cell's failure into "blocked by CM-GUEST-01" (000 [API runtime guest]: the
// globals ALL_TOOLS and tools exist in every cell).
//
// - id(name): the catalog id of the tool named name, from ALL_TOOLS (000
//   [API runtime guest]: compact entries {id, name, ...}; ids are the
//   target's business, specs never hard-code them).
// - callValue(catalogId, x): x unchanged unless it is exactly the envelope
//   {tool: {id: catalogId, ...}, result: {details, ...}} (OpenClaw 2026.7.35),
//   then result.details; what tools.call resolves to is CM-GUEST-05's alone.
// - dispatch(name, input?): the promise tools.call(id(name), input) returned,
//   unchanged (000 [API runtime guest] tools.call; for specs about unawaited
//   or unhandled calls, CM-NEST-09/-22/-23, where the promise itself counts).
// - call(name, input?): the tool's plain result (dispatch, then callValue).
// - search(query, options?): tools.search's compact entries (000 tools.search).
// - describe(name): tools.describe(id(name)), the entry plus parameters (000
//   tools.describe).
// - listTools(): ALL_TOOLS, the compact entries (000 ALL_TOOLS).
const __dialectMissing = (what) => { throw new Error("codemode-dialect: blocked by CM-GUEST-01: " + what + " (page 000 [API runtime guest])"); };
const __dialectTools = () => { if (typeof tools === "undefined" || tools === null || typeof tools.call !== "function") __dialectMissing("the cell has no tools global with tools.call"); return tools; };
const __dialectAll = () => { if (typeof ALL_TOOLS === "undefined" || !Array.isArray(ALL_TOOLS)) __dialectMissing("the cell has no ALL_TOOLS array"); return ALL_TOOLS; };
const id = (n) => { const t = __dialectAll().find((t) => t.name === n); if (!t) throw new Error("no tool named " + n); return t.id; };
const callValue = (catalogId, x) => { if (x === null || typeof x !== "object" || Array.isArray(x)) return x; const k = Object.keys(x).sort(); if (k.length !== 2 || k[0] !== "result" || k[1] !== "tool") return x; const t = x.tool, r = x.result; if (t === null || typeof t !== "object" || t.id !== catalogId || r === null || typeof r !== "object" || !Object.prototype.hasOwnProperty.call(r, "details")) return x; return r.details; };
const dispatch = (n, ...input) => __dialectTools().call(id(n), ...input);
const call = async (n, ...input) => { const i = id(n); return callValue(i, await __dialectTools().call(i, ...input)); };
const search = (q, ...options) => __dialectTools().search(q, ...options);
const describe = (n) => __dialectTools().describe(id(n));
const listTools = () => __dialectAll();
