package broken

import (
	"fmt"
	"strings"
)

// Serialisation faults (CM-GUEST-08, CM-GUEST-13). Each wraps the code of
// every exec so that a guest function, change(value, where), rewrites what
// leaves the guest before the reference's own conversion sees it: where is
// "value" for the cell's value, "json" for a json() item and "input" for a
// tool input. That is the defect of a target whose own converter differs
// from JSON.stringify in one rule; everything else is the reference's.
func init() {
	Variants = append(Variants,
		Variant{Name: "bigint-top-level-int64", Breaks: "CM-GUEST-08", Spec: "never become a wrong value",
			Defect: "a BigInt cell value is written through a signed 64-bit integer: 12345678901234567890n becomes \"-6101065172474983726\" (nested BigInts are right)",
			Serve:  changingValues(`(v, where) => where === "value" && typeof v === "bigint" ? String(BigInt.asIntN(64, v)) : v`)},
		Variant{Name: "bigint-nested-object-string", Breaks: "CM-GUEST-08", Spec: "never become a wrong value",
			Defect: "a cell value holding a BigInt beyond 64 bits falls back to String(value), so {n: 2n ** 64n} becomes \"[object Object]\" (smaller BigInts are right)",
			Serve: changingValues(`(v, where) => {
				if (where !== "value" || v === null || typeof v !== "object") return v;
				const big = (x, d) => typeof x === "bigint" ? BigInt.asIntN(64, x) !== x : d < 8 && x !== null && typeof x === "object" && Object.values(x).some((y) => big(y, d + 1));
				return big(v, 0) ? String(v) : v; }`)},
		// Typed arrays that JSON.stringify serialises are CM-GUEST-13's (its
		// text: "typed arrays of every kind as their index keys with their
		// signed or float values"); CM-GUEST-08's exact spec no longer judges
		// them (audit 2026-12-02: one fault, one requirement).
		Variant{Name: "typed-array-unsigned-bytes", Breaks: "CM-GUEST-13", Spec: "exactly what JSON.stringify gives",
			Defect: "a typed array of numbers crosses as its unsigned bytes, so Int8Array([-1]) becomes {\"0\":255} (a Uint8Array is right; BigInt typed arrays, which JSON.stringify throws on, are the reference's)",
			Serve: changingValues(`(v) => {
				const numeric = (x) => ArrayBuffer.isView(x) && !(x instanceof DataView) && !(x instanceof BigInt64Array) && !(x instanceof BigUint64Array);
				const bytes = (x, d) => {
					if (numeric(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
					if (d > 8 || x === null || typeof x !== "object" || Array.isArray(x) || Object.getPrototypeOf(x) !== Object.prototype) return x;
					const o = {}; for (const k of Object.keys(x)) o[k] = bytes(x[k], d + 1); return o; };
				const has = (x, d) => numeric(x) || (d < 8 && x !== null && typeof x === "object" && Object.values(x).some((y) => has(y, d + 1)));
				return has(v, 0) ? bytes(v, 0) : v; }`)},
		// The json(), tool-input and cycle cases of the exact-values spec
		// (the audit of issue 23 acceptance: the three variants above change
		// only the cell value). CM-GUEST-08's main spec passes each: it never
		// reads json()'s item, its tool input's BigInt fits 64 bits, and it
		// accepts any plain-JSON member in place of a cycle.
		Variant{Name: "bigint-json-int64", Breaks: "CM-GUEST-08", Spec: "never become a wrong value",
			Defect: "a BigInt inside a json() argument is written through a signed 64-bit integer: json({n: 12345678901234567890n}) writes {\"n\":\"-6101065172474983726\"} (the cell value and tool inputs are right)",
			Serve:  changingValues(`(v, where) => where === "json" ? __int64BigInts(v, 0) : v`, int64BigInts)},
		Variant{Name: "bigint-input-int64", Breaks: "CM-GUEST-08", Spec: "never become a wrong value",
			Defect: "a BigInt inside a tool input is written through a signed 64-bit integer: {n: 12345678901234567890n} reaches the tool as {\"n\":\"-6101065172474983726\"} (the cell value and json() are right)",
			Serve:  changingValues(`(v, where) => where === "input" ? __int64BigInts(v, 0) : v`, int64BigInts)},
		Variant{Name: "cycle-empty-object", Breaks: "CM-GUEST-08", Spec: "never become a wrong value",
			Defect: "a cell value or tool input holding a cycle has the cyclic reference written as {} (a seen-set that answers a fresh object), so {name: \"a\", self: a} becomes {\"name\":\"a\",\"self\":{}}: a value that was never there",
			Serve: changingValues(`(v, where) => {
				if (where === "json") return v;
				const seen = new Set();
				const walk = (x, d) => {
					if (x === null || typeof x !== "object" || d > 60 || ArrayBuffer.isView(x)) return x;
					if (Object.getPrototypeOf(x) !== Object.prototype && !Array.isArray(x)) return x;
					if (seen.has(x)) return {};
					seen.add(x);
					const o = Array.isArray(x) ? [] : {};
					for (const k of Object.keys(x)) o[k] = walk(x[k], d + 1);
					seen.delete(x);
					return o; };
				const cyclic = (x, path) => x !== null && typeof x === "object" && (path.includes(x) || Object.values(x).some((y) => cyclic(y, path.concat([x]))));
				try { return cyclic(v, []) ? walk(v, 0) : v; } catch (e) { return v; } }`)},
		// The old exact spec accepted any digit-free string for a BigInt,
		// "[object Object]" too (audit 2026-12-02): a string naming another
		// kind is a corrupted value.
		Variant{Name: "bigint-member-object-placeholder", Breaks: "CM-GUEST-08", Spec: "never become a wrong value",
			Defect: "a BigInt member of a cell value is replaced by the generic placeholder \"[object Object]\", so {ok: 1, n: 2n ** 64n} becomes {\"ok\":1,\"n\":\"[object Object]\"}: a string that says the value was an object (where BigInt.prototype.toJSON makes JSON.stringify accept a BigInt, the member is right)",
			Serve: changingValues(`(v, where) => where === "value" && typeof BigInt.prototype.toJSON !== "function" && v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype && Object.values(v).some((x) => typeof x === "bigint")
				? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typeof x === "bigint" ? "[object Object]" : x])) : v`)},
		// The whole-object placeholder had one slot holding both members'
		// numbers, so a member read with the wrong sign still named "some
		// value of the object" (audit 2026-12-02-stop34, row CM-GUEST-08).
		Variant{Name: "bigint-typed-whole-signed", Breaks: "CM-GUEST-08", Spec: "never become a wrong value",
			Defect: "a cell value whose members are BigInt typed arrays becomes one util.inspect-like string that reads every element as signed 64-bit: {i: BigInt64Array [-1n], u: BigUint64Array [2n ** 64n - 1n]} becomes \"{ i: BigInt64Array(1) [ -1n ], u: BigUint64Array(1) [ -1n ] }\": u lost its value",
			Serve: changingValues(`(v, where) => where === "value" && v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype && Object.keys(v).length > 0
				&& Object.values(v).every((a) => a instanceof BigInt64Array || a instanceof BigUint64Array)
				? "{ " + Object.entries(v).map(([k, a]) => k + ": " + a.constructor.name + "(" + a.length + ") [ " + Array.from(new BigInt64Array(a.buffer, a.byteOffset, a.length), (x) => x + "n").join(", ") + " ]").join(", ") + " }" : v`)},
		Variant{Name: "stringify-drift", Breaks: "CM-GUEST-13",
			Defect: "the converter walks boxed primitives as plain objects (new String(\"str\") becomes {\"0\":\"s\",\"1\":\"t\",\"2\":\"r\"}, new Number(3) {}) and calls toJSON with \"\" instead of the property key, as the reference's before 2026-12-01 did",
			Serve: changingValues(`(v) => {
				const seen = new Map();
				const walk = (x, d) => {
					if (x === null || typeof x !== "object" || d > 60) return x;
					if (x instanceof String || x instanceof Number || x instanceof Boolean) return Object.assign({}, x);
					if (typeof x.toJSON === "function") return walk(x.toJSON(""), d + 1);
					if (seen.has(x)) return seen.get(x);
					if (Array.isArray(x)) { const a = []; seen.set(x, a); for (let i = 0; i < x.length; i++) a[i] = walk(x[i], d + 1); return a; }
					if (Object.getPrototypeOf(x) !== Object.prototype && Object.getPrototypeOf(x) !== null) return x;
					const o = {}; seen.set(x, o);
					for (const k of Object.keys(x)) { let y; try { y = x[k]; } catch (e) { return x; } o[k] = walk(y, d + 1); }
					return o; };
				try { return walk(v, 0); } catch (e) { return v; } }`)},
	)
}

