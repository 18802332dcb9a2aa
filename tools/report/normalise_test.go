package report_test

import (
	"github.com/codemode-conformance/codemode/tools/report"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Normalise", func() {
	It("replaces run ids, durations, timestamps, ports, temporary paths, pids and pointers, and keeps the rest", func() {
		a := `run "run-544651589-1", toolCallId "run-544651589-1-call-2" after 13.07s (1m2.5s, 250 ms) at 2026-12-01T20:14:53.123Z on 127.0.0.1:41234 in /tmp/TestX123/001/report.json pid 4242 <*T | 0xc000123456> case-12345-3`
		b := `run "run-1234-1", toolCallId "run-1234-1-call-2" after 9.5s (3m0s, 1 ms) at 2026-12-01T21:00:00Z on 127.0.0.1:5555 in /tmp/TestX999/002/report.json pid 17 <*T | 0xc000abcdef> case-99-3`
		Expect(report.Normalise(a)).To(Equal(report.Normalise(b)), "two runs differ only in what varies")
		Expect(report.Normalise(a)).To(Equal(`run "run-…-1", toolCallId "run-…-1-call-2" after <duration> (<duration>, <duration>) at <time> on 127.0.0.1:<port> in <tmp> pid <pid> <*T | 0x…> case-…-3`), "what is kept")
		Expect(report.Normalise("run-1-1 vs run-1-2")).NotTo(Equal(report.Normalise("run-1-2 vs run-1-1")), "the sequence numbers stay: they follow the specs' order")
		Expect(report.Normalise("CM-EXEC-01 expected 42, got 41")).To(Equal("CM-EXEC-01 expected 42, got 41"), "values without units are kept")
	})
})
