package openclaw

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// ErrNotDrivable is Check's error for an installed version whose dist/ lacks
// a function its generation's adapter drives (Drivability.Reason says which
// and why).
var ErrNotDrivable = errors.New("OpenClaw version not drivable")

// Drivability is the adapter's --check answer (lib/chunks.mjs
// checkDrivable) for one installed version, as written to
// reports/openclaw-<version>/drivability.json by make openclaw-matrix.
type Drivability struct {
	Version    string `json:"version"`
	Generation int    `json:"generation"`
	Adapter    string `json:"adapter"` // adapter.mjs or adapter-v2.mjs
	Drivable   bool   `json:"drivable"`
	// Missing: the functions the adapter drives that no chunk exports,
	// each with the chunk that defines it ("" when none does).
	Missing []MissingFunction `json:"missing"`
	// Wrappers: functions found through an exported wrapper that only
	// delegates to them (function name → exported wrapper's source name).
	Wrappers map[string]string `json:"wrappers"`
	Chunks   int               `json:"chunks"` // chunks scanned
	Reason   string            `json:"reason"` // why not drivable; "" when drivable
}

// MissingFunction is one function a dist does not offer the adapter.
type MissingFunction struct {
	Name      string `json:"name"`
	DefinedIn string `json:"definedIn"`
}

// Check asks the installed version's adapter (its generation's) whether it
// can drive that dist/: it finds the chunks by what they export and loads
// them, and runs no guest code. A version the adapter cannot drive returns
// its Drivability and an error wrapping ErrNotDrivable; an answer that is not
// the adapter's JSON is an error of its own.
func Check(ctx context.Context, inst Installation) (Drivability, error) {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", inst.CommandLine()+" --check")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	runErr := cmd.Run()
	var d Drivability
	if err := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &d); err != nil {
		return d, fmt.Errorf("openclaw %s: the adapter's --check gave no answer (%v): %v\n%s", inst.Version, runErr, err, tail(errb.String(), 2048))
	}
	if !d.Drivable {
		return d, fmt.Errorf("%w: %s: %s", ErrNotDrivable, inst.Version, d.Reason)
	}
	if runErr != nil {
		return d, fmt.Errorf("openclaw %s: the adapter's --check says drivable but exited with %v", inst.Version, runErr)
	}
	return d, nil
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
