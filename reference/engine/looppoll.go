package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// LoopPollEvery is how many loop iterations of native code run between two
// calls of the interrupt import that addLoopPolls puts in: each call is a
// Go safepoint (a stop-the-world no longer waits for the loop), yields the
// run slot when its quantum is up and stops a VM whose flag is set. At a
// few nanoseconds per iteration that is a call every 10–50 µs.
const LoopPollEvery = 10000

// addLoopPolls returns a copy of the wasm module in which every loop of
// every function except the largest (QuickJS's interpreter, JS_CallInternal,
// which polls the interrupt handler itself) counts down a new mutable
// global at each iteration and, when it reaches zero, resets it to
// LoopPollEvery and calls the env.host_interrupt import, trapping with
// unreachable when that returns 1 (the VM's stop flag is set). So no native
// loop of the engine (string search, normalisation, case mapping, URI
// coding, JSON, BigInt arithmetic, sorts, sparse-array walks: ENGINE.md,
// "Native loops") can outlive its deadline or freeze the process.
// Function indices do not change (no import is added), so bulkPolls and the
// BigInt patch keep their meaning. The error wraps ErrUnavailable.
func addLoopPolls(wasm []byte) ([]byte, error) {
	out, err := rewriteLoops(wasm)
	if err != nil {
		return nil, fmt.Errorf("%w: adding loop polls: %v", ErrUnavailable, err)
	}
	return out, nil
}

const (
	secImport = 2
	secGlobal = 6
	secCode   = 10
)

type wreader struct {
	b   []byte
	off int
}

var errShort = errors.New("truncated")

func (r *wreader) byte() byte {
	if r.off >= len(r.b) {
		panic(errShort)
	}
	c := r.b[r.off]
	r.off++
	return c
}

func (r *wreader) u32() uint32 {
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		panic(errShort)
	}
	r.off += n
	return uint32(v)
}

// sleb skips a signed LEB128 of any width.
func (r *wreader) sleb() {
	for r.byte()&0x80 != 0 {
	}
}

func (r *wreader) skip(n int) {
	if r.off+n > len(r.b) {
		panic(errShort)
	}
	r.off += n
}

func (r *wreader) name() string {
	n := int(r.u32())
	s := string(r.b[r.off : r.off+n])
	r.skip(n)
	return s
}

func uleb(v uint32) []byte { return binary.AppendUvarint(nil, uint64(v)) }

func rewriteLoops(wasm []byte) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			if e, ok := p.(error); ok {
				err = e
				return
			}
			panic(p)
		}
	}()
	if len(wasm) < 8 || !bytes.Equal(wasm[:4], []byte("\x00asm")) {
		return nil, errors.New("not a wasm module")
	}
	type section struct {
		id      byte
		content []byte
	}
	var secs []section
	r := &wreader{b: wasm, off: 8}
	for r.off < len(wasm) {
		id := r.byte()
		n := int(r.u32())
		start := r.off
		r.skip(n)
		secs = append(secs, section{id, wasm[start : start+n]})
	}
	interrupt, importedGlobals := -1, 0
	globals := -1
	for _, s := range secs {
		switch s.id {
		case secImport:
			ir := &wreader{b: s.content}
			funcs := 0
			for range ir.u32() {
				mod, field := ir.name(), ir.name()
				switch kind := ir.byte(); kind {
				case 0: // function
					ir.u32()
					if mod == "env" && field == "host_interrupt" {
						interrupt = funcs
					}
					funcs++
				case 1: // table
					ir.byte()
					if ir.byte()&1 != 0 {
						ir.u32()
					}
					ir.u32()
				case 2: // memory
					if ir.byte()&1 != 0 {
						ir.u32()
					}
					ir.u32()
				case 3: // global
					ir.skip(2)
					importedGlobals++
				default:
					return nil, fmt.Errorf("import kind %d", kind)
				}
			}
		case secGlobal:
			globals = int((&wreader{b: s.content}).u32())
		}
	}
	if interrupt < 0 || globals < 0 {
		return nil, errors.New("no env.host_interrupt import or no global section")
	}
	counter := uint32(importedGlobals + globals)
	// At each loop header: if (--counter == 0) { counter = N; if (host_interrupt()) unreachable }
	poll := slicesConcat(
		[]byte{0x23}, uleb(counter), []byte{0x41, 0x01, 0x6b, 0x24}, uleb(counter),
		[]byte{0x23}, uleb(counter), []byte{0x45, 0x04, 0x40, 0x41}, sleb32(LoopPollEvery), []byte{0x24}, uleb(counter),
		[]byte{0x10}, uleb(uint32(interrupt)), []byte{0x04, 0x40, 0x00, 0x0b, 0x0b},
	)
	var buf bytes.Buffer
	buf.Write(wasm[:8])
	for _, s := range secs {
		content := s.content
		switch s.id {
		case secGlobal:
			gr := &wreader{b: content}
			n := gr.u32()
			content = slicesConcat(uleb(n+1), content[gr.off:], []byte{0x7f, 0x01, 0x41}, sleb32(LoopPollEvery), []byte{0x0b})
		case secCode:
			if content, err = rewriteCode(content, poll); err != nil {
				return nil, err
			}
		}
		buf.WriteByte(s.id)
		buf.Write(uleb(uint32(len(content))))
		buf.Write(content)
	}
	return buf.Bytes(), nil
}

