package codemode

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"

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
// JSON.stringify throws on or that a converter easily gets wrong: BigInts
// (top level, nested, in json() and a tool input), typed arrays of every
// kind and sign, and cycles. Each outcome is one of: the cell fails
// cleanly, or the value (as compact JSON) matches one of ok. A BigInt's
// plain string names no digits or exactly the BigInt's decimal ones.
var exactCases = []struct {
	name, code string
	ok         []string
}{
	{"top-level BigInt", `return 12345678901234567890n;`, []string{`^"[^0-9"]*(12345678901234567890[^0-9"]*)?"$`}},
	{"nested BigInt", `return {ok: 1, n: 2n ** 64n};`, []string{`^\{"n":"[^0-9"]*(18446744073709551616[^0-9"]*)?","ok":1\}$`}},
	{"BigInt in json()", `try { json({n: 12345678901234567890n}); } catch (e) { return "rejected"; } return "written";`, []string{`^"rejected"$`, `^"written"$`}},
	{"BigInt in a tool input", Guest(`try { const r = await call("echo", {n: 12345678901234567890n}); return {n: r.n}; } catch (e) { return "rejected"; }`),
		[]string{`^"rejected"$`, `^\{"n":"[^0-9"]*(12345678901234567890[^0-9"]*)?"\}$`}},
	{"typed arrays of every kind and sign", `return {i8: new Int8Array([-1, 127, -128]), u8: new Uint8Array([255]), c8: new Uint8ClampedArray([300, -5]),
		i16: new Int16Array([-1, -32768]), u16: new Uint16Array([65535]), i32: new Int32Array([-1, -2147483648]),
		u32: new Uint32Array([4294967295]), f32: new Float32Array([-1.5, -0]), f64: new Float64Array([-0.1, NaN])};`,
		[]string{`^\{"c8":\{"0":255,"1":0\},"f32":\{"0":-1.5,"1":0\},"f64":\{"0":-0.1,"1":null\},"i16":\{"0":-1,"1":-32768\},"i32":\{"0":-1,"1":-2147483648\},"i8":\{"0":-1,"1":127,"2":-128\},"u16":\{"0":65535\},"u32":\{"0":4294967295\},"u8":\{"0":255\}\}$`,
			`^"[^0-9"]*"$`, `^\{("[a-z0-9]+":"[^0-9"]*",?)+\}$`}},
	{"BigInt typed arrays", `return {i: new BigInt64Array([-1n]), u: new BigUint64Array([2n ** 64n - 1n])};`,
		[]string{`^\{"i":\{"0":"[^0-9"]*-1[^0-9"]*"\},"u":\{"0":"[^0-9"]*18446744073709551615[^0-9"]*"\}\}$`, `^"[^0-9"]*"$`, `^\{"i":"[^0-9"]*","u":"[^0-9"]*"\}$`}},
	{"cycle", `const a = {name: "a"}; a.self = a; return a;`, []string{`^\{"name":"a","self":"[^"]*"\}$`}},
	{"cycle in a tool input", Guest(`const a = {name: "a"}; a.self = a; try { const r = await call("echo", a); return {name: r.name, self: typeof r.self}; } catch (e) { return "rejected"; }`),
		[]string{`^"rejected"$`, `^\{"name":"a","self":"string"\}$`}},
}

var _ = Describe("codemode", "exact values at the JSON boundary", func() {
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
			Expect(slices.ContainsFunc(c.ok, func(re string) bool { return regexp.MustCompile(re).MatchString(got) })).To(BeTrue(),
				"%s: the value %s is corrupted: it must match one of %q (a BigInt's string names no digits or exactly its own; typed arrays keep their signed and float values)", c.name, got, c.ok)
			if c.name == "BigInt in json()" && got == `"written"` {
				Expect(res.Output).To(HaveLen(1), "%s: json() that did not throw must write one item: %s", c.name, res.Raw)
				item := compactJSON(res.Output[0].Value)
				Expect(item).To(MatchRegexp(`^\{"n":"[^0-9"]*(12345678901234567890[^0-9"]*)?"\}$`), "%s: json({n: 12345678901234567890n}) must keep n a plain string naming no digits or exactly the BigInt's, never a wrong number", c.name)
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
