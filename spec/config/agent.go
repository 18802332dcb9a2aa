package config

import (
	"bytes"
	"encoding/json"
)

// MergeAgent is the configuration a run of an agent resolves (CM-CFG-10):
// the runtime (global) `tools.codeMode` value, with the agent's own
// `agents.list[].tools.codeMode` laid over it field by field, as OpenClaw
// does ({...global, ...agent}). `true` and `false` stand for
// {"enabled": true} and {"enabled": false}. An absent agent value, or one
// that is neither a boolean nor an object, leaves global unchanged; a
// global value that is neither counts as {} under an agent value.
func MergeAgent(global, agent json.RawMessage) json.RawMessage {
	a := normalize(agent)
	if a == nil {
		return global
	}
	g := normalize(global)
	if g == nil {
		g = map[string]json.RawMessage{}
	}
	for k, v := range a {
		g[k] = v
	}
	b, err := json.Marshal(g)
	if err != nil {
		return global
	}
	return b
}

// normalize reads a raw tools.codeMode value as an object; nil when it is
// absent or neither a boolean nor an object.
func normalize(raw json.RawMessage) map[string]json.RawMessage {
	t := bytes.TrimSpace(raw)
	switch {
	case bytes.Equal(t, []byte("true")):
		return map[string]json.RawMessage{"enabled": json.RawMessage("true")}
	case bytes.Equal(t, []byte("false")):
		return map[string]json.RawMessage{"enabled": json.RawMessage("false")}
	case len(t) > 0 && t[0] == '{':
		var m map[string]json.RawMessage
		if json.Unmarshal(t, &m) == nil && m != nil {
			return m
		}
	}
	return nil
}
