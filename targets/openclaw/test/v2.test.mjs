// Offline tests of the generation-2 adapter pieces (lib/v2.mjs,
// adapter-v2.mjs) against small .mjs chunks written to a temporary dist/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { discoverChunks } from "../lib/chunks.mjs";
import { V2_REQUIRED, V2_FEATURES, V2_NOT_DRIVABLE } from "../lib/v2.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));

function gen2Dist() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "openclaw-v2-"));
  // Like 2026.9.6: .mjs chunks, minified aliases; a re-export without a
  // definition must lose to the defining chunk.
  const body = V2_REQUIRED.map((n) => `function ${n}() {}`).join("\n");
  const clause = V2_REQUIRED.map((n, i) => `${n} as ${String.fromCharCode(97 + i)}`).join(", ");
  fs.writeFileSync(path.join(dir, "tool-surface-bridge-Xfake01.mjs"), `${body}\nexport { ${clause} };\n`);
  fs.writeFileSync(path.join(dir, "reexport-Yfake02.mjs"), `import { a as createAgentHarnessToolSurfaceRuntimeCore } from "./tool-surface-bridge-Xfake01.mjs";\nexport { createAgentHarnessToolSurfaceRuntimeCore as z };\n`);
  return dir;
}

test("discoverChunks finds the generation-2 functions in .mjs chunks by their export clause", () => {
  const dir = gen2Dist();
  const found = discoverChunks(dir, V2_REQUIRED, ".mjs");
  assert.deepEqual(Object.keys(found).sort(), [...V2_REQUIRED].sort());
  assert.deepEqual(found.createAgentHarnessToolSurfaceRuntimeCore, { file: "tool-surface-bridge-Xfake01.mjs", exported: "a" });
  assert.throws(() => discoverChunks(dir, V2_REQUIRED), /no chunk exports/, "with the default .js extension a generation-2 dist has no chunks");
});

test("the generation-2 adapter declares profile-v2 features only and says why each surface is not drivable", () => {
  for (const f of ["typescript", "pending-call-limit", "snapshot-executor", "isolation"]) assert.ok(!V2_FEATURES.includes(f), `${f} is not a v2 feature the adapter drives`);
  for (const nd of V2_NOT_DRIVABLE) {
    assert.ok(nd.requirement || nd.surface || nd.feature, "each entry names a requirement, a surface or a feature");
    assert.ok(nd.reason.length > 20, `entry ${nd.requirement ?? nd.surface ?? nd.feature} gives a reason`);
  }
});

test("adapter-v2 exits with a clear message when the dist is not generation 2", () => {
  const r = spawnSync(process.execPath, [path.join(here, "..", "adapter-v2.mjs"), "--dist", path.join(here, "..", "testdata", "dist")], { encoding: "utf8", input: "" });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /openclaw adapter \(generation 2\): .*no chunk exports createAgentHarnessToolSurfaceRuntimeCore/);
});
