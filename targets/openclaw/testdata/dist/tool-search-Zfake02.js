import { i as getPluginToolMeta } from "./tools-C8fake01.js";
//#region src/agents/tool-search.ts
function createToolSearchCatalogRef() {
	return { current: void 0 };
}
function classifyTool(tool) {
	const meta = getPluginToolMeta(tool);
	if (meta?.pluginId === "bundle-mcp") return { source: "mcp", sourceName: "bundle-mcp" };
	return { source: "openclaw", sourceName: meta?.pluginId ?? "core" };
}
function toCatalogEntry(tool, sourceOverride) {
	const c = classifyTool(tool);
	const source = sourceOverride ?? c.source;
	const sourceName = sourceOverride === "client" ? "client" : c.sourceName;
	return { id: `${source}:${sourceName}:${tool.name}`, source, sourceName, name: tool.name, tool };
}
//#endregion
export { toCatalogEntry as a, createToolSearchCatalogRef as m };
