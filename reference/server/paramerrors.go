package server

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/handler"
)

// namedParamErrors wraps every method of m so that params that do not decode
// (a wrong JSON type in any member) are answered -32602 with a message that
// names the method and the member: jrpc2 answers them with the bare message
// "invalid parameters" and the decoder's text only as error data (issue 28
// nits).
func namedParamErrors(m handler.Map) handler.Map {
	out := make(handler.Map, len(m))
	for method, h := range m {
		out[method] = func(ctx context.Context, req *jrpc2.Request) (any, error) {
			v, err := h(ctx, req)
			if e, ok := errors.AsType[*jrpc2.Error](err); ok && e.Code == jrpc2.InvalidParams && len(e.Data) > 0 && !strings.Contains(e.Message, ":") {
				var why string
				if json.Unmarshal(e.Data, &why) != nil {
					why = string(e.Data)
				}
				// "json: cannot unmarshal string into Go struct field
				// PrepareParams.tools of type []protocol.ToolSpec": the
				// member path is what a peer needs.
				why = strings.TrimPrefix(why, "json: ")
				return nil, jrpc2.Errorf(jrpc2.InvalidParams, "%s: invalid params: %s", method, why)
			}
			return v, err
		}
	}
	return out
}
