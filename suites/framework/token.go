package framework

import (
	"os"
	"strings"
)

// TokenEnv names the environment variable holding the session token the
// harness sends as initialize params.token on every connection, for a
// listening target that requires one (spec/protocol.md §2 item 4; the
// reference's serve --listen --allow-remote). Empty sends none. The
// codemode-conformance command's --token-file sets it.
const TokenEnv = "CODEMODE_TARGET_TOKEN"

// TargetToken is the token initialize carries (TokenEnv, white space
// trimmed), or "".
func TargetToken() string { return strings.TrimSpace(os.Getenv(TokenEnv)) }

// redactToken replaces the session token in b, a message as sent, so that
// no transcript or report carries it.
func redactToken(b []byte) []byte {
	tok := TargetToken()
	if tok == "" || !strings.Contains(string(b), tok) {
		return b
	}
	return []byte(strings.ReplaceAll(string(b), tok, "[token]"))
}
