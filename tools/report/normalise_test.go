package report_test

import (
	"github.com/codemode-conformance/codemode/tools/report"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Normalise", func() {
	It("replaces run ids, durations, timestamps, ports, temporary paths, pids and pointers, and keeps the rest", func() {
		a := `run "run-544651589-1", toolCallId "run-544651589-1-call-2" after 13.07s (1m2.5s, 250 ms) at 2026-12-01T20:14:53.123Z on 127.0.0.1:41234 in /tmp/TestX123/001/report.json pid 4242 <*T | 0xc000123456> case-12345-3 {"durationMs":17} {\"durationMs\":3} DurationMs:250 "runId":"cm_131742_1" cm_131742_1/call-002 cm_131742_2`
		b := `run "run-1234-7", toolCallId "run-1234-7-call-2" after 9.5s (3m0s, 1 ms) at 2026-12-01T21:00:00Z on 127.0.0.1:5555 in /tmp/TestX999/002/report.json pid 17 <*T | 0xc000abcdef> case-99-40 {"durationMs":0} {\"durationMs\":12} DurationMs:9 "runId":"cm_4242_17" cm_4242_17/call-002 cm_4242_30`
		Expect(report.Normalise(a)).To(Equal(report.Normalise(b)), "two runs differ only in what varies")
		Expect(report.Normalise(a)).To(Equal(`run "run-…-#1", toolCallId "run-…-#1-call-2" after <duration> (<duration>, <duration>) at <time> on 127.0.0.1:<port> in <tmp> pid <pid> <*T | 0x…> case-…-#2 {"durationMs":<duration>} {\"durationMs\":<duration>} DurationMs:<duration> "runId":"cm_…_#1" cm_…_#1/call-002 cm_…_#2`), "what is kept")
		Expect(report.Normalise("run-1-1 vs run-1-2")).To(Equal(report.Normalise("run-1-9 vs run-1-4")), "run ids are numbered by first appearance: the sequence number depends on the specs a process ran before (--procs)")
		Expect(report.Normalise("run-1-1 vs run-1-1")).NotTo(Equal(report.Normalise("run-1-1 vs run-1-2")), "distinct run ids stay distinct, a repeated one the same")
		Expect(report.Normalise("-\u00a0\tx\n\u00a0\u00a0\ty")).To(Equal(report.Normalise("- \tx\n  \ty")), "go-cmp's random no-break spaces are spaces")
		Expect(report.Normalise("still waiting after 40 waits in 2.5s")).To(Equal(report.Normalise("still waiting after 39 waits in 2.4s")), "a time-bounded wait loop's count of waits varies like its duration")
		Expect(report.Normalise("<[]string | len:1, cap:1>: [\n        \"cm_4242_274/call-001\",\n    ]")).To(Equal(report.Normalise(`<[]string | len:1, cap:1>: ["cm_131742_5/call-001"]`)), "Gomega's long form of a value is its short form")
		Expect(report.Normalise("{\n    Run: \"a\",\n    Tool: \"b\",\n}")).To(Equal(`{Run: "a", Tool: "b"}`), "also for structs and maps")
		Expect(report.Normalise(`"timeoutMs":1000`)).To(Equal(`"timeoutMs":1000`), "configured limits are kept")
		Expect(report.Normalise("CM-EXEC-01 expected 42, got 41")).To(Equal("CM-EXEC-01 expected 42, got 41"), "values without units are kept")
	})
})
