package limits

import (
	"slices"
	"strings"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// longNativeCells are single built-in calls that take QuickJS-NG seconds
// or more of native code at the default memoryLimitBytes when its loops
// poll nothing: BigInt multiplication, division, exponentiation, decimal
// conversion and parsing at its own size cap (2^20 bits) are quadratic
// (bellard/quickjs #546; issue 25 item 3, where the first one held another
// cell of the process up for 4.7–9.7 s at timeoutMs 1000), string search is
// quadratic on a near-miss needle (hours here), and parsing, filling holes,
// normalisation and URI encoding are linear but long (measured 2.3 s to
// more than 5 s each on the reference without its loop polls; ENGINE.md,
// "Native loops").
var longNativeCells = []struct{ name, code string }{
	{"BigInt to decimal", `return String((1n << 1040000n) - 1n).length;`},
	{"BigInt multiplication", `const x = (1n << 520000n) - 1n; return String(x * x % 7n);`},
	{"BigInt exponentiation", `return String(3n ** 650000n % 7n);`},
	{"BigInt from a decimal string", `return String(BigInt("9".repeat(310000)) % 7n);`},
	{"BigInt division", `const x = (1n << 1040000n) - 1n, y = (1n << 520000n) - 3n; return String(x / y % 7n);`},
	{"String.prototype.indexOf of a 2 MiB near-miss needle in 4 MiB", `const h = "a".repeat(1 << 22), n = "a".repeat(1 << 21) + "b"; return h.indexOf(n);`},
	{"String.prototype.split on a 2 MiB near-miss separator", `const h = "a".repeat(1 << 22), n = "a".repeat(1 << 21) + "b"; return h.split(n).length;`},
	{"eval of a 4 MiB expression", `return eval("0" + "+1".repeat(1 << 21));`},
	{"Array.prototype.fill over 2^32-1 holes", `const a = []; a.length = 2 ** 32 - 1; return a.fill(0).length;`},
	{"String.prototype.normalize of 2M characters", `return "\u1e9b\u0323".repeat(1 << 20).normalize("NFKC").length;`},
	{"encodeURIComponent of 4M characters", `return encodeURIComponent("\u00e9".repeat(1 << 22)).length;`},
}

// smallCell is the other run's cell: cheap for the guest, 48 KiB for the
// host to carry (under the default maxOutputBytes, 65536).
const smallCell = `return "x".repeat(49152);`

var smallValue = strings.Repeat("x", 49152)

// otherRunSettle is how long after the long cell ended the other run keeps
// being timed: a target that gave the cell up at its deadline while its
// native call runs on is held up then.
const otherRunSettle = 3 * time.Second

var _ = Describe("limits", "long native calls and other runs", func() {
	It("CM-LIM-01", "while one run's cell is inside a long native operation, another run's small cells complete in about their normal time", func(ctx SpecContext) {
		other := NewRun(ctx, RunOptions{CodeMode: true, Tools: []tools.Tool{tools.Echo()}})
		// The other run's normal time: the slowest of a few small cells
		// before any long one (the first may warm the target up). Each
		// returns 48 KiB, so that serving it allocates on the host: a
		// target whose garbage collector waits for the long native call is
		// held up only once it collects.
		var normal time.Duration
		for range 4 {
			start := time.Now()
			Expect(other.Exec(ctx, smallCell)).To(CompleteWith(smallValue), "a small cell must complete")
			normal = max(normal, time.Since(start))
		}
		// A frozen process misses this by the rest of the native call
		// (seconds); the slack is for a loaded machine.
		bound := 2*time.Second + 4*normal
		for _, c := range longNativeCells {
			r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 1000}), Tools: []tools.Tool{tools.Echo()}})
			long := make(chan struct{})
			var ended time.Time
			go func() {
				defer close(long)
				defer GinkgoRecoverNoop()
				// Its outcome is the other CM-LIM-01 specs' business: timeout,
				// a RangeError from a smaller size cap, or the value.
				r.RunToCompletion(ctx, c.code)
				ended = time.Now()
			}()
			var took []time.Duration
		timing:
			for {
				select {
				case <-long:
					if time.Since(ended) > otherRunSettle {
						break timing
					}
				default:
				}
				start := time.Now()
				what := "a small cell of another run, sent while " + c.name + " ran or just after it ended, must end within " + bound.String() + " (its normal time: " + normal.String() + "): the runtime was held up"
				res := endsWithin(other, smallCell, bound, what)
				d := time.Since(start)
				Expect(res).To(CompleteWith(smallValue), "the small cell of another run while %s ran", c.name)
				// Wall time too: a target in the harness's own process (the
				// fakes) holds up the harness's timers with it, so the
				// bound above can pass late.
				Expect(d).To(BeNumerically("<=", bound), "%s; it took %s\nguest code:\n%s", what, d, smallCell)
				took = append(took, d)
			}
			ginkgo.GinkgoWriter.Printf("%s: %d small cells of another run, the slowest %s (normal %s)\n", c.name, len(took), slices.Max(append(took, 0)), normal)
		}
	}, HangIsFailure, Serial)
})
