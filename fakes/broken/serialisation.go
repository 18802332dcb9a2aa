package broken

import "fmt"

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
		Variant{Name: "typed-array-unsigned-bytes", Breaks: "CM-GUEST-08", Spec: "never become a wrong value",
			Defect: "a typed array crosses as its unsigned bytes, so Int8Array([-1]) becomes {\"0\":255} (a Uint8Array is right)",
			Serve: changingValues(`(v) => {
				const bytes = (x, d) => {
					if (ArrayBuffer.isView(x) && !(x instanceof DataView)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
					if (d > 8 || x === null || typeof x !== "object" || Array.isArray(x) || Object.getPrototypeOf(x) !== Object.prototype) return x;
					const o = {}; for (const k of Object.keys(x)) o[k] = bytes(x[k], d + 1); return o; };
				const has = (x, d) => ArrayBuffer.isView(x) || (d < 8 && x !== null && typeof x === "object" && Object.values(x).some((y) => has(y, d + 1)));
				return has(v, 0) ? bytes(v, 0) : v; }`)},
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
// input first. The wrapper shadows json and tools inside the cell only.
func changingValues(change string) serveFunc {
	prefix := fmt.Sprintf(`const __change = (%s);
const json = ((j) => (v) => j(__change(v, "json")))(globalThis.json);
const tools = new Proxy(globalThis.tools, {get(t, k) { const f = t[k]; if (k === "call") return (id, input, ...rest) => f.call(t, id, __change(input, "input"), ...rest); return typeof f === "function" ? f.bind(t) : f; }});
return __change(await (async () => {
`, change)
	return rewritingCode(func(code string) string { return prefix + code + "\n})(), \"value\");" })
}
