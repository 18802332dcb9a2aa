package codemode

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// stringifyCorpus is guest code that defines corpus, an object of named
// values covering every rule of JSON.stringify's SerializeJSONProperty,
// SerializeJSONObject and SerializeJSONArray (ECMA-262 §25.5.2) that does not
// throw or drop a value: boxed primitives (with their own valueOf/toString),
// toJSON with its property key and its result (this, a boxed value, from a
// prototype, on a BigInt), -0, NaN and Infinity, sparse arrays and holes,
// getters, symbol keys, non-enumerable and inherited properties, key order,
// Proxy, Map and Set, typed arrays of every kind and sign, ArrayBuffer,
// DataView, Date, RegExp, arguments, subclasses, escapes. Every leaf is then
// generated again inside each wrapper (object member, array element,
// Proxy, getter, toJSON result), so each rule appears at the top, nested and
// in each position. dropped lists the keys whose value JSON.stringify would
// drop (a function or symbol value): it must stay empty, or the corpus is
// wrong.
const stringifyCorpus = `BigInt.prototype.toJSON = function (k) { return "big:" + this + ":" + k; };
const leaves = {
  boxedString: new String("str"), boxedNumber: new Number(3), boxedFalse: new Boolean(false), boxedNegZero: new Number(-0),
  boxedOwnToString: Object.assign(new String("a"), {toString() { return "b"; }}),
  boxedOwnValueOf: Object.assign(new Number(1), {valueOf() { return 7; }}),
  boxedSubclass: new (class N extends Number {})(4), objectString: Object("x"),
  toJSONKey: {toJSON(k) { return "key:" + k; }}, toJSONThis: Object.assign(Object.create({toJSON() { return this; }}), {a: 1}),
  toJSONBoxed: {toJSON() { return new Number(5); }}, toJSONUndefinedInArray: [{toJSON() { return undefined; }}],
  toJSONFromPrototype: new (class P { constructor() { this.x = 1; } toJSON(k) { return {p: k, x: this.x}; } })(),
  toJSONNotFunction: {toJSON: 1, b: 2}, toJSONNested: {toJSON() { return {inner: {toJSON(k) { return "inner:" + k; }}}; }},
  errorWithToJSON: Object.assign(new Error("e"), {toJSON() { return "E"; }}),
  negZero: -0, nan: NaN, inf: Infinity, negInf: -Infinity, bigNumbers: [1e21, 5e-7, 0.1 + 0.2, -1.5e-300, 2 ** 53 + 2],
  sparse: [1, , 3], holes: (() => { const a = []; a[3] = 1; return a; })(), arrayExtraProp: Object.assign([1, 2], {x: 3}),
  arrayUndefined: [undefined, 1], objectUndefined: {u: undefined, v: 1},
  getter: {get x() { return 1; }, get u() { return undefined; }},
  symbolKeys: {[Symbol("s")]: 1, [Symbol.iterator]: 2, a: 2},
  nonEnumerable: Object.defineProperty({shown: 1}, "hidden", {value: 1, enumerable: false}),
  inherited: Object.create({inheritedKey: 1}, {own: {value: 2, enumerable: true}}),
  keyOrder: {b: 1, 2: 1, a: 1, 1: 1, "-1": 1, "01": 1}, nullProto: Object.assign(Object.create(null), {n: 1}),
  protoKey: JSON.parse('{"__proto__": {"x": 1}, "y": 2}'),
  proxy: new Proxy({a: 1}, {}), proxyGet: new Proxy({a: 1, b: 2}, {get: (t, k) => (k === "toJSON" ? undefined : typeof t[k] === "number" ? t[k] * 10 : t[k])}),
  proxyArray: new Proxy([1, 2], {}), proxyOwnKeys: new Proxy({a: 1, b: 2, c: 3}, {ownKeys: () => ["c", "a"]}),
  map: new Map([[1, 2]]), set: new Set([1]), mapOwnProp: Object.assign(new Map(), {own: 1}),
  int8: new Int8Array([-1, 127, -128]), uint8: new Uint8Array([255, 0]), clamped: new Uint8ClampedArray([300, -5]),
  int16: new Int16Array([-1, -32768]), uint16: new Uint16Array([65535]), int32: new Int32Array([-1, -2147483648]),
  uint32: new Uint32Array([4294967295]), float32: new Float32Array([0.1, -0, -1.5]), float64: new Float64Array([-0.1, NaN, Infinity]),
  arrayBuffer: new ArrayBuffer(4), dataView: new DataView(new ArrayBuffer(2)),
  date: new Date(0), invalidDate: new Date(NaN), regexp: /x/g, args: (function () { return arguments; })(1, "two"),
  arraySubclass: (() => { class A extends Array {} const a = new A(); a.push(1, 2); return a; })(),
  classInstance: new (class C { constructor() { this.f = 1; } get g() { return 2; } })(),
  strings: ["quote\" back\\\\ nl\n tab\t nul\u0000 ls\u2028 ps\u2029 emoji\u{1F600}", ""],
  literals: [null, true, false, 0, "", [], {}], bigintToJSON: 5n, boxedBigintToJSON: Object(6n),
};
const corpus = {};
for (const name of Object.keys(leaves)) {
  const v = leaves[name];
  corpus[name] = v;
  corpus[name + ".inObject"] = {member: v};
  corpus[name + ".inArray"] = [v];
  corpus[name + ".inProxy"] = new Proxy({member: v}, {});
  corpus[name + ".byGetter"] = {get member() { return v; }};
  corpus[name + ".fromToJSON"] = {toJSON() { return [v]; }};
}
corpus.nested = leaves;
const dropped = [];
JSON.stringify(corpus, function (k, x) { if (typeof x === "function" || typeof x === "symbol") dropped.push(k); return x; });
`

