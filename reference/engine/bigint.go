package engine

import (
	"bytes"
	"fmt"
)

// BigIntMaxBits is the largest BigInt the engine makes, in bits: a larger
// result throws QuickJS's own RangeError "BigInt is too large to allocate".
// QuickJS-NG's multiplication, division, exponentiation, decimal toString
// and parsing are quadratic, each one wasm function whose loops never call
// out (so no listener can stop them, ENGINE.md "BigInt"), and at the
// engine's own cap of 2^20 bits one String() of a BigInt runs about 12 s
// while it holds up every GC of the process (issue 25 item 3). At 2^17 bits
// the slowest of them takes well under Grace.
const BigIntMaxBits = 1 << 17

// bigIntCheck is js_bigint_new's size check in the wasm pinned by
// WasmSHA256, function 294 at byte offset 118686 of the file: local.get 1
// (the length in 32-bit limbs), i32.const 32769, i32.ge_s. The constant is
// a 3-byte signed LEB128; it is rewritten in place (a padded LEB128 is
// valid wasm), so no other byte moves.
var (
	bigIntCheckAt = 118686
	bigIntCheck   = []byte{0x20, 0x01, 0x41, 0x81, 0x80, 0x02, 0x4e}
)

// capBigInts returns a copy of the pinned wasm whose js_bigint_new refuses
// BigInts of more than BigIntMaxBits, or an error if the bytes are not the
// expected ones.
func capBigInts(wasm []byte) ([]byte, error) {
	end := bigIntCheckAt + len(bigIntCheck)
	if len(wasm) < end || !bytes.Equal(wasm[bigIntCheckAt:end], bigIntCheck) {
		return nil, fmt.Errorf("%w: the BigInt size check is not at byte %d of the wasm", ErrUnavailable, bigIntCheckAt)
	}
	out := bytes.Clone(wasm)
	limbs := BigIntMaxBits/32 + 1 // ge_s: refused from this length on
	out[bigIntCheckAt+3] = byte(limbs&0x7f) | 0x80
	out[bigIntCheckAt+4] = byte(limbs>>7&0x7f) | 0x80
	out[bigIntCheckAt+5] = byte(limbs >> 14 & 0x3f) // sign bit clear
	return out, nil
}
