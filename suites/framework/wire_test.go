package framework

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/onsi/gomega"
)

// allocated is how many bytes the Go runtime has allocated so far in all.
func allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// A target that writes 1 GiB with no newline is caught at the harness's
// maximum message size: the harness allocates far less than 100 MB for it
// (it held 2 GB: issue 11), kills the target, and the next call says why,
// with the size.
func TestUnterminatedGiBIsATargetFault(t *testing.T) {
	g := gomega.NewWithT(t)
	const marker = "654321"
	before := allocated()
	tg, err := Connect(context.Background(), fakeTarget(t, "read l; echo '"+initLine+"'; head -c 1073741824 /dev/zero | tr '\\0' a; sleep "+marker))
	g.Expect(err).NotTo(gomega.HaveOccurred(), "connect")
	defer tg.Close()
	g.Eventually(tg.Alive).WithTimeout(60*time.Second).Should(gomega.BeFalse(), "the harness gives up on the target at the bound")
	g.Expect(allocated()-before).To(gomega.BeNumerically("<", 100<<20), "the harness allocated at most about one bound for the line, not the line")
	_, err = tg.Stats(context.Background())
	g.Expect(err).To(gomega.MatchError(gomega.ContainSubstring(fmt.Sprintf("target fault: it sent a message of more than %d bytes", protocol.DefaultMaxMessageBytes))),
		"a later call names the fault and the bound")
	g.Eventually(func() error { return exec.Command("pgrep", "-f", "sleep "+marker).Run() }).Should(gomega.HaveOccurred(),
		"the target's process group is killed")
}

// MaxMessageBytes is the harness's bound (--max-message-bytes): a complete
// message over it is reported with its size.
func TestOversizedResponseNamesItsSize(t *testing.T) {
	g := gomega.NewWithT(t)
	old := MaxMessageBytes
	MaxMessageBytes = 1000
	defer func() { MaxMessageBytes = old }()
	big := `{"jsonrpc":"2.0","id":2,"result":{"pad":"` + strings.Repeat("p", 2000) + `"}}`
	tg, err := Connect(context.Background(), fakeTarget(t, "read l; echo '"+initLine+"'; read s; echo '"+big+"'; sleep 30"))
	g.Expect(err).NotTo(gomega.HaveOccurred(), "connect")
	defer tg.Close()
	_, err = tg.Stats(context.Background())
	g.Expect(err).To(gomega.MatchError(gomega.ContainSubstring(fmt.Sprintf("target fault: it sent a response of %d bytes, over the harness's maximum message size of 1000 bytes", len(big)))),
		"the answer over the bound is a fault of the target, with its size (here the whole line was in the first read)")
}

// A target with more than maxOutstandingInvokes tool.invoke calls the
// harness has not answered (here: it never reads the answers) is flooding:
// the harness stops reading, kills it and says why, instead of holding a
// goroutine and a message per call (a 100k flood cost 1.2 GB).
func TestInvokeFloodIsATargetFault(t *testing.T) {
	g := gomega.NewWithT(t)
	_ = refusals.takeFlood()
	const n = 5000
	invoke := `{"jsonrpc":"2.0","id":%%d,"method":"tool.invoke","params":{"run":"run","toolCallId":"c%%d","parentToolCallId":"exec-1","catalogId":"openclaw:core:echo","tool":"echo","source":"openclaw","owner":"core","input":{},"context":{"agentId":"a","sessionId":"s","sessionKey":"k","senderId":"u","channel":"c"}}}\n`
	tg, err := Connect(context.Background(), fakeTarget(t, fmt.Sprintf("read l; echo '%s'; read go; i=0; while [ $i -lt %d ]; do i=$((i+1)); printf '"+invoke+"' $i $i; done; sleep 30", initLine, n)))
	g.Expect(err).NotTo(gomega.HaveOccurred(), "connect")
	defer tg.Close()
	set := tools.NewSet(tools.Echo())
	tg.router.add("run", protocol.PrepareParams{Run: "run", Tools: set.Specs()}, set)
	tg.router.begin("run", "exec-1", "")
	go func() { _, _ = tg.Stats(context.Background()) }() // lets the target start
	g.Eventually(tg.Alive).WithTimeout(60*time.Second).Should(gomega.BeFalse(), "the flooding target is abandoned")
	g.Expect(refusals.takeFlood()).To(gomega.Equal(invokeFloodReason), "the running spec fails with the flood")
	g.Expect(len(set.Calls())).To(gomega.BeNumerically("<", n), "the harness stopped answering")
	_, err = tg.Stats(context.Background())
	g.Expect(err).To(gomega.MatchError(gomega.ContainSubstring("tool.invoke calls outstanding at once")), "a later call says why the target is gone")
}

// A tool.invoke with malformed params gets -32602 (it got -32010) and is
// recorded for the running spec.
func TestMalformedInvokeGetsInvalidParams(t *testing.T) {
	g := gomega.NewWithT(t)
	_, _ = refusals.take()
	bad := `{"jsonrpc":"2.0","id":7,"method":"tool.invoke","params":{"run":"ghost","toolCallId":5}}`
	answer := t.TempDir() + "/answer"
	tg, err := Connect(context.Background(), fakeTarget(t, "read l; echo '"+initLine+"'; echo '"+bad+"'; read a; echo \"$a\" > "+answer+"; read end"))
	g.Expect(err).NotTo(gomega.HaveOccurred(), "connect")
	defer tg.Close()
	g.Eventually(func() string { b, _ := os.ReadFile(answer); return string(b) }).WithTimeout(10*time.Second).
		Should(gomega.ContainSubstring(`"code":-32602`), "the target gets invalid params")
	list, _ := refusals.take()
	g.Expect(list).To(gomega.HaveLen(1), "the malformed call is charged to the running spec")
	g.Expect(list[0].Reason).To(gomega.And(gomega.ContainSubstring("toolCallId must be a non-empty string"), gomega.ContainSubstring("context is missing")),
		"the refusal names every fault")
}

// What a target says in initialize is bounded before it reaches reports.
func TestInitializeIsBounded(t *testing.T) {
	g := gomega.NewWithT(t)
	r := protocol.InitializeResult{Implementation: protocol.Peer{Name: strings.Repeat("n", 1<<20), Version: "1.0"},
		Features: make([]string, 1000), NotDrivable: []protocol.NotDrivable{{Requirement: "CM-EXEC-01", Reason: strings.Repeat("é", 5000)}}}
	boundInit(&r)
	g.Expect(len(r.Implementation.Name)).To(gomega.BeNumerically("<=", maxInitText+30), "the name is cut")
	g.Expect(r.Implementation.Name).To(gomega.HaveSuffix(fmt.Sprintf("… (%d bytes)", 1<<20)), "the cut says the original size")
	g.Expect(r.Implementation.Version).To(gomega.Equal("1.0"), "short texts are kept")
	g.Expect(r.Features).To(gomega.HaveLen(maxInitEntries), "the feature list is cut")
	g.Expect(len(r.NotDrivable[0].Reason)).To(gomega.BeNumerically("<=", maxInitReason+30), "a reason is cut")
	g.Expect(strings.ToValidUTF8(r.NotDrivable[0].Reason, "?")).To(gomega.Equal(r.NotDrivable[0].Reason), "cut at a UTF-8 boundary")
}
