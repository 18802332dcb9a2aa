// Offline tests of chunk discovery by behaviour (lib/chunks.mjs): what a
// release's chunks export and what the exported functions do, never their
// hashed file names. The fixtures are written to temporary dist/ folders in
// the shapes of real releases: 2026.8.2 (the run setup exported only through
// a wrapper that delegates to it) and 2026.5.28 (code mode inlined into the
// embedded-attempt chunk, not exported).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { delegates, locateChunks, discoverChunks, checkDrivable, missingReason, REQUIRED } from "../lib/chunks.mjs";
import { V2_REQUIRED } from "../lib/v2.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));

function distOf(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "openclaw-chunks-"));
  for (const [name, src] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), src);
  return dir;
}

const importer = (dir) => (file) => import(pathToFileURL(path.join(dir, file)).href);

// Like 2026.8.2: .js chunks; createAgentHarnessToolSurfaceRuntimeCore is
// defined in one chunk and exported only as the wrapper
// createAgentHarnessToolSurfaceRuntime, which returns core(params).
function wrapperDist({ wrapperBody = "return createAgentHarnessToolSurfaceRuntimeCore(params);" } = {}) {
  const rest = V2_REQUIRED.filter((n) => n !== "createAgentHarnessToolSurfaceRuntimeCore");
  return distOf({
    "agent-harness-tool-runtime-Wfake01.js":
      `function createAgentHarnessToolSurfaceRuntimeCore(params) {\n\treturn { core: true, params };\n}\n//#endregion\n` +
      `function createAgentHarnessToolSurfaceRuntime(params) {\n\t${wrapperBody}\n}\n//#endregion\nexport { createAgentHarnessToolSurfaceRuntime as t };\n`,
    "tool-surface-plan-Wfake02.js": `${rest.map((n) => `function ${n}() { return "${n}"; }`).join("\n")}\nexport { ${rest.map((n, i) => `${n} as ${String.fromCharCode(97 + i)}`).join(", ")} };\n`,
  });
}

test("delegates accepts a wrapper whose whole body returns its callee with the same arguments, and nothing else", () => {
  const src = (body, params = "params") => `function W(${params}) {\n\t${body}\n}\n`;
  assert.ok(delegates(src("return core(params);"), "W", "core"));
  assert.ok(delegates(src("return core(a, b);", "a, b"), "W", "core"));
  assert.ok(delegates(`async function core(p) {}\nasync function W(p) { return await core(p); }`, "W", "core"), "async around async");
  assert.ok(!delegates(`function core(p) {}\nasync function W(p) { return core(p); }`, "W", "core"), "async around a synchronous function returns a promise instead");
  assert.ok(!delegates(src("return core(params, extra);"), "W", "core"), "other arguments: other behaviour");
  assert.ok(!delegates(src("return { customTools: core(params.tools) };"), "W", "core"), "a wrapper that reshapes (2026.5.28's splitSdkTools) is not the function");
  assert.ok(!delegates(src("log(params);\n\treturn core(params);"), "W", "core"), "a body that does more first");
  assert.ok(!delegates(src("return core(params);", "params = {}"), "W", "core"), "a default parameter changes what the callee sees");
  assert.ok(!delegates(src("return coreX(params);"), "W", "core"), "another callee");
});

test("locateChunks finds a function exported only through a delegating wrapper, in .js chunks, by behaviour (2026.8.2)", () => {
  const dir = wrapperDist();
  const { found, missing } = locateChunks(dir, V2_REQUIRED);
  assert.deepEqual(missing, []);
  assert.deepEqual(found.createAgentHarnessToolSurfaceRuntimeCore, { file: "agent-harness-tool-runtime-Wfake01.js", exported: "t", via: "createAgentHarnessToolSurfaceRuntime" });
  assert.equal(found.toToolDefinitions.file, "tool-surface-plan-Wfake02.js");
  // The file names play no part: renamed chunks give the same answer.
  const renamed = distOf(Object.fromEntries(fs.readdirSync(dir).map((f, i) => [`chunk-${i}-Zz9.js`, fs.readFileSync(path.join(dir, f), "utf8")])));
  assert.deepEqual(locateChunks(renamed, V2_REQUIRED).found.createAgentHarnessToolSurfaceRuntimeCore, { file: "chunk-0-Zz9.js", exported: "t", via: "createAgentHarnessToolSurfaceRuntime" });
});

test("a wrapper that does not only delegate does not stand for the function; the reason names where it is defined", () => {
  const dir = wrapperDist({ wrapperBody: "return createAgentHarnessToolSurfaceRuntimeCore({ ...params, codeModeOverride: false });" });
  const { missing } = locateChunks(dir, V2_REQUIRED);
  assert.deepEqual(missing, [{ name: "createAgentHarnessToolSurfaceRuntimeCore", definedIn: "agent-harness-tool-runtime-Wfake01.js" }]);
  assert.throws(() => discoverChunks(dir, V2_REQUIRED), /createAgentHarnessToolSurfaceRuntimeCore is defined in agent-harness-tool-runtime-Wfake01\.js but neither exported nor wrapped by an exported function/);
});

