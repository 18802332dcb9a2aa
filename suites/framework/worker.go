package framework

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/onsi/ginkgo/v2"
)

// Worker makes this process one of several that share a run's specs
// (codemode-conformance run --procs N): each has its own target connection
// and runs only the specs it claims, so every spec runs once in the run.
type Worker struct {
	// Dir is the run's claim directory, shared by its processes: a spec is
	// claimed by creating its file there first (O_EXCL), which holds the
	// claimer's Index.
	Dir   string
	Index int
	// Serial: this process runs the Serial specs only, after every other
	// process ended, so nothing else loads the machine or the target while
	// a timing-sensitive spec measures; the others skip them.
	Serial bool
}

// ClaimedElsewhere is the skip message of a spec another process of the
// run claimed (or a Serial spec in a parallel process, a parallel spec in
// the serial one). Such a skip is no verdict: the run's reports take the
// spec from the process that ran it.
const ClaimedElsewhere = "codemode-conformance: run by another process of this run (--procs)"

var (
	worker   *Worker
	claimMu  sync.Mutex
	claimSeq = map[string]int{} // claim key -> specs seen with that key (repeated texts)
)

// SetWorker makes this process a run's worker; call it before Define.
func SetWorker(w Worker) { worker = &w }

// claimSpec skips the current spec unless this worker takes it: Serial
// specs go to the serial worker only, the others to the first parallel
// worker to create their claim file. Every worker walks the same specs in
// the same order (the CLI's fixed seed), so the n-th spec with one text and
// location has the same claim name in each.
func claimSpec() {
	r := ginkgo.CurrentSpecReport()
	if r.IsSerial != worker.Serial {
		ginkgo.Skip(ClaimedElsewhere)
	}
	key := claimKey(r.LeafNodeLocation.String(), r.FullText())
	claimMu.Lock()
	claimSeq[key]++
	n := claimSeq[key]
	claimMu.Unlock()
	f, err := os.OpenFile(filepath.Join(worker.Dir, ClaimName(r.LeafNodeLocation.String(), r.FullText(), n)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		ginkgo.Skip(ClaimedElsewhere)
	}
	if err != nil {
		ginkgo.Fail(fmt.Sprintf("codemode-conformance: claiming the spec in %s: %v", worker.Dir, err))
	}
	fmt.Fprint(f, worker.Index)
	f.Close()
}

func claimKey(location, fullText string) string { return location + "\x00" + fullText }

// ClaimName is the name of a spec's claim file in a Worker's Dir: the spec
// at location (file:line) with full text fullText (containers and It), the
// n-th (from 1) spec with both among those the worker reached. The file
// holds the claiming worker's Index in decimal, so that the CLI can tell
// which specs a worker that died had taken (run --procs).
func ClaimName(location, fullText string, n int) string {
	sum := sha256.Sum256([]byte(claimKey(location, fullText) + "\x00" + strconv.Itoa(n)))
	return hex.EncodeToString(sum[:12])
}

// Serial marks a spec that measures time against the target's own pace
// (a deadline's accuracy, another run's latency): under run --procs it runs
// after every other spec, alone, so a parallel spec cannot perturb what it
// measures. A serial run is unaffected.
var Serial = ginkgo.Serial
