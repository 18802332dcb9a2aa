package framework

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/codemode-conformance/codemode/suites/evidence"
)

// RefusedInvoke is a tool.invoke the harness refused to run because guest
// code could not have made it through the runtime: a forged nested call
// (for example, written by guest code that escaped the sandbox). The
// harness answered it with a -32010 tool error. Each one fails the spec
// during which it arrived: it is a failure of the target, naming
// Requirements.
type RefusedInvoke struct {
	// Run, Tool, ToolCallID and Parent repeat the request's run, tool,
	// toolCallId and parentToolCallId.
	Run, Tool, ToolCallID, Parent string
	// Reason says every check it failed, "; "-separated.
	Reason string
	// Requirements are the CM-* IDs the target violated by sending it.
	Requirements []string
	// Request is the tool.invoke params as received.
	Request json.RawMessage `json:",omitempty"`
	// between is set when it arrived while no spec ran (it is charged to
	// the next one).
	between bool
	// late is set for a call after run.end whose parent exec/wait was
	// answered less than lateGrace before: refused (never run) but not
	// charged to the target, which may have written it legitimately.
	late bool
	// recorded is set once arrive recorded it (onRefuse), so that the
	// callback and unanswered do not record it again.
	recorded bool
}

// String describes the refusal for failure messages: the requirements, the
// reason and the request.
func (x RefusedInvoke) String() string {
	return fmt.Sprintf("[%s] tool.invoke of tool %q (run %q, toolCallId %q, parentToolCallId %q) refused: %s\n  request: %s",
		strings.Join(x.Requirements, ", "), x.Tool, x.Run, x.ToolCallID, x.Parent, x.Reason, x.Request)
}

// refusals collects every refused invoke of the harness run, whichever
// target connection it arrived on, so that the spec running when it arrived
// fails (checkSpecEnd) and a Run can list its own (RefusedInvokes).
var refusals refusalLog

// maxRefusals bounds the log; beyond it refusals are only counted.
const maxRefusals = 10000

type refusalLog struct {
	mu      sync.Mutex
	list    []RefusedInvoke
	dropped int // beyond maxRefusals
	taken   int // list[:taken] and dropped counted up to takenDropped were charged to a spec
	tDrop   int
	flood   string // a flood not yet charged to a spec (router.onFlood)
}

// flooded records that a target flooded the harness with refused invokes.
func (l *refusalLog) flooded(reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flood = reason
}

// takeFlood returns the flood not yet charged to a spec, or "".
func (l *refusalLog) takeFlood() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.flood
	l.flood = ""
	return f
}

func (l *refusalLog) add(x RefusedInvoke) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.list) >= maxRefusals {
		l.dropped++
		return
	}
	x.between = !inSpec.Load()
	l.list = append(l.list, x)
}

// take returns the refusals not yet charged to a spec, and how many more
// arrived beyond the log's bound.
func (l *refusalLog) take() ([]RefusedInvoke, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]RefusedInvoke(nil), l.list[l.taken:]...)
	more := l.dropped - l.tDrop
	l.taken, l.tDrop = len(l.list), l.dropped
	return out, more
}

// of lists the refusals naming run.
func (l *refusalLog) of(run string) []RefusedInvoke {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []RefusedInvoke
	for _, x := range l.list {
		if x.Run == run {
			out = append(out, x)
		}
	}
	return out
}

// refusalFailure is the failure message for refusals charged to one spec,
// or "" when there are none.
func refusalFailure(list []RefusedInvoke, more int) string {
	if len(list) == 0 && more == 0 {
		return ""
	}
	var b strings.Builder
	n := len(list) + more
	fmt.Fprintf(&b, "the harness refused %d forged tool.invoke %s (guest code could not have made %s through the runtime):",
		n, plural(n, "call", "calls"), plural(n, "it", "them"))
	const show = 5
	// In a stable order (they arrive concurrently), so a rerun of the same
	// target gives the same message.
	list = slices.Clone(list)
	slices.SortStableFunc(list, func(a, b RefusedInvoke) int {
		return strings.Compare(evidence.Normalise(a.String()), evidence.Normalise(b.String()))
	})
	for i, x := range list {
		if i == show {
			fmt.Fprintf(&b, "\n- … and %d more", len(list)-show+more)
			return b.String()
		}
		b.WriteString("\n- " + x.String())
		if x.between {
			b.WriteString("\n  (it arrived after the previous spec ended, before this one started)")
		}
	}
	if more > 0 {
		fmt.Fprintf(&b, "\n- … and %d more", more)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