var _ = Describe("codemode", "JSON.stringify conversion", func() {
	It("CM-GUEST-13", "the value, json() output, tool input and thrown-object error text are exactly what JSON.stringify gives, over a corpus of every rule", func(ctx SpecContext) {
		// The corpus's output is about 100 KB: above the default maxOutputBytes.
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxOutputBytes": 1 << 20}), Tools: tools.Standard()})
		// One cell: the engine's own JSON.stringify of every entry (as text),
		// then json() of every entry, the entries as one tool input, and the
		// corpus as the value. Entries are in sorted order so a rerun fails
		// on the same one first.
		res, steps := r.RunToCompletion(ctx, Guest(stringifyCorpus+`if (dropped.length) return {droppedByStringify: dropped};
const names = Object.keys(corpus).sort();
text(JSON.stringify(names));
for (const n of names) { text(JSON.stringify({[n]: corpus[n]})); json({[n]: corpus[n]}); }
text(JSON.stringify(corpus));
await call("echo", corpus);
return corpus;`))
		Expect(res).To(BeCompleted(), "a cell that serialises values JSON.stringify accepts must complete: %s", res.Raw)
		// Output is reported with the result that produced it: a cell that
		// suspended at the echo call (§10) reported its text with the exec.
		out := AllOutput(steps)
		var names []string
		Expect(out).NotTo(BeEmpty(), "the cell writes its corpus's names first: %s", res.Raw)
		Expect(json.Unmarshal([]byte(textOf(out[0])), &names)).To(Succeed(), "the corpus's names must be the first text output, a JSON array (JSON.stringify dropped a value of the corpus? %s)", res.Raw)
		Expect(out).To(HaveLen(2*len(names)+2), "the cell writes a text and a json item per entry, its names and the whole corpus")
		for i, n := range names {
			want := textOf(out[1+2*i])
			Expect(out[2+2*i].Type).To(Equal("json"), "entry %q: json() must append an item of type json", n)
			Expect(out[2+2*i].Value).To(MatchJSON(want), "entry %q: json() must give what JSON.stringify gives in the same cell", n)
		}
		whole := textOf(out[len(out)-1])
		sameEntries(res.Value, whole, "the cell's value")
		calls := r.Tools.CallsOf("echo")
		Expect(calls).To(HaveLen(1), "the cell makes one echo call with the corpus as its input")
		sameEntries(calls[0].Input, whole, "the tool input")

		// A thrown non-Error object's error text carries its content
		// (CM-EXEC-22): exactly JSON.stringify's text of it.
		res, _ = r.RunToCompletion(ctx, stringifyCorpus+`const names = Object.keys(leaves).filter((n) => n !== "strings").sort();
const e = {}; for (const n of names) e[n] = leaves[n];
text(JSON.stringify(e)); throw e;`)
		Expect(res).To(BeFailed(), "a cell throwing a plain object must fail")
		Expect(res.Output).To(HaveLen(1), "the cell writes JSON.stringify's text of the thrown object before throwing it: %s", res.Raw)
		Expect(res.Error).To(ContainSubstring(textOf(res.Output[0])), "the error text of a thrown object must carry JSON.stringify's text of it")
		for _, c := range []struct{ thrown, text string }{{`new String("boxed")`, `"boxed"`}, {`new Number(-0)`, `0`}, {`{toJSON(k) { return "key:" + k; }}`, `"key:"`}} {
			res, _ = r.RunToCompletion(ctx, "throw "+c.thrown+";")
			Expect(res).To(BeFailed(), "a cell throwing %s must fail", c.thrown)
			Expect(res.Error).To(ContainSubstring(c.text), "the error text of a thrown %s must carry JSON.stringify's text of it, %s", c.thrown, c.text)
		}
	})
})

