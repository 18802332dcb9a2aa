package framework

import (
	"os"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// HarnessName and HarnessVersion identify the harness in initialize and
// reports.
const (
	HarnessName    = "codemode-conformance"
	HarnessVersion = "0.1.0"
)

// Timeouts are the harness's own bounds: each is the maximum a conformant
// implementation may take, not a performance target.
var Timeouts = struct {
	// Initialize bounds the initialize handshake (engine compile included).
	Initialize time.Duration
	// Call bounds one protocol call other than exec/wait.
	Call time.Duration
	// ToolCallSlack is added to a run's timeoutMs to bound one exec/wait
	// (protocol.ToolCallSlack, protocol.md §1).
	ToolCallSlack time.Duration
	// FollowBudgets is how many of its run's time budgets (timeoutMs) a
	// wait loop (WaitLoop: Follow, RunToCompletion, the corpus's Drive)
	// gives a waiting cell to end, however many waits the target answers
	// meanwhile: a target may suspend at any point while a nested call is
	// pending (spec/protocol.md §10), so what bounds the loop is time.
	// 20 is what the former count of 20 waits gave a target that waits
	// its whole budget before it suspends. Never more than fits before
	// the spec's deadline (WaitFits).
	FollowBudgets int
	// MaxWaits is a safety bound on the waits of one loop, against a
	// target that answers waiting at once, without end: far above what any
	// cell of the suites needs from a target that suspends at every nested
	// call (a wait per call and per pending check, each in milliseconds).
	MaxWaits int
	// VerdictGrace is what a wait loop leaves, past the last call's own
	// bound, before the spec's deadline: time to end the run, run the
	// trivial cell after a corpus case and check the target is alive, so
	// the spec reaches its verdict (WaitFits).
	VerdictGrace time.Duration
	// Spec bounds one spec, cleanup included (the reference's slowest takes
	// about 25 s on 2 busy cores). Past it the spec ends as an error, and a
	// call still waiting on the target marks it unresponsive.
	Spec time.Duration
	// Alive bounds the runtime.stats the harness sends after every spec to
	// learn whether the target survived it (a target that does not answer is
	// unresponsive: killed, and the spec charged with it).
	Alive time.Duration
}{Initialize: 60 * time.Second, Call: 30 * time.Second, ToolCallSlack: protocol.ToolCallSlack, FollowBudgets: 20, MaxWaits: 5000,
	VerdictGrace: 40 * time.Second, Spec: 3 * time.Minute, Alive: 10 * time.Second}

// Config says which target the suites run against.
type Config struct {
	// Target names the target in the syntax of package targets (builtin,
	// exec:<command>, tcp:<host:port>, openclaw:<version>, …).
	Target string
	// Features, if non-nil, replace the target's declared features.
	Features []string
	// ExemptFeatures are removed from the feature set.
	ExemptFeatures []string
	// Profile is the profile (spec.Profiles) the run judges; "" means the
	// one the target declares. A target declaring another one, or features
	// outside it or excluding each other, is a target error (Profile()).
	Profile string
	// ResultsDir, if set, is the run's results dir: specs save evidence
	// beyond the reports there (the fake provider's requests, turn.go).
	ResultsDir string
}

// ResultsDir is the results dir of the run ("" under plain go test).
func ResultsDir() string { return current.ResultsDir }

// TargetEnv is the environment variable that selects the target under go test.
const TargetEnv = "CODEMODE_TARGET"

var current = Config{Target: "builtin"}

// Configure sets the configuration used by the next RunSpecs.
func Configure(c Config) {
	if c.Target == "" {
		c.Target = "builtin"
	}
	current = c
}

// ConfigFromEnv returns the configuration selected by CODEMODE_TARGET.
func ConfigFromEnv() Config {
	c := Config{Target: os.Getenv(TargetEnv)}
	if c.Target == "" {
		c.Target = "builtin"
	}
	return c
}
