package broken

import (
	"encoding/json"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/store"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Feature untrusted-content variants (CM-NEST-20, CM-RES-08, CM-STO-11): the
// reference under profile v2 losing network provenance at each place it
// travels.
func init() {
	Variants = append(Variants,
		Variant{Name: "network-source-ignored", Breaks: "CM-NEST-20", Profile: "v2",
			Defect: "run.prepare's resultContentSource is ignored, so a network-controlled tool counts as trusted and the results of cells that called it reach the model without the untrusted-content wrapping",
			Serve: rewritingPrepareV2(func(p map[string]any) {
				forEachTool(p, func(t map[string]any) { delete(t, "resultContentSource") })
			})},
		Variant{Name: "results-drop-provenance", Breaks: "CM-RES-08", Profile: "v2",
			Defect: "results.save keeps the value but not its network provenance, so a cell that loads a fetched page is not marked untrusted",
			Serve:  servingResults(func(r *store.Results) codemode.ResultsStore { return trustingResults{r} })},
		Variant{Name: "store-drops-provenance", Breaks: "CM-STO-11", Profile: "v2",
			Defect: "the session store commits values without their networkContent provenance, so a later turn that loads a stored page is not marked untrusted",
			Serve:  servingFresh(func() codemode.SessionStore { return &trustingStore{} })},
		Variant{Name: "store-entry-drops-provenance", Breaks: "CM-STO-11", Profile: "v2",
			Defect: "the openclaw.code-mode-store transcript entry leaves out networkContent, so after a restart the replayed value is no longer untrusted",
			Serve:  servingFresh(func() codemode.SessionStore { return &entryWithoutProvenance{} })},
	)
}

// trustingResults saves every value as trusted.
type trustingResults struct{ *store.Results }

func (t trustingResults) Save(v json.RawMessage, _ bool) (string, error) {
	return t.Results.Save(v, false)
}

// trustingStore commits without provenance: loads never report it, and the
// transcript entry does not list it.
type trustingStore struct{ entryWithoutProvenance }

func (s *trustingStore) Load(b store.Branch, w *store.WriteSet, key string) (json.RawMessage, bool, bool, error) {
	v, found, _, err := s.Sessions.Load(b, w, key)
	return v, found, false, err
}

// entryWithoutProvenance appends store entries without networkContent.
type entryWithoutProvenance struct{ store.Sessions }

func (s *entryWithoutProvenance) Commit(b store.Branch, w *store.WriteSet, appendEntry func(protocol.StoreEntry) error) error {
	return s.Sessions.Commit(b, w, func(e protocol.StoreEntry) error {
		e.NetworkContent = nil
		return appendEntry(e)
	})
}
