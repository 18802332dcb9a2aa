// Package embed is a runnable example of an implementer's own test running
// the conformance suites with package conformance: embed_test.go builds the
// reference runtime's binary (standing in for your implementation), points
// conformance.Test at it as an exec: target and fails when the overall
// verdict is a failure. It runs a sample of requirements (make test runs
// every suite over exec: in tools/conformance-md); yours runs them all. Run
// it with
//
//	go test ./examples/embed
//
// (make test runs it). Your own test looks the same, with your binary or
// adapter on the exec: command line (or tcp:<host:port>).
package embed
