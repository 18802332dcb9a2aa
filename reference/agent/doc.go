// Package agent is the reference's agent loop for agent.turn (feature
// agent-turn, protocol.md §3 "agent.turn"): it offers a prepared run's
// model-visible tools to an OpenAI-compatible model provider, runs the tool
// calls the model makes (exec/wait through code mode, direct tools through
// tool.invoke), feeds the results back as "tool" messages and stops at the
// final text, returning the turn's transcript.
package agent
