// Finds OpenClaw's code-mode functions in its bundled dist/ chunks. Chunk
// file names are content hashes and export names are minified, but each
// chunk ends with `export { localName as alias, … };`, which keeps the
// source names: discovery goes by that clause and by what the exported
// functions do (a wrapper that only delegates stands for its callee), never
// by file name (locateChunks).

import fs from "node:fs";
import path from "node:path";

// The functions the adapter drives, by source name (generation 1).
export const REQUIRED = [
  "createCodeModeTools",
  "applyCodeModeCatalog",
  "resolveCodeModeConfig",
  "addClientToolsToCodeModeCatalog",
  "createToolSearchCatalogRef",
  "setPluginToolMeta",
  "getPluginToolMeta",
  "toToolDefinitions",
  "pickSandboxToolPolicy",
  "buildDefaultToolPolicyPipelineSteps",
  "applyToolPolicyPipeline",
];

const TAIL_BYTES = 16384;

// parseExports reads the last `export { … }` clause of a chunk's source and
// returns [{local, exported}]. Chunks without one give [].
export function parseExports(source) {
  const at = source.lastIndexOf("export {");
  if (at < 0) return [];
  const end = source.indexOf("}", at);
  if (end < 0) return [];
  return source
    .slice(at + "export {".length, end)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const m = /^([A-Za-z_$][\w$]*)(?:\s+as\s+([A-Za-z_$][\w$]*|"[^"]*"))?$/.exec(s);
      return m ? { local: m[1], exported: (m[2] ?? m[1]).replace(/^"|"$/g, "") } : null;
    })
    .filter(Boolean);
}

function readTail(file) {
  const fd = fs.openSync(file, "r");
  try {
    const size = fs.fstatSync(fd).size;
    const len = Math.min(size, TAIL_BYTES);
    const buf = Buffer.alloc(len);
    fs.readSync(fd, buf, 0, len, size - len);
    return buf.toString("utf8");
  } finally {
    fs.closeSync(fd);
  }
}

// CHUNK_EXTS are the chunk file extensions discovery scans: 2026.5–2026.8.x
// ship .js chunks, 2026.9.x .mjs (with some .js beside them). The extension
// tells no generation apart; what a chunk exports does.
export const CHUNK_EXTS = [".js", ".mjs"];

