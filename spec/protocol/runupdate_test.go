package protocol

import (
	"encoding/json"
	"errors"
	"testing"
)

// An empty operation list is present on the wire (restrictTo: [] restricts
// the catalog to nothing); an absent one is not.
func TestUpdateParamsOperation(t *testing.T) {
	for _, c := range []struct {
		wire, op string
		bad      bool
	}{
		{wire: `{"run":"r","restrictTo":[]}`, op: UpdateRestrict},
		{wire: `{"run":"r","replaceTools":[{"name":"a","description":"","source":"plugin","owner":"p"}]}`, op: UpdateReplace},
		{wire: `{"run":"r","attachClientTools":[{"name":"a","description":"","source":"client","owner":"app"}]}`, op: UpdateAttach},
		{wire: `{"run":"r"}`, bad: true},
		{wire: `{"run":"r","restrictTo":[],"replaceTools":[]}`, bad: true},
		{wire: `{"run":"r","attachClientTools":[{"name":"a","description":"","source":"plugin","owner":"p"}]}`, bad: true},
		{wire: `{"run":"r","replaceTools":[{"name":"a","description":"","source":"plugin","owner":"p","directOnly":true}]}`, bad: true},
	} {
		var p UpdateParams
		if err := json.Unmarshal([]byte(c.wire), &p); err != nil {
			t.Fatalf("%s: %v", c.wire, err)
		}
		op, err := p.Operation()
		if c.bad != (err != nil) || op != c.op {
			t.Errorf("Operation(%s) = %q, %v; want %q (error: %v)", c.wire, op, err, c.op, c.bad)
		}
		if !c.bad {
			back, _ := json.Marshal(p)
			var again UpdateParams
			_ = json.Unmarshal(back, &again)
			if op2, _ := again.Operation(); op2 != op {
				t.Errorf("round trip of %s gave %s, operation %q", c.wire, back, op2)
			}
		}
	}
	if _, err := (UpdateParams{}).Operation(); !errors.Is(err, ErrUpdateOperation) {
		t.Errorf("no operation: %v, want ErrUpdateOperation", err)
	}
}
