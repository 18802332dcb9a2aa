// Package overexec holds one test, kept apart from tools/conformance-md's
// so that go test -p 2 runs the two packages' full conformance runs side by
// side: every suite against the reference as a separate process over stdio
// (exec:), under profiles v1 and v2, renders the committed CONFORMANCE.md
// exactly, as the runs against builtin do. A difference is a verdict that
// depends on the transport.
package overexec
