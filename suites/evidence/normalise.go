package evidence

import (
	"fmt"
	"regexp"
	"strings"
)

// ids are the ids Normalise numbers by first appearance: the harness's run
// ids (run-<nanoseconds>-<n>), the corpus's (case-<nanoseconds>-<n>), and
// the cell runIds of the reference (cm_<hhmmss>_<n>) and of fakes/naive
// (cm_<pid>_<n>), which a failure message quotes from the target's results.
// Each id becomes its kind, then #k.
var ids = []struct {
	re   *regexp.Regexp
	kind func(id string) string
}{
	{regexp.MustCompile(`\b(run|case)-\d+-\d+`), func(id string) string { return id[:strings.IndexByte(id, '-')] + "-…-" }},
	{regexp.MustCompile(`\bcm_\d+_\d+`), func(string) string { return "cm_…_" }},
}

// normalisers replace what else changes between two runs of the same
// target and selection: durations (also a result's telemetry durationMs),
// timestamps, loopback ports, temporary paths, process ids, pointer
// addresses and the layout Gomega picks by length.
var normalisers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?`), "<time>"},
	{regexp.MustCompile(`\b(\d+(\.\d+)?(h|ms|µs|us|ns|m|s))+\b`), "<duration>"},
	{regexp.MustCompile(`\b\d+(\.\d+)? ?(ms|seconds|s)\b`), "<duration>"},
	{regexp.MustCompile(`(?i)\b(durationMs\\?"?\s*[:=]\s*)\d+`), "${1}<duration>"},
	{regexp.MustCompile(`(127\.0\.0\.1|localhost|\[::1\]|0\.0\.0\.0):\d+`), "$1:<port>"},
	{regexp.MustCompile(`(/tmp|/var/folders|/private/var)/[^\s"'),:]+`), "<tmp>"},
	{regexp.MustCompile(`\b(pid|PID|process) \d+`), "$1 <pid>"},
	{regexp.MustCompile(`0x[0-9a-f]{6,}`), "0x…"},
	// A wait loop's count of waits (framework.WaitLoop: "still waiting
	// after N waits in …") is as timing-dependent as its duration: a loop
	// bounded by time makes as many waits as the target answers in it.
	{regexp.MustCompile(`\bafter \d+ waits\b`), "after <n> waits"},
	// Gomega prints a slice, map or struct on one line when it is short
	// and one element a line when it is not (format's longFormThreshold),
	// so a target id one character longer changes the layout: the long form
	// becomes the short one.
	{regexp.MustCompile(`([\[{])\n\s*`), "$1"},
	{regexp.MustCompile(`,?\n\s*([\]}])`), "$1"},
	{regexp.MustCompile(`,\n\s*`), ", "},
}

// Normalise returns a failure message with what varies from run to run
// replaced, so that two runs of the same target can be compared: the same
// faults must give the same normalised messages (issue 23 item 8). It is
// for comparing runs, not for display.
//
//   - An id (see ids) becomes run-…-#k, case-…-#k or cm_…_#k, k the order
//     of its first appearance in msg among the ids of its pattern: distinct
//     ids stay distinct and a repeated one the same, but the sequence
//     number, which counts the runs its process made before (so under
//     --procs depends on which specs that worker ran), is gone. Ids of
//     other formats a target may use are not recognised.
//   - U+00A0 becomes a space: go-cmp's Diff, quoted by many failure
//     messages, picks at random per process between spaces and no-break
//     spaces in its indentation, to keep callers from relying on its format.
//   - Then the normalisers above, the last of which undo Gomega's long
//     form.
func Normalise(msg string) string {
	for _, id := range ids {
		seen := map[string]int{}
		msg = id.re.ReplaceAllStringFunc(msg, func(x string) string {
			k, ok := seen[x]
			if !ok {
				k = len(seen) + 1
				seen[x] = k
			}
			return fmt.Sprintf("%s#%d", id.kind(x), k)
		})
	}
	msg = strings.ReplaceAll(msg, "\u00a0", " ")
	for _, n := range normalisers {
		msg = n.re.ReplaceAllString(msg, n.with)
	}
	return msg
}
