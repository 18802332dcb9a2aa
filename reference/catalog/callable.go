package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Callable names of generation 2's catalog surface (feature
// javascript-only, CM-TS-06, spec/protocol.md §12.13), after OpenClaw
// 2026.9.6 (code-mode-catalog.ts): every guest-visible tool becomes an async
// global and a catalog handle under its callable name.

// reservedGlobals are names a callable never takes: the guest API's own
// globals, OpenClaw 2026.9.6's RESERVED_GLOBAL_NAMES, and every global of
// the pinned QuickJS-NG, the members of Object.prototype (a bare name
// resolves through globalThis's prototypes) included. The last group is
// checked against the engine: TestReservedGlobalsCoverTheEngine
// (reference/codemode) enumerates a booted cell's globals and fails when
// one is missing here.
var reservedGlobals = strings.Fields(`AsyncDisposableStack DOMException DisposableStack Float16Array
InternalError Iterator SuppressedError TextDecoder TextEncoder atob btoa performance queueMicrotask
__defineGetter__ __defineSetter__ __lookupGetter__ __lookupSetter__ __proto__ constructor
hasOwnProperty isPrototypeOf propertyIsEnumerable toLocaleString toString valueOf
ALL_TOOLS API MCP agents catalog clearTimeout globalThis json load log
namespaces nodes phase results setTimeout skills store text tools yield_control AggregateError Array
ArrayBuffer Atomics BigInt BigInt64Array BigUint64Array Boolean DataView Date Error EvalError
FinalizationRegistry Float32Array Float64Array Function Infinity Int16Array Int32Array Int8Array Intl
JSON Map Math NaN Number Object Promise Proxy RangeError ReferenceError Reflect RegExp Set
SharedArrayBuffer String Symbol SyntaxError TypeError URIError Uint16Array Uint32Array Uint8Array
Uint8ClampedArray WeakMap WeakRef WeakSet WebAssembly console decodeURI decodeURIComponent encodeURI
encodeURIComponent escape eval isFinite isNaN parseFloat parseInt undefined unescape`)

// reservedWords cannot be called as a plain identifier.
var reservedWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`break case catch class const continue debugger default delete do else
	export extends false finally for function if import in instanceof new null return super switch this
	throw true try typeof var void while with await enum implements interface let package private
	protected public static yield`) {
		reservedWords[w] = true
	}
}

var notIdentChar = regexp.MustCompile(`[^A-Za-z0-9_$]`)
var identStart = regexp.MustCompile(`^[A-Za-z_$]`)

// callableBase is name with every character outside [A-Za-z0-9_$] replaced
// by "_", prefixed with "tool_" when it does not start like an identifier
// or starts with the runtime's reserved "__codemode".
func callableBase(name string) string {
	n := notIdentChar.ReplaceAllString(name, "_")
	if !identStart.MatchString(n) || strings.HasPrefix(n, "__codemode") {
		return "tool_" + n
	}
	return n
}

// CallableNames gives every guest-visible (non-MCP) tool its callable name,
// by catalog id. A tool whose name is already an identifier, no reserved
// word and no reserved global keeps it; the others get their base name
// (callableBase) when it is free, else the base plus "_" and the shortest
// free prefix (8 hex digits or more) of the SHA-256 of the catalog id.
// Names that keep their tool name are assigned first, so a normalised name
// never takes an exact one; among tools of one base a client tool comes
// first, as OpenClaw 2026.9.6 lets a client tool win its name
// (selectEffectiveEntries), then catalog id order. reserved are further
// names to avoid: the run's namespace globals.
func (c *Catalog) CallableNames(reserved ...string) map[string]string {
	return c.CallableNamesKeeping(nil, reserved...)
}

// CallableNamesKeeping is CallableNames for a catalog that replaces another
// in a run (run.update): a tool still in the catalog under the same catalog
// id keeps its name from prev (catalog id → callable name) while that name
// is still allowed, and only the other tools are named as CallableNames
// does, so a tool run.update adds never takes the name of a tool that stays
// (spec/protocol.md §12.13).
func (c *Catalog) CallableNamesKeeping(prev map[string]string, reserved ...string) map[string]string {
	used := map[string]bool{}
	for _, n := range reservedGlobals {
		used[n] = true
	}
	for _, n := range reserved {
		used[n] = true
	}
	out := map[string]string{}
	for _, t := range c.Tools { // catalog id order: each kept name is checked once
		if n, ok := prev[t.ID]; ok && t.Spec.Source != protocol.SourceMCP && identRE.MatchString(n) && !reservedWords[n] && !used[n] {
			used[n] = true
			out[t.ID] = n
		}
	}
	type candidate struct {
		id, base      string
		exact, client bool
	}
	var cs []candidate
	for _, t := range c.Tools {
		if _, kept := out[t.ID]; kept || t.Spec.Source == protocol.SourceMCP {
			continue
		}
		base := callableBase(t.Spec.Name)
		cs = append(cs, candidate{id: t.ID, base: base, client: t.Spec.Source == protocol.SourceClient,
			exact: base == t.Spec.Name && !reservedWords[base] && !used[base]})
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].exact != cs[j].exact {
			return cs[i].exact
		}
		if cs[i].base != cs[j].base {
			return cs[i].base < cs[j].base
		}
		if cs[i].client != cs[j].client {
			return cs[i].client
		}
		return cs[i].id < cs[j].id
	})
	for _, c := range cs {
		name := c.base
		if reservedWords[name] || used[name] {
			name = suffixed(c.base, c.id, used)
		}
		used[name] = true
		out[c.id] = name
	}
	return out
}

var identRE = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

func suffixed(base, id string, used map[string]bool) string {
	sum := sha256.Sum256([]byte(id))
	digest := hex.EncodeToString(sum[:])
	for n := 8; n <= len(digest); n += 2 {
		if name := base + "_" + digest[:n]; !used[name] && !reservedWords[name] {
			return name
		}
	}
	// 64 hex digits of a SHA-256 of distinct ids cannot all be taken.
	return base + "_" + digest + "_" + id
}

// ReservedGlobal reports whether name is a global of the guest API, the
// language or the engine (reservedGlobals), which no callable name takes.
func ReservedGlobal(name string) bool { return slices.Contains(reservedGlobals, name) }
