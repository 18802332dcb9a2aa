package framework

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/onsi/gomega"
)

// blocking is a tool that runs until its context is canceled.
func blocking() tools.Tool {
	return tools.Core("block", "Block until canceled.", nil, func(ctx context.Context, _ json.RawMessage) (any, error) {
		<-ctx.Done()
		return nil, protocol.ToolError("canceled", nil)
	})
}

// A target that reuses a toolCallId for two running invocations still gets
// both canceled by one tool.cancel.
func TestRouterCancelsEveryInvocationOfAReusedID(t *testing.T) {
	r := newRouter()
	set := tools.NewSet(blocking())
	r.add("run", set)
	p := protocol.InvokeParams{Run: "run", ToolCallID: "dup", Tool: "block", Source: protocol.SourceOpenClaw, Owner: "core"}
	done := make(chan struct{}, 2)
	for range 2 {
		go func() { _, _ = r.invoke(context.Background(), p); done <- struct{}{} }()
	}
	gomega.NewWithT(t).Eventually(set.Active).Should(gomega.Equal(2), "both invocations must start")
	r.cancel(protocol.CancelParams{Run: "run", ToolCallID: "dup"})
	<-done
	<-done
	if got := set.Canceled(); got != 2 {
		t.Fatalf("canceled %d invocations, want 2", got)
	}
}

// A cancel that arrives before its invocation cancels that invocation only,
// not a later one that reuses the id.
func TestRouterEarlyCancelAppliesOnce(t *testing.T) {
	r := newRouter()
	set := tools.NewSet(blocking(), tools.Echo())
	r.add("run", set)
	r.cancel(protocol.CancelParams{Run: "run", ToolCallID: "early"})
	if _, err := r.invoke(context.Background(), protocol.InvokeParams{Run: "run", ToolCallID: "early", Tool: "block", Source: protocol.SourceOpenClaw, Owner: "core"}); err == nil {
		t.Fatal("the early-canceled invocation was not canceled")
	}
	out, err := r.invoke(context.Background(), protocol.InvokeParams{Run: "run", ToolCallID: "early", Tool: "echo", Source: protocol.SourceOpenClaw, Owner: "core", Input: json.RawMessage(`{"a":1}`)})
	if err != nil || string(out) != `{"a":1}` {
		t.Fatalf("a later invocation reusing the id = %s, %v; want it to run", out, err)
	}
	if got := set.Canceled(); got != 1 {
		t.Fatalf("canceled %d invocations, want 1", got)
	}
}
