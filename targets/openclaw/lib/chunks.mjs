// Finds OpenClaw's code-mode functions in its bundled dist/ chunks. Chunk
// file names are content hashes and export names are minified, but each
// chunk ends with `export { localName as alias, … };`, which keeps the
// source names: discovery goes by that clause, never by file name.

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

// discoverChunks scans dir/*.js and returns {name: {file, exported}} for
// every name in `wanted`. A name exported by several chunks goes to the one
// that defines it (`function name(`). Missing names throw an error that says
// which, where it looked, and what that means.
// ext is the chunk file extension (generation 2 ships .mjs chunks).
// optional names are looked for in the same scan but may be missing (the
// answer then has no entry for them).
export function discoverChunks(dir, wanted = REQUIRED, ext = ".js", optional = []) {
  let files;
  try {
    files = fs.readdirSync(dir).filter((f) => f.endsWith(ext)).sort();
  } catch (err) {
    throw new Error(`cannot read OpenClaw dist directory ${dir}: ${err.message}`);
  }
  const candidates = new Map([...wanted, ...optional].map((n) => [n, []]));
  for (const f of files) {
    const tail = readTail(path.join(dir, f));
    if (!tail.includes("export {")) continue;
    for (const { local, exported } of parseExports(tail)) {
      if (candidates.has(local)) candidates.get(local).push({ file: f, exported });
    }
  }
  const found = {};
  const missing = [];
  for (const [name, list] of candidates) {
    if (list.length === 0) {
      if (!optional.includes(name)) missing.push(name);
      continue;
    }
    let pick = list[0];
    if (list.length > 1) {
      const def = new RegExp(`function\\s+${name}\\s*\\(`);
      pick = list.find((c) => def.test(fs.readFileSync(path.join(dir, c.file), "utf8"))) ?? list[0];
    }
    found[name] = pick;
  }
  if (missing.length > 0) {
    const headless = candidatesFor(dir, files, "runCodeModeScriptHeadless");
    const hint = headless
      ? " This looks like a later generation (it exports runCodeModeScriptHeadless but not the generation-1 code-mode tools); this adapter drives generation 1 (2026.5–2026.7.x)."
      : " Is this the dist/ folder of an installed openclaw package (2026.5–2026.7.x)?";
    throw new Error(`OpenClaw dist ${dir}: no chunk exports ${missing.join(", ")} (scanned ${files.length} ${ext} files by their export clause).${hint}`);
  }
  return found;
}

function candidatesFor(dir, files, name) {
  for (const f of files) {
    if (parseExports(readTail(path.join(dir, f))).some((e) => e.local === name)) return f;
  }
  return null;
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