// sameEntries checks that got, JSON of the corpus as the target carried it,
// equals want, JSON.stringify's text of it, entry by entry in sorted order.
func sameEntries(got json.RawMessage, want, channel string) {
	ginkgo.GinkgoHelper()
	var g, w map[string]json.RawMessage
	Expect(json.Unmarshal(got, &g)).To(Succeed(), "%s must be a JSON object of the corpus's entries: %.300s", channel, got)
	Expect(json.Unmarshal([]byte(want), &w)).To(Succeed(), "JSON.stringify's text of the corpus must be JSON")
	names := make([]string, 0, len(w))
	for n := range w {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		Expect(g).To(HaveKey(n), "%s lost the entry %q", channel, n)
		Expect(string(g[n])).To(MatchJSON(string(w[n])), "%s: entry %q must be what JSON.stringify gives in the same cell", channel, n)
	}
	Expect(len(g)).To(Equal(len(w)), "%s must hold the corpus's entries and nothing else: %v", channel, fmt.Sprint(len(g), " entries"))
}

// textOf is the text of a text output item, "" for any other item.
func textOf(o result.Output) string {
	if o.Text == nil {
		return ""
	}
	return *o.Text
}

// exactCases are CM-GUEST-08's "never a corrupted value" for the values
// JSON.stringify throws on, which the target's own rules convert (000 [API
// di output]: "i valori non serializzabili vengono convertiti in stringhe
// semplici o errori"): BigInts (top level, nested, in json() and a tool
// input), BigInt typed arrays and cycles. Each outcome is one of: the cell
// fails cleanly, or the value (as compact JSON) has one of the shapes, each
// of whose placeholder strings passes placeholderOK for its slot. Typed
// arrays that JSON.stringify serialises (Int8Array … Float64Array) are
// CM-GUEST-13's: its text gives them as their index keys with their signed
// or float values, and its corpus judges them (audit 2026-12-02).
var exactCases = []struct {
	name, code string
	ok         []exactShape
}{
	{"top-level BigInt", `return 12345678901234567890n;`, []exactShape{{`^` + placeholder + `$`, []slot{bigint("12345678901234567890")}}}},
	{"nested BigInt", `return {ok: 1, n: 2n ** 64n};`, []exactShape{{`^\{"n":` + placeholder + `,"ok":1\}$`, []slot{bigint("18446744073709551616")}}}},
	{"BigInt in json()", `try { json({n: 12345678901234567890n}); } catch (e) { return "rejected"; } return "written";`, []exactShape{{`^"rejected"$`, nil}, {`^"written"$`, nil}}},
	{"BigInt in a tool input", Guest(`try { const r = await call("echo", {n: 12345678901234567890n}); return {n: r.n}; } catch (e) { return "rejected"; }`),
		[]exactShape{{`^"rejected"$`, nil}, {`^\{"n":` + placeholder + `\}$`, []slot{bigint("12345678901234567890")}}}},
	{"BigInt typed arrays", `return {i: new BigInt64Array([-1n]), u: new BigUint64Array([2n ** 64n - 1n])};`, []exactShape{
		{`^\{"i":\{"0":` + placeholder + `\},"u":\{"0":` + placeholder + `\}\}$`, []slot{bigint("-1"), bigint("18446744073709551615")}},
		// One placeholder for the whole object: each member's number is
		// judged in its own position (i's, then u's), never as "some value
		// of the object" (audit 2026-12-02-stop34, row CM-GUEST-08).
		{`^` + placeholder + `$`, []slot{{own: []string{"-1", "18446744073709551615"}, kinds: []string{"Object", "BigInt64Array", "BigUint64Array", "BigInt"}, ordered: true}}},
		{`^\{"i":` + placeholder + `,"u":` + placeholder + `\}$`, []slot{{own: []string{"-1"}, kinds: []string{"BigInt64Array", "BigInt"}}, {own: []string{"18446744073709551615"}, kinds: []string{"BigUint64Array", "BigInt"}}}}}},
	{"cycle", `const a = {name: "a"}; a.self = a; return a;`, []exactShape{{`^\{"name":"a","self":"[^"]*"\}$`, nil}}},
	{"cycle in a tool input", Guest(`const a = {name: "a"}; a.self = a; try { const r = await call("echo", a); return {name: r.name, self: typeof r.self}; } catch (e) { return "rejected"; }`),
		[]exactShape{{`^"rejected"$`, nil}, {`^\{"name":"a","self":"string"\}$`, nil}}},
}

