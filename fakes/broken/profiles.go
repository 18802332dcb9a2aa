package broken

import (
	"github.com/codemode-conformance/codemode/reference/codemode"
)

// v1BehindV2 serves the generation-1 reference but declares profile v2 and
// the v2 reference's features in initialize: a target that claims
// generation 2 and keeps generation 1's behaviour where the pages disagree
// (snapshot_expired on an expired wait, TypeScript cells type-stripped,
// direct-only tools put into the catalog).
func v1BehindV2() serveFunc {
	v2 := codemode.Options{Profile: "v2"}
	return outbound(func(msg map[string]any) (edited, drop bool) {
		res, ok := msg["result"].(map[string]any)
		if !ok || msg["method"] != nil {
			return false, false
		}
		if _, isInit := res["protocolVersion"]; !isInit {
			return false, false
		}
		feats := []any{}
		for _, f := range v2.Features() {
			feats = append(feats, f)
		}
		res["profile"], res["features"] = v2.ProfileName(), feats
		return true, false
	})
}