// changingValues serves the reference with the code of every exec wrapped
// so that change, a JavaScript function expression (value, where) => value,
// rewrites the cell's value, every json() argument and every tools.call
// input first. The wrapper shadows json and tools inside the cell only; its
// tools is a proxy over an empty object, not over the reference's frozen
// tools, whose non-writable call a proxy's get may not replace ("proxy:
// inconsistent get": before 2026-12-02 every tools.call of these variants
// threw that).
//
// helpers are guest declarations the change function may use, prepended.
func changingValues(change string, helpers ...string) serveFunc {
	prefix := strings.Join(append(helpers, ""), "\n") + fmt.Sprintf(`const __change = (%s);
const json = ((j) => (v) => j(__change(v, "json")))(globalThis.json);
const tools = ((t) => new Proxy(Object.create(null), {get(_, k) { const f = t[k]; if (k === "call") return (id, input, ...rest) => f.call(t, id, __change(input, "input"), ...rest); return typeof f === "function" ? f.bind(t) : f; },
  has: (_, k) => k in t, ownKeys: () => Reflect.ownKeys(t), getOwnPropertyDescriptor: (_, k) => { const d = Reflect.getOwnPropertyDescriptor(t, k); return d && {...d, configurable: true}; }}))(globalThis.tools);
return __change(await (async () => {
`, change)
	return rewritingCode(func(code string) string { return prefix + code + "\n})(), \"value\");" })
}

// int64BigInts declares __int64BigInts(v, depth): v with every BigInt in it
// (at any depth of plain objects and arrays) replaced by the decimal string
// of its signed 64-bit wrap, as a converter writing BigInts through an int64.
const int64BigInts = `const __int64BigInts = (x, d) => typeof x === "bigint" ? String(BigInt.asIntN(64, x))
  : d > 8 || x === null || typeof x !== "object" || (Object.getPrototypeOf(x) !== Object.prototype && !Array.isArray(x)) ? x
  : Array.isArray(x) ? x.map((y) => __int64BigInts(y, d + 1)) : Object.fromEntries(Object.entries(x).map(([k, y]) => [k, __int64BigInts(y, d + 1)]));`
