package hitl

import (
	"testing"

	"github.com/hitlkit/hitlkit/internal/sse"
)

// statusEvents are review.status events, as the live service opens its streams with them,
// and hostile ones: another case's, a completion without its result, an unknown state, not
// JSON, no case id.
var statusEvents = []struct {
	data     string
	state    string // the Update's state, "" for none
	terminal bool
	result   bool // the event carries the complete outcome
}{
	{`{"case_id":"review_c1","status":"pending"}`, "pending", false, false},
	{`{"case_id":"review_c1","status":"in_progress","progress":{"current_step":2,"total_steps":3}}`, "in_progress", false, false},
	{`{"case_id":"review_c1","status":"completed","completed_at":"2026-11-22T10:00:00Z","result":{"action":"approve","data":{}}}`, "", true, true},
	{`{"case_id":"review_c1","status":"expired","expired_at":"2026-11-22T10:00:00Z","default_action":"skip"}`, "", true, true},
	{`{"case_id":"review_c1","status":"completed"}`, "", true, false}, // no result: the poll decides
	{`{"case_id":"review_other","status":"completed","result":{"action":"approve"}}`, "", false, false},
	{`{"case_id":"review_other","status":"pending"}`, "", false, false},
	{`{"status":"pending"}`, "", false, false},
	{`{"case_id":"review_c1","status":"paused"}`, "paused", false, false},
	{`{"case_id":"review_c1"}`, "", false, false},
	{`not json`, "", false, false},
	{`[]`, "", false, false},
}

// TestStatusEvent: a review.status event is read as a poll answer would be; another case's,
// or one that is not a status, gives nothing.
func TestStatusEvent(t *testing.T) {
	c := &Case{CaseID: "review_c1", DefaultAction: DefaultSkip}
	for _, tt := range statusEvents {
		u, r, terminal := decodeEvent(c, sse.Event{Name: eventStatus, Data: []byte(tt.data)})
		state := ""
		if u != nil {
			state = u.State
		}
		if state != tt.state || terminal != tt.terminal || (r != nil) != tt.result {
			t.Errorf("%s: update %q, terminal %v, result %v; want %q, %v, %v", tt.data, state, terminal, r != nil, tt.state, tt.terminal, tt.result)
		}
	}
}

// FuzzStatusEvent: any review.status data is read without a panic, and never gives a Result
// for another case.
func FuzzStatusEvent(f *testing.F) {
	for _, tt := range statusEvents {
		f.Add([]byte(tt.data))
	}
	c := &Case{CaseID: "review_c1", DefaultAction: DefaultSkip}
	f.Fuzz(func(t *testing.T, data []byte) {
		u, r, _ := decodeEvent(c, sse.Event{Name: eventStatus, Data: data})
		if r != nil && r.CaseID != c.CaseID || u != nil && u.CaseID != c.CaseID {
			t.Fatalf("an answer for another case: %+v %+v", u, r)
		}
	})
}
