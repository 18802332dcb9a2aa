package broken

import (
	"context"
	"encoding/json"
	"io"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
	"github.com/codemode-conformance/codemode/reference/store"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// More results and session store variants (issue 14 item 4, the generation 2
// requirements CM-RES-04.. and CM-STO-05..): the reference under profile v2
// with a defective store.
func init() {
	Variants = append(Variants,
		Variant{Name: "auto-retain-loses-large", Breaks: "CM-RES-04", Profile: "v2",
			Defect: "the results store hands out a reference for a value over 2 KiB but keeps only its first 2 KiB, so an auto-retained result cannot be loaded whole",
			Serve: func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
				return server.Serve(ctx, r, w, server.Options{Engine: eng, Runtime: codemode.Options{Profile: "v2",
					Results: func(_ protocol.PrepareParams, maxBytes int64) codemode.ResultsStore {
						return lossyResults{store.NewResults(maxBytes)}
					}}})
			}},
	)
}

// lossyResults keeps a large value as a string of its first 2 KiB.
type lossyResults struct{ *store.Results }

func (l lossyResults) Save(v json.RawMessage) (string, error) {
	if len(v) > 2048 {
		cut, _ := json.Marshal(string(v[:2048]))
		v = cut
	}
	return l.Results.Save(v)
}