// delegates reports whether source defines `function wrapper(p, …)` whose
// whole body is `return name(p, …);` with the same parameters: a wrapper
// that behaves as name does (2026.8.2 exports
// createAgentHarnessToolSurfaceRuntime, which only returns
// createAgentHarnessToolSurfaceRuntimeCore(params), and not the core
// itself). An async wrapper (`return [await] name(…)`) counts only for an
// async name: around a synchronous one it returns a promise instead.
export function delegates(source, wrapper, name) {
  const esc = (s) => s.replace(/\$/g, "\\$");
  const re = new RegExp(`(async\\s+)?function\\s+${esc(wrapper)}\\s*\\(([^)]*)\\)\\s*\\{\\s*return\\s+(?:await\\s+)?${esc(name)}\\s*\\(([^)]*)\\)\\s*;?\\s*\\}`);
  const m = re.exec(source);
  if (!m) return false;
  if (m[1] && !new RegExp(`async\\s+function\\s+${esc(name)}\\s*\\(`).test(source)) return false;
  const norm = (list) => list.split(",").map((x) => x.trim()).filter(Boolean).join(",");
  return norm(m[2]) === norm(m[3]) && !/[=.{[]/.test(m[2]);
}

// locateChunks scans dir's chunks (files ending in one of exts) and finds
// each name of wanted and optional by behaviour, never by file name:
//  1. a chunk whose export clause names it (the source name survives
//     minification there); several: the one that defines it
//     (`function name(`);
//  2. else an exported function of the chunk that defines it whose whole
//     body delegates to it with the same arguments (delegates above);
//  3. else it is missing, with the reason: defined in a chunk but neither
//     exported nor wrapped by an export (2026.5.x inlines code mode into its
//     embedded-attempt chunk), or defined in no chunk at all.
// It returns {found: {name: {file, exported[, via]}}, missing: [{name,
// definedIn}] (definedIn null: defined nowhere; only names of wanted), files:
// the number of chunks scanned}. An unreadable dir throws.
export function locateChunks(dir, wanted = REQUIRED, exts = CHUNK_EXTS, optional = []) {
  const suffixes = typeof exts === "string" ? [exts] : exts;
  let files;
  try {
    files = fs.readdirSync(dir).filter((f) => suffixes.some((e) => f.endsWith(e))).sort();
  } catch (err) {
    throw new Error(`cannot read OpenClaw dist directory ${dir}: ${err.message}`);
  }
  const names = [...new Set([...wanted, ...optional])];
  const candidates = new Map(names.map((n) => [n, []]));
  const clauses = new Map(); // file -> its export clause, for step 2
  for (const f of files) {
    const tail = readTail(path.join(dir, f));
    if (!tail.includes("export {")) continue;
    const exports = parseExports(tail);
    clauses.set(f, exports);
    for (const { local, exported } of exports) {
      if (candidates.has(local)) candidates.get(local).push({ file: f, exported });
    }
  }
  const found = {};
  const unexported = [];
  for (const [name, list] of candidates) {
    if (list.length === 0) {
      unexported.push(name);
      continue;
    }
    let pick = list[0];
    if (list.length > 1) {
      const def = definition(name);
      pick = list.find((c) => def.test(fs.readFileSync(path.join(dir, c.file), "utf8"))) ?? list[0];
    }
    found[name] = pick;
  }
  const missing = [];
  if (unexported.length > 0) {
    const definedIn = new Map(unexported.map((n) => [n, null]));
    for (const f of clauses.keys()) {
      const source = fs.readFileSync(path.join(dir, f), "utf8");
      for (const name of unexported) {
        if (definedIn.get(name) !== null || !definition(name).test(source)) continue;
        definedIn.set(name, f);
        const wrapper = clauses.get(f).find((e) => delegates(source, e.local, name));
        if (wrapper) found[name] = { file: f, exported: wrapper.exported, via: wrapper.local };
      }
      if ([...definedIn.values()].every((v) => v !== null)) break;
    }
    for (const name of unexported) {
      if (found[name] === undefined && wanted.includes(name)) missing.push({ name, definedIn: definedIn.get(name) });
    }
  }
  return { found, missing, files: files.length };
}

function definition(name) {
  return new RegExp(`function\\s+${name.replace(/\$/g, "\\$")}\\s*\\(`);
}

// missingReason is one sentence per missing entry of locateChunks.
export function missingReason(missing) {
  return missing
    .map(({ name, definedIn }) =>
      definedIn ? `${name} is defined in ${definedIn} but neither exported nor wrapped by an exported function` : `${name} is defined in no chunk`,
    )
    .join("; ");
}

// discoverChunks is locateChunks' found, and throws when a name of wanted is
// missing: the error says which, why (missingReason), where it looked, and
// what that means.
export function discoverChunks(dir, wanted = REQUIRED, exts = CHUNK_EXTS, optional = []) {
  const { found, missing, files } = locateChunks(dir, wanted, exts, optional);
  if (missing.length > 0) {
    // The generation-1 set on a later release: say so.
    const later = wanted.includes("applyCodeModeCatalog") && locateChunks(dir, [], exts, ["runCodeModeScriptHeadless"]).found.runCodeModeScriptHeadless;
    const hint = later
      ? " This looks like a later generation (it exports runCodeModeScriptHeadless but not the generation-1 code-mode tools); this adapter drives generation 1 (2026.6–2026.7.x)."
      : " Is this the dist/ folder of an installed openclaw package?";
    throw new Error(`OpenClaw dist ${dir}: no chunk exports ${missing.map((m) => m.name).join(", ")} (scanned ${files} ${[].concat(exts).join("/")} chunks by their export clause and delegating wrappers): ${missingReason(missing)}.${hint}`);
  }
  return found;
}

// loadSurface imports the chunks found by discoverChunks (importer(file)
// returns the module namespace) and returns {name: function}.
export async function loadSurface(found, importer) {
  const mods = new Map();
  const out = {};
  for (const [name, { file, exported }] of Object.entries(found)) {
    if (!mods.has(file)) mods.set(file, await importer(file));
    const fn = mods.get(file)[exported];
    if (typeof fn !== "function") throw new Error(`OpenClaw chunk ${file}: export ${exported} (${name}) is not a function`);
    out[name] = fn;
  }
  return out;
}

// pick is the part of discoverChunks' answer for names.
export function pick(found, names) {
  return Object.fromEntries(names.map((n) => [n, found[n]]));
}

// has reports whether every name was found.
export function has(found, names) {
  return names.every((n) => found[n] !== undefined);
}

// once returns a function that runs load the first time it is called and
// hands every caller the same promise (chunks loaded on first use: the MCP
// runtime and the config schema pull in modules a run may never need, and
// the adapter must answer initialize quickly on a loaded machine).
export function once(load) {
  let p;
  return () => (p ??= load());
}

// checkDrivable answers an adapter's --check (openclaw-install --check, make
// openclaw-matrix): whether dir has every function of wanted, found by
// locateChunks and loaded as functions with importer. It returns
// {drivable, missing: [{name, definedIn}], wrappers: {name: exportedWrapper},
// chunks: the number scanned, reason: "" or why not (missingReason, or the
// load error)}.
export async function checkDrivable(dir, wanted, importer, optional = []) {
  let located;
  try {
    located = locateChunks(dir, wanted, CHUNK_EXTS, optional);
  } catch (err) {
    return { drivable: false, missing: [], wrappers: {}, chunks: 0, reason: err.message };
  }
  const { found, missing, files } = located;
  const wrappers = Object.fromEntries(Object.entries(found).filter(([, v]) => v.via).map(([k, v]) => [k, v.via]));
  if (missing.length > 0) return { drivable: false, missing, wrappers, chunks: files, reason: missingReason(missing) };
  try {
    await loadSurface(pick(found, wanted), importer);
  } catch (err) {
    return { drivable: false, missing, wrappers, chunks: files, reason: `the chunks are found but do not load: ${err.message}` };
  }
  return { drivable: true, missing, wrappers, chunks: files, reason: "" };
}
