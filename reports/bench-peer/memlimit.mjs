// memlimit.mjs: how exact is quickjs-wasi's memoryLimit? Compares the build
// OpenClaw 2026.7.35 runs (quickjs-wasi 3.0.2) with the reference's
// (quickjs-wasi 3.7.0), through each package's own QuickJS.create({memoryLimit}),
// the call OpenClaw's code-mode worker makes (dist/agents/code-mode.worker.js).
//
//   node reports/bench-peer/memlimit.mjs [openclaw quickjs-wasi dir] [reference quickjs-wasi dir]
//
// Defaults: the OpenClaw install in the cache (make openclaw-install) and
// reference/engine/quickjs/node_modules (make engine). Output: memlimit.txt.
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { pathToFileURL, fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const cache = process.env.CODEMODE_OPENCLAW_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'codemode-conformance');
const pkgs = [
  ['openclaw 2026.7.35', process.argv[2] ?? path.join(cache, 'openclaw-2026.7.35/node_modules/quickjs-wasi')],
  ['reference', process.argv[3] ?? path.join(here, '../../reference/engine/quickjs/node_modules/quickjs-wasi')],
];
const MiB = 1 << 20;
const mib = (n) => (n / MiB).toFixed(1);

async function run(QuickJS, wasm, memoryLimit, code) {
  const vm = await QuickJS.create({ wasm, ...(memoryLimit ? { memoryLimit } : {}) });
  let out;
  try { const h = vm.evalCode(code); out = 'completed ' + JSON.stringify(vm.dump(h)); h.dispose(); }
  catch (e) { out = 'failed: ' + String(e.message ?? e).split('\n')[0].slice(0, 40); }
  const u = vm.getMemoryUsage();
  const line = `${out}; counted ${mib(u.mallocSize)} MiB, wasm memory ${mib(vm.exports.memory.buffer.byteLength)} MiB`;
  vm.dispose();
  return line;
}

for (const [name, dir] of pkgs) {
  const { version } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const { QuickJS } = await import(pathToFileURL(path.join(dir, 'dist/index.js')));
  const wasm = await WebAssembly.compile(fs.readFileSync(path.join(dir, 'quickjs.wasm')));
  console.log(`${name}: quickjs-wasi ${version}`);
  // What QuickJS adds to its counter per allocation: usable size + 8 (MALLOC_OVERHEAD).
  const vm = await QuickJS.create({ wasm });
  const ex = vm.exports, rt = ex.qjs_get_runtime_ptr();
  const usable = [1, 24, 100, 1000, 1 << 20].map((n) => { const p = ex.js_malloc_rt(rt, n); const u = ex.js_malloc_usable_size_rt(rt, p); ex.js_free_rt(rt, p); return `${n}→${u}`; });
  const before = vm.getMemoryUsage();
  vm.evalCode('globalThis.a = []; for (let i = 0; i < 1e5; i++) a.push({i}); 0').dispose();
  ex.qjs_run_gc();
  const after = vm.getMemoryUsage();
  console.log(`  js_malloc_usable_size_rt (request→usable bytes): ${usable.join(' ')}`);
  console.log(`  1e5 pushes of {i}: ${((after.mallocCount - before.mallocCount) / 1e5).toFixed(1)} allocations and ${((after.mallocSize - before.mallocSize) / 1e5).toFixed(1)} counted bytes per element`);
  vm.dispose();
  for (const lim of [16, 32, 64, 96]) console.log(`  1e6 pushes of {i}, memoryLimit ${lim} MiB: ${await run(QuickJS, wasm, lim * MiB, 'const a = []; for (let i = 0; i < 1e6; i++) a.push({i}); a.length')}`);
  console.log(`  256 live strings of 1 MiB, memoryLimit 16 MiB: ${await run(QuickJS, wasm, 16 * MiB, 'const k = []; for (let i = 0; i < 256; i++) k.push("x".repeat(1 << 20) + i); k.length')}`);
}
