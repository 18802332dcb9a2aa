// Package naive locates the deliberately naive code mode target, target.mjs:
// a first attempt at code mode in Node.js (guest code in Node's vm module, no
// snapshots, guest code on the protocol loop), written from spec/protocol.md
// alone and kept as a test asset. It is the second implementation every
// verdict of the harness is checked against (issue 7 §2): its faults are real
// consequences of its design, listed at the top of target.mjs, and
// naive_test.go proves the harness reports them as failures of the right
// requirements.
package naive

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
)

// ErrNoNode is returned by Target when no node executable is on PATH.
var ErrNoNode = errors.New("node is not on PATH (the naive target needs Node.js >= 20)")

// Script is the absolute path of target.mjs, found from this source file
// (the target is run from the source tree, never built).
func Script() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "target.mjs")
}

// CoreOnly is the target.mjs argument that makes it declare only the core
// feature in initialize (no optional features): under profile v1, which
// requires isolation, snapshot-executor and pending-call-limit, their specs
// still run and are judged on behaviour, and a required feature the harness
// drives through its own surface (agent-turn) fails once and blocks the rest.
// In this mode it also keeps no maxPendingToolCalls limit (it implements
// pending-call-limit only when it declares it), so CM-LIM-05 fails on the
// calls it starts.
const CoreOnly = "--core-only"

// Target returns the --target value that runs the naive target:
// "exec:<node> <Script()> <args…>". Args reach target.mjs, which ignores
// them except CoreOnly (tests use one to tag the processes of a run). The
// error is ErrNoNode when node is not on PATH.
func Target(args ...string) (string, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoNode, err)
	}
	t := "exec:" + node + " " + Script()
	for _, a := range args {
		t += " " + a
	}
	return t, nil
}
