package report

import (
	"fmt"
	"strings"
)

// SuspectPrecondition is a spec blocked by a requirement that itself passed
// in the same run: the precondition that failed is probably not what that
// requirement's specs judge, so the block may hide a fault of the spec's
// own requirement (one fault, one requirement: the block names the wrong
// owner). The outside verdict audit's F6 is the example: CM-EXEC-08's
// megabyte cell was "blocked by CM-EXEC-17" on a limit failure while
// CM-EXEC-17, judged on small cells, passed.
type SuspectPrecondition struct {
	// Requirement and Spec are the blocked spec's.
	Requirement string `yaml:"requirement"`
	Spec        string `yaml:"spec"`
	// BlockedBy is the requirement that blocked it and passed.
	BlockedBy string `yaml:"blockedBy"`
}

// SuspectPreconditions lists, in run order, every blocked spec whose
// blocking requirement ran in the same run and passed (pass or xpass: all
// its specs passed). A blocking requirement that was not run, failed, was
// itself blocked or skipped is no suspect: its verdict explains the block.
func SuspectPreconditions(ev Evaluation) []SuspectPrecondition {
	var out []SuspectPrecondition
	for _, s := range ev.Specs {
		if s.Verdict != Blocked || s.BlockedBy == "" {
			continue
		}
		if v, ran := ev.Requirements[s.BlockedBy]; ran && (v == Pass || v == XPass) {
			out = append(out, SuspectPrecondition{Requirement: s.Requirement, Spec: s.Text, BlockedBy: s.BlockedBy})
		}
	}
	return out
}

// Line is the warning printed for one suspect (console and summary.md).
func (s SuspectPrecondition) Line() string {
	return fmt.Sprintf("warning: %s is blocked by %s, which passed in this run: suspected wrongly owned precondition (the fault may be %s's own); spec %q",
		s.Requirement, s.BlockedBy, s.Requirement, s.Spec)
}

// SuspectMarkdown is the summary.md section listing suspects, one warning
// line each; empty when there is none.
func SuspectMarkdown(suspects []SuspectPrecondition) string {
	if len(suspects) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nSuspected wrongly owned preconditions (a spec blocked by a requirement that passed in the same run):\n")
	for _, s := range suspects {
		b.WriteString("- " + s.Line() + "\n")
	}
	return b.String()
}
