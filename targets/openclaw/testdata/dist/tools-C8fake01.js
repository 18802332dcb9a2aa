//#region src/plugins/tools.ts
const pluginToolMeta = new WeakMap();
function setPluginToolMeta(tool, meta) {
	pluginToolMeta.set(tool, meta);
}
function getPluginToolMeta(tool) {
	return pluginToolMeta.get(tool);
}
//#endregion
export { getPluginToolMeta as i, setPluginToolMeta as s };
