package evidence

import "regexp"

// normalisers replace what changes between two runs of the same target
// and selection: the harness's run ids (run-<nanoseconds>-<n>, the corpus's
// case-<nanoseconds>-<n>; the sequence number n stays, since it follows
// the specs' order), durations, timestamps, loopback ports, temporary
// paths, process ids and pointer addresses.
var normalisers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\b(run|case)-\d+-(\d+)`), "$1-…-$2"},
	{regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?`), "<time>"},
	{regexp.MustCompile(`\b(\d+(\.\d+)?(h|ms|µs|us|ns|m|s))+\b`), "<duration>"},
	{regexp.MustCompile(`\b\d+(\.\d+)? ?(ms|seconds|s)\b`), "<duration>"},
	{regexp.MustCompile(`(127\.0\.0\.1|localhost|\[::1\]|0\.0\.0\.0):\d+`), "$1:<port>"},
	{regexp.MustCompile(`(/tmp|/var/folders|/private/var)/[^\s"'),:]+`), "<tmp>"},
	{regexp.MustCompile(`\b(pid|PID|process) \d+`), "$1 <pid>"},
	{regexp.MustCompile(`0x[0-9a-f]{6,}`), "0x…"},
}

// Normalise returns a failure message with what varies from run to run
// replaced (see normalisers), so that two runs of the same target can be
// compared: the same faults must give the same normalised messages (issue
// 23 item 8). It is for comparing runs, not for display.
func Normalise(msg string) string {
	for _, n := range normalisers {
		msg = n.re.ReplaceAllString(msg, n.with)
	}
	return msg
}
