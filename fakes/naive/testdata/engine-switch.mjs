// engine-switch.mjs: target.mjs behind a filter that makes it resume a
// waiting cell on another engine, the defect CM-CFG-08 (executor-choice)
// must catch: the value of a completed wait reports as "after" the probe of
// an engine other than the one the cell started on ("before"). Test asset of
// executors_test.go; every other message passes through unchanged.
import { spawn } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";

const target = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "target.mjs");
const child = spawn(process.execPath, [target, ...process.argv.slice(2)], { stdio: ["pipe", "pipe", "inherit"] });
process.stdin.pipe(child.stdin);
const waits = new Set(); // ids of the harness's tool.wait requests
readline.createInterface({ input: process.stdin }).on("line", (l) => {
  try {
    const m = JSON.parse(l);
    if (m.method === "tool.wait") waits.add(m.id);
  } catch {}
});
readline.createInterface({ input: child.stdout }).on("line", (l) => {
  let m;
  try { m = JSON.parse(l); } catch { process.stdout.write(l + "\n"); return; }
  const v = m.result?.value;
  if (waits.delete(m.id) && m.result?.status === "completed" && v && typeof v === "object" && "before" in v && "after" in v) {
    v.after = v.before === "undefined/undefined" ? "object/object" : "undefined/undefined";
  }
  process.stdout.write(JSON.stringify(m) + "\n");
});
child.on("exit", (code) => process.exit(code ?? 1));
