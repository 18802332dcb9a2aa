package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codemode-conformance/codemode/reference/mcp"
)

// The one-line signatures of generation 2's catalog surface (CM-TS-06).
func TestSignatures(t *testing.T) {
	in := json.RawMessage(`{"type":"object","properties":{"verbose":{"type":"boolean"},"orderId":{"type":"string","description":"The order"},"tags":{"type":"array","items":{"enum":["a","b"]}},"filter":{"type":"object","properties":{"since":{"type":"string"}}}},"required":["orderId"]}`)
	out := json.RawMessage(`{"type":"object","properties":{"status":{"enum":["open","shipped"]},"total":{"type":"number"}},"required":["status","total"],"additionalProperties":false}`)
	cases := []struct {
		name, got, want string
	}{
		{"input", mcp.InputSignature(in), `{ orderId: string; filter?: { since?: string }; tags?: ("a" | "b")[]; verbose?: boolean }`},
		{"output", mcp.OutputSignature(out), `{ status: "open" | "shipped"; total: number }`},
		{"no output schema", mcp.OutputSignature(nil), "unknown"},
		{"malformed output schema", mcp.OutputSignature(json.RawMessage(`[1]`)), "unknown"},
		{"no input schema", mcp.InputSignature(nil), "Record<string, unknown>"},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s signature (-want +got)\n%s", c.name, diff)
		}
		if strings.Contains(c.got, "\n") {
			t.Errorf("%s signature must be one line: %q", c.name, c.got)
		}
	}

	d := mcp.ToolDeclaration("lookup_order", "lookup-order", "openclaw:core:lookup-order", "Look up an order.", in, out)
	parseTS(t, "tools/lookup_order.d.ts", d)
	for _, sub := range []string{"declare function lookup_order(input: {", "@param orderId The order", `status: "open" | "shipped";`, "Look up an order."} {
		if !strings.Contains(d, sub) {
			t.Errorf("declaration lacks %q:\n%s", sub, d)
		}
	}
	d = mcp.ToolDeclaration("ping", "ping", "openclaw:core:ping", "", json.RawMessage(`{"type":"object","properties":{}}`), nil)
	parseTS(t, "tools/ping.d.ts", d)
	if !strings.Contains(d, "declare function ping(input?: Record<string, unknown>): Promise<unknown>;") {
		t.Errorf("a tool without required input or output schema must declare an optional input and Promise<unknown>:\n%s", d)
	}
}
