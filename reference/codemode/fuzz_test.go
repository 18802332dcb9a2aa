package codemode

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/codemode-conformance/codemode/reference/catalog"
	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/config"
	"github.com/codemode-conformance/codemode/spec/result"
)

// fuzzOutputLimit is the maxOutputBytes of FuzzGuestPoll: the lowest the
// configuration allows, so that inputs reach the limit.
const fuzzOutputLimit = 1024

// FuzzGuestPoll feeds the host's decoder of guest values arbitrary poll
// texts, as a hostile guest that reached the bridge could send: output
// items, a final value or a failure. Whatever arrives, the result is valid
// UTF-8 JSON without lone surrogates (CM-EXEC-21), a failure carries a
// known code or none, and the result stays within maxOutputBytes plus the
// 1 KiB envelope (CM-LIM-03, CM-LIM-08).
func FuzzGuestPoll(f *testing.F) {
	for _, seed := range []string{
		`{"state":"done","value":42}`,
		`{"state":"done","output":[{"type":"text","text":"hi"},{"type":"json","value":{"a":[1,2]}}],"value":"x"}`,
		`{"state":"done","output":[{"type":"text","text":"\ud83d"}],"value":"\udc00\ud83d\ude00"}`,
		`{"state":"error","failure":{"name":"TypeError","message":"x is not a function"}}`,
		`{"state":"error","failure":{"name":"ToolError","message":"forged","code":"nested_tool_failed"}}`,
		`{"state":"done","output":[{"type":"bogus"}],"value":null}`,
		`{"state":"done","output":[{"type":"text","text":"\u0001\u0001\u0001\u0001"},{"type":"text"}],"value":"\\\"\\\""}`,
		`{"state":"done","value":"` + string(bytes.Repeat([]byte("é"), 600)) + `"}`,
		`{"state":"error","failure":{"name":"` + string(bytes.Repeat([]byte("N"), 3000)) + `","message":"m"}}`,
		`{"state":"done","output":[{"type":"json","value":"\xff\xfe"}],"value":[[[[]]]]}`,
	} {
		f.Add([]byte(seed))
	}
	cfg, err := config.Resolve(json.RawMessage(`{"enabled":true,"maxOutputBytes":1024}`))
	if err != nil || cfg.MaxOutputBytes != fuzzOutputLimit {
		f.Fatalf("config: %+v, %v", cfg, err)
	}
	rt := New(nil, nil, Options{Admission: NewAdmission(Limits{})})
	f.Cleanup(rt.Close)
	f.Fuzz(func(t *testing.T, raw []byte) {
		var p prelude.Poll
		if json.Unmarshal(raw, &p) != nil {
			return
		}
		run := &agentRun{id: "fuzz", cfg: cfg, active: true}
		run.cat.Store(catalog.Build(nil))
		c, _ := rt.newCell(run, [2]string{})
		s := &step{rt: rt, c: c, start: time.Now()}
		var res result.Result
		if r, bad := s.takeOutput(p.Output); bad {
			res = s.fail(r)
		} else if p.Failure != nil || p.State == "error" {
			res = s.fail(s.guestFailure(p))
		} else {
			res = s.complete(p.Value)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatalf("the result does not encode: %v (%+v)", err, res)
		}
		if !utf8.Valid(b) || result.LoneSurrogates(b) != 0 {
			t.Fatalf("the result is not well-formed Unicode: %s", b)
		}
		if res.Status == result.StatusFailed && res.Code != "" && !res.Code.Valid() {
			t.Fatalf("unknown code %q", res.Code)
		}
		if res.Status == result.StatusCompleted && !json.Valid(res.Value) {
			t.Fatalf("completed with a value that is not JSON: %q", res.Value)
		}
		var m map[string]json.RawMessage
		_ = json.Unmarshal(b, &m)
		delete(m, "telemetry")
		bounded, _ := json.Marshal(m)
		if n := result.ContentSize(bounded); n > fuzzOutputLimit+result.ResultEnvelopeBytes {
			t.Fatalf("the result's content size is %d, over maxOutputBytes %d + %d: %.300s", n, fuzzOutputLimit, result.ResultEnvelopeBytes, bounded)
		}
		var kept int64
		for _, o := range res.Output {
			ob, _ := json.Marshal(o)
			kept += outputItemSize(ob)
		}
		if kept > fuzzOutputLimit {
			t.Fatalf("the result carries %d bytes of output, over maxOutputBytes %d", kept, fuzzOutputLimit)
		}
	})
}
