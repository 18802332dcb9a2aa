package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// MemoryFigure is the reference's peak resident set under its process
// memory budget (serve --listen --max-memory, issue 28 N13): Runs runs over
// Conns connections each execute Rounds cells at once that fill most of
// their memoryLimitBytes, more than the budget admits together. A cell the
// budget leaves no VM fails runtime_unavailable (Refused); PeakRSSKB is to
// be read against BudgetBytes.
type MemoryFigure struct {
	BudgetBytes      int64 `json:"budgetBytes"`
	MemoryLimitBytes int64 `json:"memoryLimitBytes"`
	Runs             int   `json:"runs"`
	Conns            int   `json:"conns"`
	Rounds           int   `json:"rounds"`
	// Completed cells returned the right value; Refused failed
	// runtime_unavailable naming the budget; Other is every other outcome
	// (Error the first).
	Completed int    `json:"completed"`
	Refused   int    `json:"refused"`
	Other     int    `json:"other"`
	PeakRSSKB int64  `json:"peakRssKB"`
	Error     string `json:"error,omitempty"`
}

// memoryCell fills 64 MiB of the VM's heap with one typed array (fill
// writes every page, so the pages are resident) and keeps it while it counts
// to 300,000, so that the cells of a round overlap. (A loop of 1 MiB
// strings was 0.2 s per string on a loaded machine.)
const memoryCell = `const keep = new Uint8Array(64 << 20); keep.fill(7);
let n = 0; for (let i = 0; i < 3e5; i++) n += i & 1;
return keep.length >> 20;`

// memoryDefaults: a budget of 512 MiB and runs of 128 MiB, 8 at once: twice
// what the budget admits.
const (
	memoryBudget = 512 << 20
	memoryLimit  = 128 << 20
	memoryRuns   = 8
	memoryRounds = 3
)

func memoryFigure(ctx context.Context, o LoadOptions) MemoryFigure {
	f := MemoryFigure{BudgetBytes: memoryBudget, MemoryLimitBytes: memoryLimit, Runs: memoryRuns, Conns: min(o.Conns, memoryRuns), Rounds: memoryRounds}
	srv, err := listen(o.Reference, "--max-memory", fmt.Sprint(memoryBudget))
	if err != nil {
		f.Error = err.Error()
		return f
	}
	var ss []*session
	defer func() { closeAll(ss, srv) }()
	for i := 0; i < f.Conns; i++ {
		s, err := connect(ctx, "tcp:"+srv.addr)
		if err != nil {
			f.Error = err.Error()
			return f
		}
		ss = append(ss, s)
	}
	cm := json.RawMessage(fmt.Sprintf(`{"enabled":true,"timeoutMs":20000,"memoryLimitBytes":%d}`, memoryLimit))
	runs, owner, err := prepareAll(ctx, ss, f.Runs, cm)
	defer endAll(runs, owner)
	if err != nil {
		f.Error = "prepare: " + err.Error()
		return f
	}
	in, _ := json.Marshal(map[string]string{"code": memoryCell})
	var mu sync.Mutex
	for round := 0; round < f.Rounds; round++ {
		var wg sync.WaitGroup
		for i, r := range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := owner[i].toolCall(ctx, r, protocol.MethodToolExec, "", in)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil && res.Status == result.StatusCompleted && string(res.Value) == "64":
					f.Completed++
				case err == nil && res.Code == result.CodeRuntimeUnavailable:
					f.Refused++
				default:
					f.Other++
					if f.Error == "" {
						f.Error = fmt.Sprintf("exec: %v %s", err, describe(res))
					}
				}
			}()
		}
		wg.Wait()
	}
	f.PeakRSSKB = srv.peak.Load()
	return f
}
