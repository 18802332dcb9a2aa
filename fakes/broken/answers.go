package broken

import (
	"bufio"
	"context"
	"encoding/json"
	"io"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
)

func init() {
	Variants = append(Variants, Variant{Name: "unreadable-answer-pending", Breaks: "CM-PROT-05", Spec: "malformed answer to tool.invoke",
		Defect: "an answer the target cannot decode (not JSON, or nested past 10,000 levels) is discarded unanswered, so its nested call stays pending until the nested-call deadline",
		Serve:  discardingUnreadable})
}

// discardingUnreadable serves the reference behind a filter that drops
// every line from the harness that is not valid JSON to encoding/json.
func discardingUnreadable(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
	innerR, toInner := io.Pipe()
	go func() {
		defer toInner.Close()
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			if !json.Valid(sc.Bytes()) {
				continue
			}
			if _, err := toInner.Write(append(append([]byte(nil), sc.Bytes()...), '\n')); err != nil {
				return
			}
		}
	}()
	return server.Serve(ctx, innerR, w, server.Options{Engine: eng})
}
