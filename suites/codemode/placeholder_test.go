package codemode

import "testing"

// TestExactPlaceholders pins CM-GUEST-08's placeholder rule (audit
// 2026-12-02): a plain string may name the value's kind, count its digits and
// carry its own decimal; another kind or another number is a corrupted value.
func TestExactPlaceholders(t *testing.T) {
	big := bigint("12345678901234567890")
	bigI64 := slot{own: []string{"-1"}, kinds: []string{"BigInt64Array", "BigInt"}}
	whole := exactShapes(t, "BigInt typed arrays")[1].slots[0] // one placeholder for {i, u} (audit 2026-12-02-stop34)
	for _, c := range []struct {
		got  string
		sl   slot
		want bool
	}{
		{`"[BigInt]"`, big, true},
		{`"[BigInt: 20 digits]"`, big, true},
		{`"12345678901234567890"`, big, true},
		{`"12345678901234567890n"`, big, true},
		{`"[object BigInt]"`, big, true},
		{`"-6101065172474983726"`, big, false},
		{`"-12345678901234567890"`, big, false},
		{`"1.2345678901234567e+19"`, big, false},
		{`"[object Object]"`, big, false},
		{`"[BigInt 255]"`, big, false},
		{`"[object BigInt64Array]"`, bigI64, true},
		{`"BigInt64Array(1) [ -1n ]"`, bigI64, true},
		{`"BigInt64Array(1) [ 18446744073709551615n ]"`, bigI64, false},
		{`"[BigInt64Array: 1 element]"`, bigI64, true},
		{`"[object Uint8Array]"`, bigI64, false},
		{`1`, big, false},
		{`"{ i: BigInt64Array(1) [ -1n ], u: BigUint64Array(1) [ 18446744073709551615n ] }"`, whole, true},
		{`"{ i: BigInt64Array(1) [ -1n ], u: BigUint64Array(1) [ -1n ] }"`, whole, false},
		{`"{ i: BigInt64Array(1) [ 18446744073709551615n ], u: BigUint64Array(1) [ -1n ] }"`, whole, false},
		{`"[object Object]"`, whole, true},
	} {
		if ok, why := placeholderOK(c.got, c.sl); ok != c.want {
			t.Errorf("placeholderOK(%s, %v) = %v (%s), want %v", c.got, c.sl, ok, why, c.want)
		}
	}
	if ok, _ := matchExact(`{"n":"[object Object]","ok":1}`, exactShapes(t, "nested BigInt")); ok {
		t.Errorf(`{"n":"[object Object]","ok":1} must not pass the nested BigInt case`)
	}
	if ok, why := matchExact(`{"i":"[object BigInt64Array]","u":"[object BigUint64Array]"}`, exactShapes(t, "BigInt typed arrays")); !ok {
		t.Errorf("kind placeholders for BigInt typed arrays must pass: %s", why)
	}
}

// exactShapes is the accepted shapes of the exact case named name.
func exactShapes(t *testing.T, name string) []exactShape {
	t.Helper()
	for _, c := range exactCases {
		if c.name == name {
			return c.ok
		}
	}
	t.Fatalf("no exact case %q", name)
	return nil
}
