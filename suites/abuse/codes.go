package abuse

import (
	"context"
	"fmt"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
)

// faultCase is one line a conforming peer never sends, and the JSON-RPC 2.0
// error code it must get.
type faultCase struct {
	name string
	line string
	// id is the request id the answer must echo; nil: id null (or absent),
	// the line has none a target could read.
	id   any
	want int
}

var faultCases = []faultCase{
	{"the number 42", `42`, nil, -32600},
	{`the string "s"`, `"s"`, nil, -32600},
	{"an empty array", `[]`, nil, -32600},
	{"an empty object", `{}`, nil, -32600},
	{"a truncated object", `{"jsonrpc":"2.0","id":1,"method":"runtime.stats"`, nil, -32700},
	{"text that is not JSON", `this is not JSON`, nil, -32700},
	{"an unknown method", `{"jsonrpc":"2.0","id":"abuse-unknown","method":"abuse.no_such_method","params":{}}`, "abuse-unknown", -32601},
	{"tool.exec with params of the wrong types", `{"jsonrpc":"2.0","id":"abuse-types","method":"tool.exec","params":{"run":42,"toolCallId":["x"],"input":"return 1"}}`, "abuse-types", -32602},
	{"run.prepare with a run that is not a string", `{"jsonrpc":"2.0","id":"abuse-prepare","method":"run.prepare","params":{"run":{"id":"x"},"agentId":7}}`, "abuse-prepare", -32602},
}

var _ = Describe("abuse", "JSON-RPC error codes", func() {
	It("CM-PROT-04", "42, \"s\", [] and {} get -32600, invalid JSON -32700, an unknown method -32601, params of the wrong type -32602, and the connection keeps serving", func(ctx SpecContext) {
		c := OpenRaw(ctx)
		got, want := map[string]string{}, map[string]string{}
		for _, fc := range faultCases {
			want[fc.name] = fmt.Sprintf("error %d", fc.want)
			got[fc.name] = answerTo(ctx, c, fc)
		}
		Expect(cmp.Diff(want, got)).To(BeEmpty(), "each faulty line must get JSON-RPC 2.0's error code (-want +got)")
		expectServing(ctx, c, "the faulty lines")
	})
})

// answerTo writes fc's line and describes the answer it got: "error <code>",
// "result …", or why there was none. A runtime.stats sent right after it
// must be answered too; the fault's answer may come before or after it.
func answerTo(ctx context.Context, c *RawConn, fc faultCase) string {
	from := len(c.Received())
	Expect(c.Write([]byte(fc.line+"\n"))).To(Succeed(), "writing %s", fc.name)
	probe := c.NewID()
	Expect(c.Send(probe, protocol.MethodRuntimeStats, nil)).To(Succeed(), "writing runtime.stats after %s", fc.name)
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	_, err := c.Response(cctx, probe)
	Expect(err).NotTo(HaveOccurred(), "runtime.stats sent after %s (%s) must be answered", fc.name, fc.line)
	m, err := c.WaitFor(cctx, func(m RawMessage) bool {
		if m.Seq <= from || !m.IsResponse() || m.HasID(probe) {
			return false
		}
		if fc.id == nil {
			return len(m.ID) == 0 || string(m.ID) == "null"
		}
		return m.HasID(fc.id)
	})
	switch {
	case err != nil:
		return fmt.Sprintf("no answer (%v)", err)
	case m.Error == nil:
		return "result " + string(m.Result)
	}
	return fmt.Sprintf("error %d", m.Error.Code)
}
