package hxp

import (
	"encoding/json"
	"testing"
)

// FuzzStateAndMessage: any poll answer or WebSocket message decodes without a panic, and
// what decodes turns into a result, a waiting update or an error, never more than one of a
// result and an error.
func FuzzStateAndMessage(f *testing.F) {
	for _, s := range []string{
		`{"request_id":"req_1","status":"pending"}`,
		`{"request_id":"req_1","status":"assigned","assigned_to":"h1"}`,
		`{"request_id":"req_1","status":"completed","receipt":{"request_id":"req_1","status":"completed","result":"Approve","completed_at":"2026-01-01T00:00:00Z","evidence_hash":"ab"}}`,
		`{"request_id":"req_1","status":"timed_out","fallback":"default","receipt":{"result":"Deny"}}`,
		`{"request_id":"req_1","status":"completed","action":"decide","payload":{"question":"q","options":["a","b"]}}`,
		`{"event":"completed","receipt":{"request_id":"req_1","result":{"approved":true}}}`,
		`{"event":"assigned","assigned_to":"h1"}`, `{"status":7}`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	req := &Request{Decide: &Decide{Question: "Approve?", Options: []string{"Approve", "Deny"}, DefaultOption: "Deny"}}
	cr := &Created{RequestID: "req_1", Request: req}
	f.Fuzz(func(t *testing.T, body []byte) {
		var st State
		if json.Unmarshal(body, &st) == nil {
			r, _, err := stateResult(cr, &st)
			if r != nil && err != nil {
				t.Fatalf("both a result %v and an error %v", r, err)
			}
		}
		var m wsMessage
		if json.Unmarshal(body, &m) == nil && m.Receipt != nil {
			if r, _, err := receiptResult(cr, m.Receipt, req); r != nil && err != nil {
				t.Fatalf("both a result %v and an error %v", r, err)
			}
		}
	})
}