func sleb32(v int32) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func slicesConcat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// rewriteCode puts poll after the block type of every loop of every body
// in the code section except the largest.
func rewriteCode(code, poll []byte) ([]byte, error) {
	cr := &wreader{b: code}
	n := cr.u32()
	bodies := make([][]byte, n)
	largest := 0
	for i := range bodies {
		size := int(cr.u32())
		bodies[i] = code[cr.off : cr.off+size]
		cr.skip(size)
		if size > len(bodies[largest]) {
			largest = i
		}
	}
	out := uleb(n)
	for i, body := range bodies {
		nb := body
		if i != largest {
			var err error
			if nb, err = rewriteBody(body, poll); err != nil {
				return nil, fmt.Errorf("function body %d: %w", i, err)
			}
		}
		out = append(out, uleb(uint32(len(nb)))...)
		out = append(out, nb...)
	}
	return out, nil
}

// rewriteBody decodes one function body instruction by instruction (so a
// 0x03 byte inside an immediate is never taken for a loop) and checks that
// it ends exactly at its final end.
func rewriteBody(body, poll []byte) ([]byte, error) {
	r := &wreader{b: body}
	for range r.u32() { // local declarations
		r.u32()
		r.byte()
	}
	out := append([]byte(nil), body[:r.off]...)
	depth := 1
	last := r.off
	for depth > 0 {
		op := r.byte()
		switch {
		case op == 0x02 || op == 0x03 || op == 0x04: // block, loop, if
			blockType(r)
			depth++
			if op == 0x03 {
				out = append(out, body[last:r.off]...)
				out = append(out, poll...)
				last = r.off
			}
		case op == 0x0b:
			depth--
		case op == 0x00, op == 0x01, op == 0x05, op == 0x0f, op == 0x1a, op == 0x1b, op == 0xd1:
		case op == 0x0c, op == 0x0d, op == 0x10, op == 0xd2, op >= 0x20 && op <= 0x26:
			r.u32()
		case op == 0x0e: // br_table
			for range r.u32() + 1 {
				r.u32()
			}
		case op == 0x11: // call_indirect
			r.u32()
			r.u32()
		case op == 0x1c: // select t*
			for range r.u32() {
				r.byte()
			}
		case op >= 0x28 && op <= 0x3e: // memarg
			r.u32()
			r.u32()
		case op == 0x3f, op == 0x40, op == 0xd0:
			r.byte()
		case op == 0x41, op == 0x42:
			r.sleb()
		case op == 0x43:
			r.skip(4)
		case op == 0x44:
			r.skip(8)
		case op >= 0x45 && op <= 0xc4:
		case op == 0xfc:
			switch sub := r.u32(); {
			case sub <= 7:
			case sub == 8:
				r.u32()
				r.byte()
			case sub == 9, sub == 13, sub >= 15 && sub <= 17:
				r.u32()
			case sub == 10:
				r.skip(2)
			case sub == 11:
				r.byte()
			case sub == 12, sub == 14:
				r.u32()
				r.u32()
			default:
				return nil, fmt.Errorf("opcode 0xfc %d at %d", sub, r.off)
			}
		case op == 0xfd:
			switch sub := r.u32(); {
			case sub <= 11, sub == 92, sub == 93:
				r.u32()
				r.u32()
			case sub == 12, sub == 13:
				r.skip(16)
			case sub >= 21 && sub <= 34:
				r.byte()
			case sub >= 84 && sub <= 91:
				r.u32()
				r.u32()
				r.byte()
			}
		default:
			return nil, fmt.Errorf("opcode 0x%02x at %d", op, r.off-1)
		}
	}
	if r.off != len(body) {
		return nil, fmt.Errorf("body ends at %d of %d bytes", r.off, len(body))
	}
	return append(out, body[last:]...), nil
}

// blockType skips a block type: empty, a value type, or a type index.
func blockType(r *wreader) {
	switch r.b[r.off] {
	case 0x40, 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f:
		r.off++
	default:
		r.sleb()
	}
}
