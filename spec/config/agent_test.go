package config_test

import (
	"encoding/json"
	"testing"

	"github.com/codemode-conformance/codemode/spec/config"
)

func TestMergeAgent(t *testing.T) {
	for _, c := range []struct{ global, agent, want string }{
		{`{"enabled":true,"timeoutMs":700}`, ``, `{"enabled":true,"timeoutMs":700}`},
		{`{"enabled":false,"timeoutMs":700}`, `true`, `{"enabled":true,"timeoutMs":700}`},
		{`true`, `false`, `{"enabled":false}`},
		{`{"enabled":true,"timeoutMs":700}`, `{"timeoutMs":900}`, `{"enabled":true,"timeoutMs":900}`},
		{``, `{"enabled":true}`, `{"enabled":true}`},
		{`{"enabled":true}`, `"yes"`, `{"enabled":true}`},
		{`"on"`, `{"enabled":true}`, `{"enabled":true}`},
	} {
		got := config.MergeAgent(json.RawMessage(c.global), json.RawMessage(c.agent))
		var a, b any
		_ = json.Unmarshal(got, &a)
		_ = json.Unmarshal([]byte(c.want), &b)
		ga, _ := json.Marshal(a)
		gb, _ := json.Marshal(b)
		if string(ga) != string(gb) {
			t.Errorf("MergeAgent(%s, %s) = %s, want %s", c.global, c.agent, got, c.want)
		}
	}
}
