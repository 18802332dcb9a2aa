package agent

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// cellText is the tool message content the model receives for an exec or
// wait result (JSON text of the result object, protocol.md §6). A result
// marked networkContent (feature untrusted-content, CM-NEST-20, §4.3
// "The cell's result") becomes the untrusted-content wrapper with Source
// API around the result's JSON text, sanitised, under a fresh marker id:
// OpenClaw's renderToolSearchControlText. Any other result stays as it is.
func cellText(out json.RawMessage) string {
	var mark struct {
		NetworkContent bool `json:"networkContent"`
	}
	if json.Unmarshal(out, &mark) != nil || !mark.NetworkContent {
		return string(out)
	}
	return protocol.WrapUntrusted(unescapeHTML(out), protocol.UntrustedSourceAPI, markerID())
}

// markerID is a fresh wrapper marker id: 8 random bytes in hex (OpenClaw:
// createExternalContentMarkerId).
func markerID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails since Go 1.24
	return hex.EncodeToString(b[:])
}

// unescapeHTML is JSON text b with the escapes json.Marshal writes for
// HTML safety (\u003c, \u003e, \u0026, \u2028, \u2029, any case) turned
// back into the characters, as JavaScript's JSON.stringify writes them:
// the model reads the same text OpenClaw gives it, and sanitisation sees
// a forged marker or a special token such as <|im_end|> spelled out
// instead of missing it behind \u003c. Other escapes stay; a backslash
// only occurs inside strings, so every escape pair is read as one.
func unescapeHTML(b []byte) string {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 == len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			if r, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 32); err == nil {
				switch rune(r) {
				case '<', '>', '&', '\u2028', '\u2029':
					out = utf8.AppendRune(out, rune(r))
					i += 5
					continue
				}
			}
		}
		out = append(out, b[i], b[i+1])
		i++
	}
	return string(out)
}
