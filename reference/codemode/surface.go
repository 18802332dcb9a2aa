package codemode

import (
	"encoding/json"
	"fmt"

	"github.com/codemode-conformance/codemode/spec/config"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// execSchema is the exec input schema (CM-ACT-06).
const execSchema = `{"type":"object","properties":{"code":{"type":"string","description":"JavaScript (or TypeScript) program body. Top-level await and return are allowed; the returned value becomes value."},"command":{"type":"string","description":"Alias of code."},"language":{"type":"string","enum":["javascript","typescript"],"default":"javascript"}},"additionalProperties":false}`

const waitSchema = `{"type":"object","properties":{"runId":{"type":"string","description":"runId of a waiting exec result."}},"required":["runId"],"additionalProperties":false}`

// modelTools is the model-visible surface of an active run: exactly exec and
// wait (CM-ACT-02, CM-ACT-06).
func modelTools(cfg config.Config) []protocol.ModelTool {
	desc := fmt.Sprintf(`Run a JavaScript program in a sandbox (QuickJS-WASI) to search, describe and call the hidden tool catalog. Languages: %v.
Guest API: ALL_TOOLS (compact {id, name, label?, description, source, sourceName?} entries); await tools.search(query, {limit}); await tools.describe(id) (adds parameters); await tools.call(id, input); tools.<name>(input) helpers for unambiguous names; MCP.<server>.<tool>({...}) and API.list/API.read for MCP declarations; namespaces; text(value) and json(value) append output; await yield_control(reason) suspends.
The program's final return value becomes value in a completed result. A waiting result has a runId: call wait({runId}) to continue.
No import, require, filesystem, network or environment access.
Limits: timeout %d ms per exec or wait, memory %d bytes, output %d bytes, snapshot %d bytes, %d nested tool calls in flight, search limit %d (max %d).`,
		cfg.Languages, cfg.TimeoutMs, cfg.MemoryLimitBytes, cfg.MaxOutputBytes, cfg.MaxSnapshotBytes,
		cfg.MaxPendingToolCalls, cfg.SearchDefaultLimit, cfg.MaxSearchLimit)
	return []protocol.ModelTool{
		{Name: "exec", Description: desc, InputSchema: json.RawMessage(execSchema)},
		{Name: "wait", Description: "Resume a waiting code mode run: wait({runId}). Returns the same result union as exec.", InputSchema: json.RawMessage(waitSchema)},
	}
}
