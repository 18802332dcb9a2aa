async function runCodeModeScriptHeadless() {
	return { status: "completed", value: null, output: [], toolCallCount: 0 };
}
export { runCodeModeScriptHeadless as a };
