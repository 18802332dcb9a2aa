package broken

import (
	"encoding/json"
	"io"
	"strings"
	"sync"
	"time"
)

// joinTimeoutMs is the deadline a cell calling Array.prototype.join gets from
// joinWithoutDeadline: past the spec's bound for such cells and past the
// harness's own (timeoutMs plus 15 s), short enough that the work the
// variant lets run stops soon after the spec failed.
const joinTimeoutMs = 20000

// joinWithoutDeadline serves the reference so that a cell calling
// Array.prototype.join runs for joinTimeoutMs whatever the run's timeoutMs
// says, as an engine that checks its deadline only in the bytecode loop lets
// a long join run. For every run it prepares a shadow run with that
// timeoutMs (the rest of its run.prepare unchanged; ended with it) and sends
// every exec whose code contains ".join(" there. The proxy answers nothing
// itself: the reference runs and answers every cell.
func joinWithoutDeadline() serveFunc {
	var (
		mu    sync.Mutex
		acked = map[string]chan struct{}{} // the id of a shadow run.prepare -> closed when answered
	)
	shadowOf := func(run any) string { s, _ := run.(string); return s + "~join-without-deadline" }
	return bothWays(func(msg map[string]any, target io.Writer) (bool, verdict) {
		p, _ := msg["params"].(map[string]any)
		switch msg["method"] {
		case "run.prepare":
			shadow := map[string]any{}
			b, _ := json.Marshal(p)
			_ = json.Unmarshal(b, &shadow)
			shadow["run"] = shadowOf(p["run"])
			switch cm := shadow["codeMode"].(type) {
			case map[string]any:
				cm["timeoutMs"] = joinTimeoutMs
			case bool:
				shadow["codeMode"] = map[string]any{"enabled": cm, "timeoutMs": joinTimeoutMs}
			}
			id := "shadow-prepare-" + shadowOf(p["run"])
			done := make(chan struct{})
			mu.Lock()
			acked[id] = done
			mu.Unlock()
			request(target, id, "run.prepare", shadow)
			select { // prepared before the harness can send it an exec
			case <-done:
			case <-time.After(10 * time.Second):
			}
		case "run.end":
			request(target, "shadow-end-"+shadowOf(p["run"]), "run.end", map[string]any{"run": shadowOf(p["run"])})
		case "tool.exec":
			in, _ := p["input"].(map[string]any)
			code, _ := in["code"].(string)
			command, _ := in["command"].(string)
			if strings.Contains(code+command, ".join(") {
				p["run"] = shadowOf(p["run"])
				return true, forward
			}
		}
		return false, forward
	}, func(msg map[string]any) (bool, verdict) {
		id, _ := msg["id"].(string)
		if !strings.HasPrefix(id, "shadow-") || msg["method"] != nil {
			return false, forward
		}
		mu.Lock()
		if done, ok := acked[id]; ok {
			close(done)
			delete(acked, id)
		}
		mu.Unlock()
		return false, drop
	})
}
