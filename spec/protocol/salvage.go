package protocol

import (
	"bytes"
	"encoding/json"
)

// salvage reads what a message that does not decode (not JSON, or nested
// deeper than encoding/json's 10,000 levels) shows of its envelope: the
// top-level "id" when it is a plain string, number or null literal, and
// whether the top-level members name a response ("result" or "error" and
// no "method"). It scans bytes without recursion, so any depth costs one
// pass. A response that can be attributed this way fails its request with
// the parse error instead of being answered (spec/protocol.md §1: a
// response is never answered); a request gets the error with its id.
func salvage(msg []byte) (id json.RawMessage, response bool) {
	t := bytes.TrimSpace(msg)
	if len(t) == 0 || t[0] != '{' {
		return nil, false
	}
	var hasMethod, hasAnswer bool
	depth := 0
	i := 0
	expectKey := false
	for i < len(t) {
		c := t[i]
		switch {
		case c == '"':
			end := stringEnd(t, i)
			if depth == 1 && expectKey {
				key := t[i+1 : end-1]
				j := skipSpace(t, end)
				if j < len(t) && t[j] == ':' {
					j = skipSpace(t, j+1)
					switch string(key) {
					case "method":
						hasMethod = true
					case "result", "error":
						hasAnswer = true
					case "id":
						if v := scalarAt(t, j); v != nil && validID(v) {
							id = v
						}
					}
					expectKey = false
					i = j
					continue
				}
			}
			i = end
			continue
		case c == '{' || c == '[':
			depth++
			expectKey = c == '{' && depth == 1
		case c == '}' || c == ']':
			depth--
		case c == ',':
			expectKey = depth == 1
		}
		i++
	}
	if bytes.Equal(id, []byte("null")) {
		id = nil
	}
	return id, hasAnswer && !hasMethod
}

// stringEnd is the index just past the JSON string starting at t[i] (the
// end of t when it is unterminated).
func stringEnd(t []byte, i int) int {
	for j := i + 1; j < len(t); j++ {
		switch t[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(t)
}

func skipSpace(t []byte, i int) int {
	for i < len(t) && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r') {
		i++
	}
	return i
}

// scalarAt is the JSON string, number or null literal starting at t[i], or
// nil when none starts there.
func scalarAt(t []byte, i int) json.RawMessage {
	if i >= len(t) {
		return nil
	}
	end := i
	if t[i] == '"' {
		end = stringEnd(t, i)
	} else {
		for end < len(t) && bytes.IndexByte([]byte("-+.0123456789eEnul"), t[end]) >= 0 {
			end++
		}
	}
	v := t[i:end]
	if !json.Valid(v) {
		return nil
	}
	return json.RawMessage(bytes.Clone(v))
}
