// Package dialect holds the per-profile guest dialect: the small helper set
// (call, dispatch, search, describe, listTools, and generation 1's id and
// callValue) that spec cells call instead of one generation's guest API,
// rendered for the profile the run judges and prepended to the cell, as
// test262 prepends its includes. v1.js renders it onto page 000's
// tools/ALL_TOOLS (spec/protocol.md §12.3), v2.js onto page 001's catalog
// handles (§12.13); each file's header says which seed section every helper
// rests on.
//
// The dialect is a precondition of the specs that use it, not their
// subject: a helper the target's surface lacks throws an Error whose message
// carries "codemode-dialect: blocked by <CM-ID>: <what>", and BlockedBy
// finds it in a failed result's error, so the harness can report the spec
// as blocked by the requirement that owns the surface (suites/framework).
package dialect

import (
	"embed"
	"fmt"
	"regexp"
	"strings"
)

//go:embed v1.js v2.js
var sources embed.FS

// Profiles are the profiles (spec/requirements.yaml profiles:) with a
// dialect, by name.
var Profiles = []string{"v1", "v2"}

// Source is the dialect file of profile as written (comments included), or
// an error for a profile without one.
func Source(profile string) (string, error) {
	b, err := sources.ReadFile(profile + ".js")
	if err != nil {
		return "", fmt.Errorf("dialect: no guest dialect for profile %q", profile)
	}
	return string(b), nil
}

// Prelude is the dialect of profile rendered on one line: its "//" comment
// lines and blank lines dropped, the statements joined by blanks, so that a
// cell's body keeps its own line numbers after one prepended line. An
// unknown profile renders generation 1's (the default profile, v1).
func Prelude(profile string) string {
	src, err := Source(profile)
	if err != nil {
		src, _ = Source("v1")
	}
	var out []string
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "//") {
			continue
		}
		out = append(out, t)
	}
	return strings.Join(out, " ")
}

// Marker starts the message of the Error a dialect helper throws when the
// target's surface lacks what it needs.
const Marker = "codemode-dialect: blocked by "

var blockedRe = regexp.MustCompile(`codemode-dialect: blocked by (CM-[A-Z0-9]+-[0-9]+): ([^\n]*)`)

// BlockedBy reports whether text (a failed result's error) carries a dialect
// helper's missing-surface Error: the requirement that owns the surface and
// what was missing.
func BlockedBy(text string) (req, what string, ok bool) {
	m := blockedRe.FindStringSubmatch(text)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}
