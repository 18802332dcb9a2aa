package framework

import (
	"errors"
	"testing"
)

func TestDecodeResultChargesOnlyTheUnion(t *testing.T) {
	for _, c := range []struct {
		raw, why string
	}{
		{`{"status":"completed","value":1,"telemetry":{}}`, ""},
		{`{"status":"waiting","runId":"r","reason":"yield","telemetry":{}}`, ""},
		{`{"status":"failed","error":"e","telemetry":{}}`, ""},
		{`{"status":"error","error":"thrown"}`, "an unknown status, outside the completed/waiting/failed union"},
		{`[1]`, "a result that is not a result object of the completed/waiting/failed union"},
		{`"done"`, "a result that is not a result object of the completed/waiting/failed union"},
	} {
		_, err := DecodeResult("tool.exec", []byte(c.raw))
		var o *OutsideUnion
		if c.why == "" {
			if err != nil {
				t.Errorf("%s: want a union member, got %v", c.raw, err)
			}
			continue
		}
		if !errors.As(err, &o) || o.Why != c.why || o.Method != "tool.exec" || string(o.Raw) != c.raw {
			t.Errorf("%s: want OutsideUnion %q, got %#v", c.raw, c.why, err)
		}
	}
}
