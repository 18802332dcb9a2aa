package corpus_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"

	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/suites/security/corpus"
	"github.com/codemode-conformance/codemode/targets"
	"github.com/codemode-conformance/codemode/targets/builtin"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// statusRenamer passes the reference's answers on line by line, renaming
// status "completed" to "done": every exec result is outside the union.
type statusRenamer struct {
	mu  sync.Mutex
	buf []byte
	w   io.WriteCloser
}

func (s *statusRenamer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, p...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := bytes.Replace(s.buf[:i+1], []byte(`"status":"completed"`), []byte(`"status":"done"`), 1)
		if _, err := s.w.Write(line); err != nil {
			return 0, err
		}
		s.buf = s.buf[i+1:]
	}
}

func (s *statusRenamer) Close() error { return s.w.Close() }

var registerRenamer sync.Once

var _ = Describe("Drive", func() {
	It("returns a result outside the union as framework.OutsideUnion (CM-EXEC-05's), not as the case's mismatch", func(ctx SpecContext) {
		registerRenamer.Do(func() {
			targets.Register("test:status-done", "the reference answering status done for completed", func(ctx context.Context, r io.Reader, w io.WriteCloser) error {
				return builtin.Serve(ctx, r, &statusRenamer{w: w})
			})
		})
		c, err := corpus.Parse("one.js", withFront("description: returns 1\nrequirements: [CM-SEC-04]\nclass: dos\nexpect:\n  value: 1"))
		Expect(err).NotTo(HaveOccurred())
		t, err := framework.Connect(ctx, "test:status-done")
		Expect(err).NotTo(HaveOccurred())
		defer t.Close()
		rep, err := corpus.Drive(ctx, t, c)
		var outside *framework.OutsideUnion
		Expect(errors.As(err, &outside)).To(BeTrue(), "the error names the union's owner: %v", err)
		Expect(outside.Method).To(Equal("tool.exec"))
		Expect(outside.Error()).To(ContainSubstring("an unknown status, outside the completed/waiting/failed union"))
		Expect(rep.Mismatch).To(BeEmpty(), "the case's own outcome is not judged")
		Expect(rep.Steps).To(HaveLen(1), "the answer is kept as evidence")
	})
})
