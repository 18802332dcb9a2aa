// Package corpus loads the hostile-case corpus (suites/security/cases/*.js):
// one hostile cell per file, each with a test262-style front-matter block
// that names the requirements it probes, its fault class, the fixture tools
// it needs, non-default limits and the outcome a conformant target must
// give. The security suite runs every file as its own spec
// (suites/security/cases.go); `codemode-conformance case FILE --target T`
// runs one (Drive). Source: issue 11, build item 3.
package corpus

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/goccy/go-yaml"
)

// Errors of Parse and Load; every loader error wraps ErrInvalidCase and,
// where it applies, one of the more precise ones.
var (
	ErrInvalidCase        = errors.New("invalid corpus case")
	ErrNoFrontMatter      = errors.New("no /*--- … ---*/ front-matter block at the top")
	ErrUnknownRequirement = errors.New("unknown requirement id")
	ErrUnknownTool        = errors.New("unknown fixture tool")
	ErrUnknownClass       = errors.New("unknown fault class")
	ErrBadExpect          = errors.New("bad expected outcome")
)

// Classes are the fault classes of issue 11 a case may name in class:.
var Classes = []string{"escape", "dos", "serialisation", "bridge", "engine"}

// Case is one corpus file.
type Case struct {
	// File is the file's base name ("constructor-chain.js"); cases are
	// labelled case:<File>.
	File string
	// Description says in one line what the cell tries.
	Description string
	// Requirements are the CM-* IDs the case probes (at least one, all
	// known to spec/requirements.yaml).
	Requirements []string
	// Class is one of Classes.
	Class string
	// Tools are fixture tool names (see Fixtures) the run's catalog holds.
	Tools []string
	// TimeoutMs and MemoryLimitBytes are set in tools.codeMode when non-zero.
	TimeoutMs        int
	MemoryLimitBytes int64
	// Expect is the outcome a conformant target gives (under every
	// profile that ExpectByProfile does not name; see ExpectFor).
	Expect Expect
	// ExpectByProfile replaces Expect under the named profiles (keys are
	// spec.ProfileNames()), where the seeds of that generation allow another
	// outcome: front matter `expectByProfile: {v2: <expect>}`.
	ExpectByProfile map[string]Expect
	// Code is the guest code: the file after its front-matter block.
	Code string
}

// frontMatter is the YAML of the block; unknown keys are errors.
type frontMatter struct {
	Description      string             `yaml:"description"`
	Requirements     []string           `yaml:"requirements"`
	Class            string             `yaml:"class"`
	Tools            []string           `yaml:"tools"`
	TimeoutMs        int                `yaml:"timeoutMs"`
	MemoryLimitBytes int64              `yaml:"memoryLimitBytes"`
	Expect           *Expect            `yaml:"expect"`
	ExpectByProfile  map[string]*Expect `yaml:"expectByProfile"`
}

var frontRE = regexp.MustCompile(`(?s)\A\s*/\*---\n(.*?)\n---\*/\n?`)

