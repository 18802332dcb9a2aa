// Package diff is the differential mode (issue 29 item 1): it runs the same
// cells on several targets, compares what each answered (status, code,
// value, output and the nested calls that reached the harness), classifies
// every difference against the first target as same, shape only (the same
// meaning in another wrapping, by the data rules of rules.yaml) or
// behavioural, merges a committed triage file into the ledger and writes
// diff.json and diff.html. `codemode-conformance diff` is its command.
package diff
