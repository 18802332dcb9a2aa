import { i as getPluginToolMeta } from "./tools-C8fake01.js";
//#region src/agents/tool-policy-pipeline.ts (stand-in: deny wins, then allow by tool name or plugin id)
function pickSandboxToolPolicy(config) {
	if (!config) return;
	return { allow: Array.isArray(config.allow) ? config.allow : void 0, deny: Array.isArray(config.deny) ? config.deny : void 0 };
}
function buildDefaultToolPolicyPipelineSteps(params) {
	return [{ policy: params.agentPolicy, label: `agents.${params.agentId}.tools.allow` }];
}
function applyToolPolicyPipeline(params) {
	let tools = params.tools;
	for (const step of params.steps) {
		const p = step.policy;
		if (!p) continue;
		const hit = (list, t) => list.includes(t.name) || list.includes(params.toolMeta(t)?.pluginId);
		tools = tools.filter((t) => !(p.deny && hit(p.deny, t)) && (!p.allow || hit(p.allow, t)));
	}
	return tools;
}
//#endregion
export { buildDefaultToolPolicyPipelineSteps as n, pickSandboxToolPolicy as p, applyToolPolicyPipeline as t };