// placeholder is the regexp group of a JSON string standing in for a
// non-JSON value in an exactShape.
const placeholder = `("(?:[^"\\]|\\.)*")`

// exactShape is an accepted outcome of an exact case: re over the value's
// compact JSON, with one placeholder group per slot, in order.
type exactShape struct {
	re    string
	slots []slot
}

// slot says what a placeholder string may name: the numbers the value
// really holds (own, decimal) and the kinds it is ([object X] must name
// one of them). ordered is set for a placeholder of a whole object whose
// members hold own in order: the k-th number it names (counts aside) must
// be own[k], so each member is judged in its own slot.
type slot struct {
	own, kinds []string
	ordered    bool
}

// bigint is the slot of one BigInt of decimal value own.
func bigint(own string) slot { return slot{own: []string{own}, kinds: []string{"BigInt"}} }

var (
	objectKindRE = regexp.MustCompile(`\[object (\w+)\]`)
	// typedKindRE is a typed array's kind name, with a length such as
	// Node's BigInt64Array(1): a digit of it is no value.
	typedKindRE = regexp.MustCompile(`(?i)(?:big)?(?:u?int|float)(?:8|16|32|64)(?:clamped)?(?:array)?(?:\(\d+\))?`)
	numberRE    = regexp.MustCompile(`-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?n?`)
	// countRE follows a number that counts something of the value (its
	// digits, elements, bytes): "[BigInt: 20 digits]".
	countRE = regexp.MustCompile(`(?i)^\s*(?:digits?|elements?|items?|entries|entry|bytes?|bits?)\b`)
)

