package diff

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/google/go-cmp/cmp"
)

// Class is how one target's answer to a cell differs from the first
// target's.
type Class string

// The classes of a difference.
const (
	Same        Class = "same"
	Shape       Class = "shape"       // the same meaning in another wrapping (a rule removes it)
	Behavioural Class = "behavioural" // anything a rule does not remove
)

// Verdict is the classification of one pair of observations.
type Verdict struct {
	Class Class `json:"class"`
	// Fields differ before the rules (Shape) or after them (Behavioural).
	Fields []string `json:"fields,omitempty"`
	// Rules are the rules that removed a difference.
	Rules []string `json:"rules,omitempty"`
	// Fingerprint names what differs (the differing fields of both sides
	// after the rules): a triage row that records it goes stale when it
	// changes.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// Classify compares b with the base a, field by field (Fields), and applies
// rules to both sides of every field that differs.
func Classify(a, b Observation, rules Rules) Verdict {
	var v Verdict
	var behavioural []string
	rest := map[string][2]any{}
	for _, f := range Fields {
		x, y := a.field(f), b.field(f)
		if cmp.Equal(x, y) {
			continue
		}
		v.Fields = append(v.Fields, f)
		for _, r := range rules {
			if r.Field != f {
				continue
			}
			if rx, ry := r.apply(x), r.apply(y); !cmp.Equal(rx, x) || !cmp.Equal(ry, y) {
				x, y = rx, ry
				v.Rules = appendOnce(v.Rules, r.Name)
			}
		}
		if !cmp.Equal(x, y) {
			behavioural = append(behavioural, f)
			rest[f] = [2]any{x, y}
		}
	}
	switch {
	case len(v.Fields) == 0:
		v.Class = Same
	case len(behavioural) == 0:
		v.Class = Shape
	default:
		v.Class, v.Fields = Behavioural, behavioural
		b, _ := json.Marshal(rest)
		sum := sha256.Sum256(b)
		v.Fingerprint = hex.EncodeToString(sum[:6])
	}
	return v
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
