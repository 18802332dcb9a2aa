package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-conformance/codemode/reference/store"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// run.update swaps the catalog and the results store while cells of the run
// execute and save: under -race nothing is shared unguarded, and a cell
// either loads its own reference (its store stayed) or is refused because a
// replacement cleared the store it started with; it never fails otherwise
// (CM-RES-07).
func TestUpdateRacingCells(t *testing.T) {
	eng := testEngine(t)
	rt := New(eng, &heldInvoker{release: closedChan()}, Options{Profile: "v2"})
	t.Cleanup(rt.Close)
	echo := protocol.ToolSpec{Name: "echo", Description: "echo", Source: protocol.SourceOpenClaw, Owner: "core"}
	rt.Prepare(protocol.PrepareParams{Run: "u", RunContext: protocol.RunContext{AgentID: "a", SessionID: "s", SessionKey: "k", SenderID: "x", Channel: "c"},
		CodeMode: json.RawMessage(`{"enabled":true}`), Tools: []protocol.ToolSpec{echo}})
	code, _ := json.Marshal(map[string]string{"code": `const r = await results.save({n: 1}); await tools.call(ALL_TOOLS[0].id, {}); return (await results.load(r)).n;`})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			res, err := rt.Exec(context.Background(), "u", fmt.Sprint("c", i), code)
			cleared := res.Status == result.StatusFailed && strings.Contains(res.Error, store.ErrResultsCleared.Error())
			if err != nil || !cleared && (res.Status != result.StatusCompleted || string(res.Value) != "1") {
				t.Errorf("cell %d: %+v, %v; want completed with 1 (a cell's own reference loads unless its store was cleared under it)", i, res, err)
			}
		})
		wg.Go(func() {
			var err error
			switch {
			case i%3 == 0:
				err = rt.Update(protocol.UpdateParams{Run: "u", ReplaceTools: []protocol.ToolSpec{echo}})
			case i%2 == 0:
				err = rt.Update(protocol.UpdateParams{Run: "u", AttachClientTools: []protocol.ToolSpec{{Name: fmt.Sprint("c", i), Description: "client", Source: protocol.SourceClient, Owner: "app"}}})
			default:
				err = rt.Update(protocol.UpdateParams{Run: "u", RestrictTo: []string{"nothing-removed-" + fmt.Sprint(i), "echo", "c0", "c2", "c4", "c6"}})
			}
			if err != nil {
				t.Errorf("update %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if err := rt.Update(protocol.UpdateParams{Run: "nope", RestrictTo: []string{}}); !errors.Is(err, ErrUnknownRun) {
		t.Errorf("update of an unknown run: %v, want ErrUnknownRun", err)
	}
	if err := rt.Update(protocol.UpdateParams{Run: "u"}); !errors.Is(err, protocol.ErrUpdateOperation) {
		t.Errorf("update without an operation: %v, want ErrUpdateOperation", err)
	}
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}
