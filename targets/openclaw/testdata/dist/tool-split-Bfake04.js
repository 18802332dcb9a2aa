//#region src/agents/pi-tool-definition-adapter.ts (stand-in)
function toToolDefinitions(tools) {
	return tools.map((tool) => ({
		name: tool.name,
		execute: async (toolCallId, params, signal, onUpdate) => {
			try {
				return await tool.execute(toolCallId, params, signal, onUpdate);
			} catch (err) {
				const payload = { status: "error", tool: tool.name, error: err.message };
				return { content: [{ type: "text", text: JSON.stringify(payload) }], details: payload };
			}
		},
	}));
}
//#endregion
export { toToolDefinitions as o };
