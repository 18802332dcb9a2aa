// OpenClaw's own validation of tools.codeMode when a config is loaded: the
// zod ToolsSchema (zod-schema.agent-runtime-*, src/config/zod-schema.*),
// found by its export name. A config the schema refuses is one OpenClaw
// does not load, so the run is refused with invalid_config (spec/protocol.md
// §5.1, CM-CFG-05/06) and OpenClaw's own issue text; an accepted one goes
// on to resolveCodeModeConfig unchanged.

import path from "node:path";
import { pathToFileURL } from "node:url";

// loadToolsSchema returns the schema (an object with safeParse); at is
// discoverChunks' entry for ToolsSchema.
export async function loadToolsSchema(distDir, at) {
  const schema = (await import(pathToFileURL(path.join(distDir, at.file)).href))[at.exported];
  if (typeof schema?.safeParse !== "function") throw new Error(`OpenClaw chunk ${at.file}: export ${at.exported} (ToolsSchema) is not a zod schema`);
  return schema;
}

// codeModeConfigError validates config.tools ({codeMode} or {}) and returns
// null or OpenClaw's error text, "tools.codeMode…: <message>" per issue.
export function codeModeConfigError(schema, tools) {
  if (schema === null) return null;
  const r = schema.safeParse(tools);
  if (r.success) return null;
  return r.error.issues.map((i) => `tools.${i.path.join(".")}: ${i.message}`).join("; ");
}
