package bench_test

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/reference/server"
	"github.com/codemode-conformance/codemode/targets"
	"github.com/codemode-conformance/codemode/targets/builtin"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestBench(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "bench")
}

// wrongValue is the target "bench-test:wrong-value": the reference, except
// that every guest `1+1` it receives is evaluated as `1+2`, so trivial
// cells complete with 3 instead of 2. The bench must report it incorrect.
const wrongValue = "bench-test:wrong-value"

func init() {
	targets.Register(wrongValue, "the reference, evaluating 1+1 as 1+2", func(ctx context.Context, r io.Reader, w io.WriteCloser) error {
		eng, err := builtin.SharedEngine()
		if err != nil {
			return err
		}
		pr, pw := io.Pipe()
		go func() {
			sc := bufio.NewScanner(r)
			sc.Buffer(make([]byte, 64<<10), 16<<20)
			for sc.Scan() {
				if _, err := io.WriteString(pw, strings.ReplaceAll(sc.Text(), "1+1", "1+2")+"\n"); err != nil {
					break
				}
			}
			pw.CloseWithError(sc.Err())
		}()
		return server.Serve(ctx, pr, w, server.Options{Engine: eng})
	})
}