// Like 2026.5.28: the generation-1 code-mode functions are defined in the
// embedded-attempt chunk and used there only; one of them is not defined at
// all.
function inlinedDist() {
  const present = REQUIRED.filter((n) => !["createCodeModeTools", "applyCodeModeCatalog", "resolveCodeModeConfig", "addClientToolsToCodeModeCatalog", "toToolDefinitions"].includes(n));
  return distOf({
    "selection-Ifake01.js":
      "function createCodeModeTools(ctx) { return []; }\nfunction applyCodeModeCatalog(params) { return params; }\nfunction resolveCodeModeConfig(config, agentId) { return {}; }\n" +
      "function addClientToolsToCodeModeCatalog(params) { return params; }\nasync function runEmbeddedAttempt(params) { const tools = createCodeModeTools(params); return { tools }; }\nexport { runEmbeddedAttempt as r };\n",
    "tools-Ifake02.js": `${present.map((n) => `function ${n}() {}`).join("\n")}\nexport { ${present.map((n, i) => `${n} as ${String.fromCharCode(97 + i)}`).join(", ")} };\n`,
  });
}

test("a function defined but neither exported nor wrapped is missing with the chunk that defines it; one defined nowhere says so (2026.5.28)", async () => {
  const dir = inlinedDist();
  const { missing } = locateChunks(dir, REQUIRED);
  assert.deepEqual(missing, [
    { name: "createCodeModeTools", definedIn: "selection-Ifake01.js" },
    { name: "applyCodeModeCatalog", definedIn: "selection-Ifake01.js" },
    { name: "resolveCodeModeConfig", definedIn: "selection-Ifake01.js" },
    { name: "addClientToolsToCodeModeCatalog", definedIn: "selection-Ifake01.js" },
    { name: "toToolDefinitions", definedIn: null },
  ]);
  assert.match(missingReason(missing), /^createCodeModeTools is defined in selection-Ifake01\.js but neither exported nor wrapped by an exported function; .*; toToolDefinitions is defined in no chunk$/);
  const r = await checkDrivable(dir, REQUIRED, importer(dir));
  assert.equal(r.drivable, false);
  assert.equal(r.reason, missingReason(missing));
  assert.equal(r.chunks, 2);
});

test("checkDrivable loads what it finds: drivable through a wrapper, and not drivable when an export is no function", async () => {
  const dir = wrapperDist();
  assert.deepEqual(await checkDrivable(dir, V2_REQUIRED, importer(dir)), { drivable: true, missing: [], wrappers: { createAgentHarnessToolSurfaceRuntimeCore: "createAgentHarnessToolSurfaceRuntime" }, chunks: 2, reason: "" });
  const bad = distOf({ "x-Bfake01.js": "function resolveCodeModeConfig() {}\nconst createCodeModeTools = 3;\nexport { createCodeModeTools as c, resolveCodeModeConfig as r };\n" });
  const r = await checkDrivable(bad, ["createCodeModeTools", "resolveCodeModeConfig"], importer(bad));
  assert.equal(r.drivable, false);
  assert.match(r.reason, /do not load: .*export c \(createCodeModeTools\) is not a function/);
});

test("adapter --check prints one JSON answer and exits 0 for a drivable dist, 3 for one that is not", () => {
  const run = (adapter, dist) => spawnSync(process.execPath, [path.join(here, "..", adapter), "--dist", dist, "--version", "9.9.9", "--check"], { encoding: "utf8" });
  const ok = run("adapter.mjs", path.join(here, "..", "testdata", "dist"));
  assert.equal(ok.status, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout), { version: "9.9.9", generation: 1, adapter: "adapter.mjs", drivable: true, missing: [], wrappers: {}, chunks: 6, reason: "" });
  const v2 = run("adapter-v2.mjs", wrapperDist());
  assert.equal(v2.status, 0, v2.stderr);
  assert.equal(JSON.parse(v2.stdout).wrappers.createAgentHarnessToolSurfaceRuntimeCore, "createAgentHarnessToolSurfaceRuntime");
  const no = run("adapter.mjs", inlinedDist());
  assert.equal(no.status, 3, no.stderr);
  const answer = JSON.parse(no.stdout);
  assert.equal(answer.drivable, false);
  assert.equal(answer.missing[0].definedIn, "selection-Ifake01.js");
  assert.equal(no.stdout.trim().split("\n").length, 1, "stdout carries the one answer only");
});
