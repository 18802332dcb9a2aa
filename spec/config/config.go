// Package config resolves the raw `tools.codeMode` configuration value into an
// effective code mode configuration: the activation gate, defaults, clamps and
// the enumerated fields.
//
// Source: 000 [Come abilitarla], [Configurazione]; requirements CM-CFG-01..06.
package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// Config is the effective code mode configuration of one run. Byte sizes are in
// bytes, durations in the unit of their name.
type Config struct {
	Enabled             bool     `json:"enabled"`
	Runtime             string   `json:"runtime"`
	Mode                string   `json:"mode"`
	Languages           []string `json:"languages"`
	TimeoutMs           int64    `json:"timeoutMs"`
	MemoryLimitBytes    int64    `json:"memoryLimitBytes"`
	MaxOutputBytes      int64    `json:"maxOutputBytes"`
	MaxSnapshotBytes    int64    `json:"maxSnapshotBytes"`
	MaxPendingToolCalls int64    `json:"maxPendingToolCalls"`
	SnapshotTTLSeconds  int64    `json:"snapshotTtlSeconds"`
	SearchDefaultLimit  int64    `json:"searchDefaultLimit"`
	MaxSearchLimit      int64    `json:"maxSearchLimit"`
}

// Limit describes one numeric field: its default and its clamp range
// (CM-CFG-04, CM-CFG-05). Max 0 means "no upper clamp of its own".
type Limit struct {
	Name     string
	Default  int64
	Min, Max int64
}

// Limits lists the numeric fields with defaults and clamps, in source order.
var Limits = []Limit{
	{"timeoutMs", 10000, 100, 60000},
	{"memoryLimitBytes", 67108864, 1048576, 1073741824},
	{"maxOutputBytes", 65536, 1024, 10485760},
	{"maxSnapshotBytes", 10485760, 1024, 268435456},
	{"maxPendingToolCalls", 16, 1, 128},
	{"snapshotTtlSeconds", 900, 1, 86400},
	{"searchDefaultLimit", 8, 1, 0},
	{"maxSearchLimit", 50, 1, 50},
}

// Supported values of the enumerated fields (CM-CFG-06).
const (
	RuntimeQuickJSWASI = "quickjs-wasi"
	ModeOnly           = "only"
)

// AllLanguages is the default and the full set of `languages`.
var AllLanguages = []string{"javascript", "typescript"}

// Error is an invalid configuration (maps to failed code invalid_config).
type Error struct {
	Field  string
	Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("invalid tools.codeMode.%s: %s", e.Field, e.Reason)
}

// Default returns the configuration used when code mode is enabled with no
// other fields.
func Default() Config {
	c := Config{Runtime: RuntimeQuickJSWASI, Mode: ModeOnly, Languages: append([]string(nil), AllLanguages...)}
	for _, l := range Limits {
		*c.field(l.Name) = l.Default
	}
	return c
}

func (c *Config) field(name string) *int64 {
	switch name {
	case "timeoutMs":
		return &c.TimeoutMs
	case "memoryLimitBytes":
		return &c.MemoryLimitBytes
	case "maxOutputBytes":
		return &c.MaxOutputBytes
	case "maxSnapshotBytes":
		return &c.MaxSnapshotBytes
	case "maxPendingToolCalls":
		return &c.MaxPendingToolCalls
	case "snapshotTtlSeconds":
		return &c.SnapshotTTLSeconds
	case "searchDefaultLimit":
		return &c.SearchDefaultLimit
	case "maxSearchLimit":
		return &c.MaxSearchLimit
	}
	panic("config: unknown field " + name)
}

// Resolve reads the raw JSON value of `tools.codeMode` (absent = nil or empty).
//
//   - absent, null, false, or an object without `enabled: true` → disabled
//     (Enabled false, nil error) (CM-CFG-01, CM-CFG-03);
//   - true → enabled with defaults (CM-CFG-02);
//   - an object with `enabled: true` → defaults overridden by valid fields,
//     numbers clamped, invalid numbers reset to their default (CM-CFG-04/05);
//   - an unsupported runtime, mode or language → *Error (CM-CFG-06).
//
// Enum fields are validated only when code mode is enabled. A raw value that is
// not JSON at all is an *Error.
func Resolve(raw json.RawMessage) (Config, error) {
	c := Default()
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return c, nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return c, &Error{Field: "", Reason: "not JSON: " + err.Error()}
	}
	switch t := v.(type) {
	case bool:
		c.Enabled = t
		return c, nil
	case map[string]any:
		if en, ok := t["enabled"].(bool); !ok || !en {
			return c, nil
		}
		c.Enabled = true
		return c, c.apply(t)
	default:
		return c, nil
	}
}

func (c *Config) apply(m map[string]any) error {
	if v, ok := m["runtime"]; ok && v != RuntimeQuickJSWASI {
		return &Error{"runtime", fmt.Sprintf("%s is not supported (only %q)", shown(v), RuntimeQuickJSWASI)}
	}
	if v, ok := m["mode"]; ok && v != ModeOnly {
		return &Error{"mode", fmt.Sprintf("%s is not supported (only %q)", shown(v), ModeOnly)}
	}
	if v, ok := m["languages"]; ok {
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return &Error{"languages", "must be a non-empty array of \"javascript\" and \"typescript\""}
		}
		c.Languages = nil
		for _, x := range list {
			s, _ := x.(string)
			if s != "javascript" && s != "typescript" {
				return &Error{"languages", fmt.Sprintf("%s is not a supported language", shown(x))}
			}
			if !contains(c.Languages, s) {
				c.Languages = append(c.Languages, s)
			}
		}
	}
	for _, l := range Limits {
		if n, ok := positiveInt(m[l.Name]); ok {
			if n < l.Min {
				n = l.Min
			}
			if l.Max > 0 && n > l.Max {
				n = l.Max
			}
			*c.field(l.Name) = n
		}
	}
	if c.SearchDefaultLimit > c.MaxSearchLimit {
		c.SearchDefaultLimit = c.MaxSearchLimit
	}
	return nil
}

// positiveInt accepts a JSON number that is a positive integer; huge values
// saturate at MaxInt64 so that they clamp to the field's maximum.
func positiveInt(v any) (int64, bool) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	if n, err := num.Int64(); err == nil {
		return n, n > 0
	}
	f, err := num.Float64()
	if err != nil || f <= 0 || f != math.Trunc(f) || math.IsInf(f, 0) {
		return 0, false
	}
	if f >= math.MaxInt64 {
		return math.MaxInt64, true
	}
	return int64(f), true
}

// shown is a decoded JSON value as an error text names it: null as null,
// not Go's <nil> (issue 28 nits); anything else as before (%v).
func shown(v any) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%v", v)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Allows reports whether lang is one of the configured languages.
func (c Config) Allows(lang string) bool { return contains(c.Languages, lang) }
