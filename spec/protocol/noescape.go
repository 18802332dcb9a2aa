package protocol

import "bytes"

// UnescapeHTML returns the JSON text msg with the escapes `\u003c`,
// `\u003e` and `\u0026` (any hex case) written as the characters themselves.
// Every other escape is kept. It returns msg itself when there is none.
//
// LineChannel.Send applies it to every message: jrpc2 encodes with
// json.Marshal, which escapes HTML, and on the wire that turns 60 KB of "<"
// into 360 KB (spec/protocol.md §1: no protocol encoder escapes HTML,
// CM-LIM-09).
func UnescapeHTML(msg []byte) []byte {
	if !bytes.Contains(msg, []byte(`\u00`)) {
		return msg
	}
	var out []byte
	last := 0
	for i := 0; i < len(msg); i++ {
		if msg[i] != '\\' || i+1 >= len(msg) {
			continue
		}
		if msg[i+1] != 'u' || i+6 > len(msg) {
			i++ // a two-character escape: skip its second byte (`\\` too)
			continue
		}
		var c byte
		switch string(bytes.ToLower(msg[i+2 : i+6])) {
		case "003c":
			c = '<'
		case "003e":
			c = '>'
		case "0026":
			c = '&'
		default:
			i += 5
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(msg))
		}
		out = append(append(out, msg[last:i]...), c)
		last = i + 6
		i += 5
	}
	if out == nil {
		return msg
	}
	return append(out, msg[last:]...)
}