// Parse reads one case file named name (a base name) from src. Every
// problem is an error wrapping ErrInvalidCase: a missing block, malformed
// YAML, an unknown or duplicate key, a missing description, requirement,
// class or expect, an unknown requirement id, class or fixture tool, limits
// out of range, an expect that is malformed (see Expect), or no code.
func Parse(name string, src []byte) (Case, error) {
	fail := func(err error, format string, args ...any) (Case, error) {
		if err == ErrInvalidCase {
			return Case{}, fmt.Errorf("%w: %s: %s", ErrInvalidCase, name, fmt.Sprintf(format, args...))
		}
		return Case{}, fmt.Errorf("%w: %s: %w: %s", ErrInvalidCase, name, err, fmt.Sprintf(format, args...))
	}
	m := frontRE.FindSubmatchIndex(src)
	if m == nil {
		return fail(ErrNoFrontMatter, "the file must start with /*---, a line of its own, and the block end with ---*/ on a line of its own")
	}
	var fm frontMatter
	if err := yaml.UnmarshalWithOptions(src[m[2]:m[3]], &fm, yaml.Strict()); err != nil {
		return fail(ErrInvalidCase, "front matter: %s", yaml.FormatError(err, false, false))
	}
	c := Case{File: name, Description: strings.TrimSpace(fm.Description), Requirements: fm.Requirements, Class: fm.Class,
		Tools: fm.Tools, TimeoutMs: fm.TimeoutMs, MemoryLimitBytes: fm.MemoryLimitBytes, Code: strings.TrimSpace(string(src[m[1]:]))}
	switch {
	case c.Description == "":
		return fail(ErrInvalidCase, "description: is required")
	case len(c.Requirements) == 0:
		return fail(ErrUnknownRequirement, "requirements: needs at least one CM-* id")
	case fm.Expect == nil:
		return fail(ErrBadExpect, "expect: is required")
	case c.Code == "":
		return fail(ErrInvalidCase, "no guest code after the front matter")
	case c.TimeoutMs < 0 || c.TimeoutMs > 60000:
		return fail(ErrInvalidCase, "timeoutMs %d is outside [1, 60000]", c.TimeoutMs)
	case c.MemoryLimitBytes < 0:
		return fail(ErrInvalidCase, "memoryLimitBytes %d is negative", c.MemoryLimitBytes)
	}
	seen := map[string]bool{}
	for _, id := range c.Requirements {
		if _, ok := spec.Lookup(id); !ok {
			return fail(ErrUnknownRequirement, "%q is not in spec/requirements.yaml", id)
		}
		if seen[id] {
			return fail(ErrUnknownRequirement, "%q is listed twice", id)
		}
		seen[id] = true
	}
	if !contains(Classes, c.Class) {
		return fail(ErrUnknownClass, "class %q is not one of %v", c.Class, Classes)
	}
	for _, t := range c.Tools {
		if _, ok := fixtures[t]; !ok {
			return fail(ErrUnknownTool, "tool %q is not one of %v", t, FixtureNames())
		}
	}
	if err := fm.Expect.compile(); err != nil {
		return fail(ErrBadExpect, "%v", err)
	}
	c.Expect = *fm.Expect
	if err := markerFree(c.Code, *fm.Expect); err != nil {
		return fail(ErrBadExpect, "%v", err)
	}
	for _, p := range slices.Sorted(maps.Keys(fm.ExpectByProfile)) {
		if _, err := spec.LookupProfile(p); err != nil {
			return fail(ErrBadExpect, "expectByProfile: %q is not one of the profiles %v", p, spec.ProfileNames())
		}
		e := fm.ExpectByProfile[p]
		if e == nil {
			return fail(ErrBadExpect, "expectByProfile: %s is empty", p)
		}
		if err := e.compile(); err != nil {
			return fail(ErrBadExpect, "expectByProfile: %s: %v", p, err)
		}
		if err := markerFree(c.Code, *e); err != nil {
			return fail(ErrBadExpect, "expectByProfile: %s: %v", p, err)
		}
		if c.ExpectByProfile == nil {
			c.ExpectByProfile = map[string]Expect{}
		}
		c.ExpectByProfile[p] = *e
	}
	return c, nil
}

// ExpectFor is the outcome a conformant target gives when judged against
// profile (framework.Profile()): ExpectByProfile's entry for it, else Expect.
func (c Case) ExpectFor(profile string) Expect {
	if e, ok := c.ExpectByProfile[profile]; ok {
		return e
	}
	return c.Expect
}

// Load parses every *.js file of dir in fsys, sorted by name. A directory
// without cases, or any case that does not parse, is an error (the first
// one found, naming its file).
func Load(fsys fs.FS, dir string) ([]Case, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.js"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%w: no *.js case in %s", ErrInvalidCase, dir)
	}
	sort.Strings(names)
	out := make([]Case, 0, len(names))
	for _, n := range names {
		src, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		c, err := Parse(path.Base(n), src)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// CodeMode is the tools.codeMode object of the case's run: enabled, plus
// its non-default limits.
func (c Case) CodeMode() map[string]any {
	m := map[string]any{"enabled": true}
	if c.TimeoutMs > 0 {
		m["timeoutMs"] = c.TimeoutMs
	}
	if c.MemoryLimitBytes > 0 {
		m["memoryLimitBytes"] = c.MemoryLimitBytes
	}
	return m
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// validStatus are the final statuses an outcome may name.
var validStatus = []string{string(result.StatusCompleted), string(result.StatusFailed)}

// markerFree rejects truncatedWithin in a case whose guest code carries a
// truncation word ("truncat" in any case, 截断): the corpus does not know the
// guest's uncut output, so result.TruncatedWithin judges its markers with the
// guest unknown, which is sound only when the guest cannot write one itself
// (protocol.md §12.9: the marker must be the target's; audit
// 2026-12-02-stop34).
func markerFree(code string, e Expect) error {
	uses := false
	for _, o := range append([]Outcome{e.Outcome}, e.AnyOf...) {
		uses = uses || o.TruncatedWithin != 0
	}
	low := strings.ToLower(code)
	if uses && (strings.Contains(low, "truncat") || strings.Contains(low, "截断")) {
		return fmt.Errorf("truncatedWithin needs guest code that writes no truncation word (\"truncat\", 截断): the marker must be the target's")
	}
	return nil
}