// placeholderOK reports whether the JSON string quoted stands for a value of
// sl without corrupting it, and why not: a plain string may name the value's
// kind and count its digits or elements, and may carry the value's own
// decimal, but it must not name another kind ("[object Object]" for a
// BigInt) or another number ("-6101065172474983726", a signed 64-bit wrap
// of 12345678901234567890n, or the value with its sign lost or flipped).
func placeholderOK(quoted string, sl slot) (bool, string) {
	var s string
	if json.Unmarshal([]byte(quoted), &s) != nil {
		return false, "not a JSON string"
	}
	for _, m := range objectKindRE.FindAllStringSubmatch(s, -1) {
		if !slices.Contains(sl.kinds, m[1]) {
			return false, fmt.Sprintf("it names the kind %s, and the value is a %s", m[0], strings.Join(sl.kinds, " or "))
		}
	}
	rest := typedKindRE.ReplaceAllString(s, " ")
	k := 0 // the position of the next value number, for an ordered slot
	for _, loc := range numberRE.FindAllStringIndex(rest, -1) {
		from, to := loc[0], loc[1]
		if rest[from] == '-' && from > 0 && isWordByte(rest[from-1]) {
			from++ // a hyphen after a word is no sign
		}
		n := strings.TrimSuffix(rest[from:to], "n")
		if countRE.MatchString(rest[to:]) {
			continue
		}
		if sl.ordered {
			if k < len(sl.own) && sl.own[k] == n {
				k++
				continue
			}
			if k < len(sl.own) {
				return false, fmt.Sprintf("it names the number %s where member %d of the value holds %s", n, k+1, sl.own[k])
			}
			return false, fmt.Sprintf("it names the number %s beyond the value's members, which hold %s", n, strings.Join(sl.own, " and "))
		}
		if slices.Contains(sl.own, n) {
			continue
		}
		return false, fmt.Sprintf("it names the number %s, and the value holds %s", n, strings.Join(sl.own, " and "))
	}
	return true, ""
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// matchExact reports whether got (compact JSON) has one of the shapes with
// every placeholder passing, and otherwise why not.
func matchExact(got string, shapes []exactShape) (bool, string) {
	var whys []string
	for _, sh := range shapes {
		m := regexp.MustCompile(sh.re).FindStringSubmatch(got)
		if m == nil {
			whys = append(whys, fmt.Sprintf("not of the shape %s", sh.re))
			continue
		}
		ok := true
		for i, sl := range sh.slots {
			if good, why := placeholderOK(m[i+1], sl); !good {
				whys = append(whys, fmt.Sprintf("the string %s: %s", m[i+1], why))
				ok = false
				break
			}
		}
		if ok {
			return true, ""
		}
	}
	return false, strings.Join(whys, "; ")
}

var _ = Describe("codemode", "exact values at the JSON boundary", func() {
	// The name is the one committed baselines list (reports/openclaw-*):
	// of typed arrays it now judges only the BigInt ones (exactCases).
	It("CM-GUEST-08", "BigInts (top level, nested, json(), tool input), typed arrays of every kind and sign and cycles never become a wrong value", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		for _, c := range exactCases {
			res, _ := r.RunToCompletion(ctx, c.code)
			if res.Status == "failed" {
				Expect(res.Error).NotTo(BeEmpty(), "%s: failed without an error message", c.name)
				noHostFrames(res.Error)
				continue
			}
			Expect(res).To(BeCompleted(), "%s: the cell must complete or fail cleanly", c.name)
			got := compactJSON(res.Value)
			ok, why := matchExact(got, c.ok)
			Expect(ok).To(BeTrue(), "%s: the value %s is corrupted (%s): a plain string in place of a non-JSON value may name its kind and carry its own decimal, never another kind or number", c.name, got, why)
			if c.name == "BigInt in json()" && got == `"written"` {
				Expect(res.Output).To(HaveLen(1), "%s: json() that did not throw must write one item: %s", c.name, res.Raw)
				item := compactJSON(res.Output[0].Value)
				ok, why := matchExact(item, []exactShape{{`^\{"n":` + placeholder + `\}$`, []slot{bigint("12345678901234567890")}}})
				Expect(ok).To(BeTrue(), "%s: json({n: 12345678901234567890n}) wrote %s (%s): n must be a plain string that names no other kind or number, never a wrong number", c.name, item, why)
			}
		}
	})
})

// compactJSON is raw decoded and encoded again (keys sorted, no spaces), or
// raw itself when it is not JSON.
func compactJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
