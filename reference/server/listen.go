package server

import (
	"bufio"
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/creachadair/jrpc2"
)

// Errors of serve --listen's checks, matched with errors.Is.
var (
	// ErrRemoteListen: the listen address is not loopback and the remote
	// listen flag was not given, or was given without a token.
	ErrRemoteListen = errors.New("refusing a non-loopback listen address")
	// ErrBadToken: a connection's initialize did not carry the server's
	// token (params.token, spec/protocol.md §2).
	ErrBadToken = errors.New("missing or wrong session token")
)

// TokenEnv names the environment variable that holds the session token of
// serve --listen (the other source is --token-file).
const TokenEnv = "CODEMODE_REFERENCE_TOKEN"

// TokenTimeout bounds how long a new connection may take to send its
// initialize when a token is required; a silent peer holds nothing longer.
const TokenTimeout = 10 * time.Second

// maxInitializeLine bounds the first line read before the token is
// checked: an initialize is a few hundred bytes.
const maxInitializeLine = 64 << 10

// IsLoopback reports whether addr (host:port, as net.Listen takes it) can
// only be reached from this host: localhost, 127.0.0.0/8 or ::1. An empty
// host (":7070") means every interface and is not loopback.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// CheckListen decides whether serve may listen on addr: a loopback address
// always; any other only with allowRemote and a token (tokenSet; a peer on
// another host can then run what run.prepare lets it, spec/protocol.md §2).
// Errors wrap ErrRemoteListen and name the flag that is missing.
func CheckListen(addr string, allowRemote, tokenSet bool) error {
	switch {
	case IsLoopback(addr):
		return nil
	case !allowRemote:
		return fmt.Errorf("%w %q: --listen binds loopback only (127.0.0.1, ::1, localhost); pass --allow-remote and a token (--token-file or %s) to accept peers of other hosts", ErrRemoteListen, addr, TokenEnv)
	case !tokenSet:
		return fmt.Errorf("%w %q: --allow-remote needs a token (--token-file or %s) that every peer sends in initialize params.token", ErrRemoteListen, addr, TokenEnv)
	}
	return nil
}

// RequireToken reads conn's first line, which must be an initialize request
// whose params.token equals token (compared in constant time), within
// TokenTimeout. It returns a reader that yields that line and the rest of
// the stream, for Serve. Otherwise it answers the line with -32600 naming
// the reason (with the request's id when it has one), and returns an error
// wrapping ErrBadToken; the caller closes conn.
func RequireToken(conn net.Conn, token string) (io.Reader, error) {
	_ = conn.SetReadDeadline(time.Now().Add(TokenTimeout))
	br := bufio.NewReaderSize(conn, maxInitializeLine)
	line, err := br.ReadSlice('\n')
	_ = conn.SetReadDeadline(time.Time{})
	if err != nil {
		return nil, fmt.Errorf("%w: no initialize line within %s and %d bytes: %v", ErrBadToken, TokenTimeout, maxInitializeLine, err)
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Token string `json:"token"`
		} `json:"params"`
	}
	reason := ""
	switch {
	case json.Unmarshal(line, &msg) != nil:
		reason = "the first message is not JSON"
	case msg.Method != protocol.MethodInitialize:
		reason = fmt.Sprintf("the first message is %q, not initialize with params.token", msg.Method)
	case subtle.ConstantTimeCompare([]byte(msg.Params.Token), []byte(token)) != 1:
		reason = "initialize params.token is missing or wrong"
	}
	if reason == "" {
		return io.MultiReader(bytes.NewReader(bytes.Clone(line)), br), nil
	}
	id := msg.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	answer, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": jrpc2.InvalidRequest, "message": "this server requires a session token: " + reason}})
	_, _ = conn.Write(append(answer, '\n'))
	return nil, fmt.Errorf("%w: %s", ErrBadToken, reason)
}
