package protocol

import (
	"strings"
	"testing"
)

func TestSalvageReadsTheEnvelopeOfUndecodableLines(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	for _, c := range []struct {
		line, id string
		response bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":Infinity}`, "7", true},
		{`{"jsonrpc":"2.0","result":{"x":"\"id\":9"},"id":"a\"b"}`, `"a\"b"`, true},
		{`{"jsonrpc":"2.0","id":3,"result":` + deep + `}`, "3", true},
		{`{"jsonrpc":"2.0","id":4,"method":"tool.exec","params":` + deep + `}`, "4", false},
		{`{"jsonrpc":"2.0","error":{"id":5},"id":null}`, "", true},
		{`{"jsonrpc":"2.0","result":[{"id":6}]}`, "", true},
		{`not json`, "", false},
	} {
		id, response := salvage([]byte(c.line))
		if string(id) != c.id || response != c.response {
			t.Errorf("salvage(%.60s) = %s, %v; want %s, %v", c.line, id, response, c.id, c.response)
		}
	}
}
