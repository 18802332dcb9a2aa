import { a as toCatalogEntry } from "./tool-search-Zfake02.js";
//#region src/agents/code-mode.ts (stand-in: same signatures and result shapes)
const CONTROL = new WeakSet();
const jsonResult = (payload) => ({ content: [{ type: "text", text: JSON.stringify(payload, null, 2) }], details: payload });
function resolveCodeModeConfig(config) {
	const raw = config?.tools?.codeMode;
	const enabled = raw === true || (raw !== null && typeof raw === "object" && raw.enabled === true);
	return { enabled, runtime: "quickjs-wasi", mode: "only", timeoutMs: typeof raw?.timeoutMs === "number" ? raw.timeoutMs : 1e4 };
}
// The fixture "runs" a tiny command language instead of JavaScript:
//   value:<json>           completes with that value
//   call:<catalogId>:<json> calls a catalog tool and completes with {tool, result}
//   log                    writes to console.log (must not reach the protocol stream)
function createCodeModeTools(ctx) {
	const exec = {
		name: "exec",
		label: "exec",
		description: "Run JavaScript or TypeScript in OpenClaw code mode.",
		parameters: { type: "object", properties: { code: { type: "string" } } },
		execute: async (toolCallId, args, signal) => {
			const code = args?.code ?? args?.command;
			if (typeof code !== "string" || !code.trim()) throw new Error("code or command must be a non-empty string.");
			const telemetry = { catalogSize: ctx.catalogRef.current?.entries.length ?? 0, visibleTools: ["exec", "wait"] };
			if (code === "log") {
				console.log("fixture log line");
				return jsonResult({ status: "completed", value: "logged", output: [], telemetry });
			}
			if (code.startsWith("value:")) return jsonResult({ status: "completed", value: JSON.parse(code.slice(6)), output: [], telemetry });
			if (code.startsWith("call:")) {
				const rest = code.slice(5);
				const at = rest.lastIndexOf(":{");
				const id = rest.slice(0, at);
				const entry = ctx.catalogRef.current.entries.find((e) => e.id === id);
				try {
					const result = await ctx.executeTool({ tool: entry.tool, toolName: entry.name, toolCallId: `tool_search_code:${toolCallId}:${entry.name}:1`, parentToolCallId: toolCallId, input: JSON.parse(rest.slice(at + 1)), signal });
					return jsonResult({ status: "completed", value: { tool: { id }, result }, output: [], telemetry });
				} catch (e) {
					return jsonResult({ status: "failed", error: `Error: ${e.message}`, output: [], telemetry });
				}
			}
			return jsonResult({ status: "failed", error: "SyntaxError: unexpected token", output: [], telemetry });
		},
	};
	const wait = {
		name: "wait",
		label: "wait",
		description: "Resume a suspended OpenClaw code mode run returned by exec.",
		parameters: { type: "object", properties: { runId: { type: "string" } }, required: ["runId"] },
		execute: async () => {
			throw new Error("code mode run is unavailable or expired.");
		},
	};
	CONTROL.add(exec);
	CONTROL.add(wait);
	return [exec, wait];
}
function applyCodeModeCatalog(params) {
	if (!resolveCodeModeConfig(params.config).enabled) return { tools: params.tools };
	const entries = params.tools.filter((t) => !CONTROL.has(t)).map((t) => toCatalogEntry(t));
	params.catalogRef.current = { entries };
	return { tools: params.tools.filter((t) => CONTROL.has(t)) };
}
function addClientToolsToCodeModeCatalog(params) {
	if (!resolveCodeModeConfig(params.config).enabled) return { tools: params.tools };
	params.catalogRef.current.entries.push(...params.tools.map((t) => toCatalogEntry(t, "client")));
	return { tools: [] };
}
function runCodeModeScriptHeadless() {
	throw new Error("not in the fixture");
}
//#endregion
export { runCodeModeScriptHeadless as a, resolveCodeModeConfig as i, applyCodeModeCatalog as n, createCodeModeTools as r, addClientToolsToCodeModeCatalog as t };
