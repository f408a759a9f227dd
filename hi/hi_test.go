package hi_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/hi"
	"github.com/hitlkit/hitlkit/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// specExample is the message of the spec's §2.2.
const specExample = `{
"interactionId": "abc123",
"groupId": "grp789",
"coordinationMode": "centralized",
"resolutionPolicy": "majority",
"timestamp": "2025-06-24T10:00:00Z",
"agentInstanceId": "agent-XZ01:exec-5589",
"participants": [
{ "id": "user-108", "role": "compliance_analyst" },
{ "id": "user-222", "role": "finance_approver" }
],
"agentOutput": {
"summary": "This invoice exceeds the threshold.",
"confidence": 0.62
},
"type": "approval",
"urgency": "blocking",
"userActions": ["approve", "edit", "reject", "submit_text"],
"status": "awaiting_input",
"humanFactors": {
"trustLevel": 0.8,
"fatigueScore": 0.2
},
"history": []
}`

func TestParseSpecExample(t *testing.T) {
	it, err := hi.Parse([]byte(specExample))
	if err != nil {
		t.Fatal(err)
	}
	if it.ResolutionPolicy != hi.Majority || len(it.Participants) != 2 || it.AgentOutput.Confidence != 0.62 ||
		*it.HumanFactors.TrustLevel != 0.8 || it.Timestamp.Year() != 2025 {
		t.Errorf("parsed %+v", it)
	}
	// It round-trips through its own JSON.
	b, _ := json.Marshal(it)
	again, err := hi.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(it, again); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// TestParseLenientForm: what a model commonly gets wrong in form, and is forgiven.
func TestParseLenientForm(t *testing.T) {
	msg := `{"interaction_id":"i1","Resolution_Policy":"MAJORITY","timestamp":"2025-06-24T10:00:00",
	"agent_instance_id":"a1","participants":[{"id":"u1"},{"ID":"u2","role":"finance"}],
	"agent_output":{"summary":"ok","confidence":"0.9"},"type":"Approval","urgency":"Blocking",
	"user_actions":["Approve","reject"]}`
	it, err := hi.Parse([]byte(msg))
	if err != nil {
		t.Fatal(err)
	}
	got := []any{it.InteractionID, it.ResolutionPolicy.String(), it.Participants[0].Role, it.AgentOutput.Confidence,
		it.Type, it.Urgency, it.UserActions, it.Status, it.CoordinationMode}
	want := []any{"i1", "majority", "observer", 0.9, "approval", "blocking", []string{"approve", "reject"}, "awaiting_input", "centralized"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestParseBrokenMessage: a deliberately broken message; every problem comes back at once,
// each at its JSON path, and the rendering for the model lists them all.
func TestParseBrokenMessage(t *testing.T) {
	msg := `{"interactionId":"", "coordinationMode":"distributed", "resolutionPolicy":"consensus",
	"timestamp":"yesterday", "participants":[{"id":"u1","role":"a"},{"id":"u1","role":"b"},{"role":"c"}],
	"agentOutput":{"summary":"","confidence":1.7}, "type":"approval", "urgency":"asap",
	"userActions":["approve","approve"], "status":"done", "humanFactors":{"trustLevel":-0.1},
	"history":[{"participantId":"u9","action":"approve"},{"participantId":"u1","action":"escalate"}]}`
	_, err := hi.Parse([]byte(msg))
	var pe *hi.ParseError
	if !errors.As(err, &pe) || !errors.Is(err, hi.ErrInvalid) {
		t.Fatalf("Parse = %v", err)
	}
	want := []hi.Problem{
		{"$.resolutionPolicy", "unknown policy; use first_response, majority, all_required or quorum:N"},
		{"$.timestamp", "not an ISO 8601 timestamp"},
		{"$.interactionId", "required"},
		{"$.groupId", "required in distributed mode, to link the interactions"},
		{"$.urgency", "must be blocking, recommended or optional"},
		{"$.status", "must be awaiting_input, resolved or received"},
		{"$.agentInstanceId", "required for an agent-initiated interaction"},
		{"$.agentOutput.summary", "required"},
		{"$.agentOutput.confidence", "must be from 0 to 1"},
		{"$.humanFactors.trustLevel", "must be from 0 to 1"},
		{"$.participants[1].id", `duplicate participant "u1"`},
		{"$.participants[2].id", "required"},
		{"$.userActions[1]", `duplicate action "approve"`},
		{"$.history[0].participantId", `"u9" is not a participant`},
		{"$.history[1].action", `"escalate" is not in userActions`},
	}
	if diff := cmp.Diff(want, pe.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	for _, p := range want {
		if !strings.Contains(pe.ForModel(), "- "+p.Path+": "+p.Message+"\n") {
			t.Errorf("ForModel lacks %v", p)
		}
	}
	if _, err := hi.Parse([]byte(`[1]`)); !errors.Is(err, hi.ErrInvalid) {
		t.Errorf("an array: %v", err)
	}
}

// TestParseForm: a reply wrapped in one Markdown fence is the object inside it; anything else
// that is not one JSON object gets a problem at "$" the model can act on: the syntax error's
// line and column in the reply, or that the reply must be only the object. Parse returns no
// Interaction with any error.
func TestParseForm(t *testing.T) {
	for _, fenced := range []string{"```json\n" + specExample + "\n```", "\n```JSON \n" + specExample + "```\n", "```\n" + specExample + "\n```"} {
		if it, err := hi.Parse([]byte(fenced)); err != nil || it.InteractionID != "abc123" {
			t.Errorf("Parse(%.12q…) = %v, %v", fenced, it, err)
		}
	}
	tests := []struct{ msg, problem string }{
		{"Here is the message:\n" + specExample, "does not start with {; the reply must be only the JSON object, without prose or Markdown around it"},
		{specExample + "\nLet me know.", "text after the object at line 26, column 1; the reply must be only the JSON object, without prose or Markdown around it"},
		{"```python\n" + specExample + "\n```", "does not start with {; the reply must be only the JSON object, without prose or Markdown around it"},
		{"```json\n{}\n```\n```json\n{}\n```", "does not start with {; the reply must be only the JSON object, without prose or Markdown around it"},
		{`{"interactionId": "x", participants: [}`, "invalid JSON at line 1, column 24: invalid character 'p' looking for beginning of object key string"},
		{"```json\n{\n  \"a\": 1,\n  \"b\" 2}\n```", "invalid JSON at line 4, column 7: invalid character '2' after object key"},
		{"", "empty; the reply must be only the JSON object, without prose or Markdown around it"},
		{"[]", "must be a JSON object, not an array"},
		{"null", "must be a JSON object, not null"},
		{`"{}"`, "must be a JSON object, not a string"},
	}
	for _, tt := range tests {
		it, err := hi.Parse([]byte(tt.msg))
		var pe *hi.ParseError
		if !errors.As(err, &pe) || len(pe.Problems) != 1 || pe.Problems[0] != (hi.Problem{Path: "$", Message: tt.problem}) {
			t.Errorf("Parse(%.20q…) = %v, want $: %s", tt.msg, err, tt.problem)
		}
		if it != nil {
			t.Errorf("Parse(%.20q…) returned an Interaction with its error", tt.msg)
		}
	}
	if it, err := hi.Parse([]byte(strings.Replace(specExample, `"agentInstanceId"`, `"agent"`, 1))); it != nil || err == nil {
		t.Errorf("a message with problems of meaning: %v, %v", it, err)
	}
}

// TestFeedbackMessages: human-initiated feedback has no agent output, gets a synthetic id
// when it has none, and takes anyone's response.
func TestFeedbackMessages(t *testing.T) {
	it, err := hi.Parse([]byte(`{"type":"feedback","timestamp":"2025-06-24T10:00:00Z","agentOutput":null,
	"history":[{"participantId":"user-5","inputText":"The totals are in the wrong currency"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(it.InteractionID, "fb-") || it.Status != hi.StatusReceived || it.Urgency != hi.UrgencyOptional {
		t.Errorf("%+v", it)
	}
	if _, err := hi.Parse([]byte(`{"type":"feedback","timestamp":"2025-06-24T10:00:00Z","agentOutput":{"summary":"x","confidence":1}}`)); err == nil {
		t.Error("feedback with agent output accepted")
	}
	fb := hi.NewFeedback("user-7", "", "Please also cc legal")
	if err := fb.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := fb.Record(hi.Feedback{ParticipantID: "user-9", InputText: "me too"}); err != nil || len(fb.History) != 2 {
		t.Errorf("unsolicited feedback not recorded: %v", err)
	}
}

// TestSchema: the schema is JSON and describes exactly the fields of Interaction.
func TestSchema(t *testing.T) {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(hi.Schema(), &s); err != nil {
		t.Fatal(err)
	}
	var fields []string
	rt := reflect.TypeFor[hi.Interaction]()
	for i := range rt.NumField() {
		fields = append(fields, strings.Split(rt.Field(i).Tag.Get("json"), ",")[0])
	}
	var props []string
	for k := range s.Properties {
		props = append(props, k)
	}
	slices.Sort(fields)
	slices.Sort(props)
	if diff := cmp.Diff(fields, props); diff != "" {
		t.Errorf("schema properties vs Interaction fields (-fields +schema):\n%s", diff)
	}
}

// message builds an interaction with n participants (p1…pn), a policy, and actions.
func message(n int, policy hi.Policy) *hi.Interaction {
	it, err := hi.Parse([]byte(specExample))
	if err != nil {
		panic(err)
	}
	it.Participants = nil
	for i := 1; i <= n; i++ {
		it.Participants = append(it.Participants, hi.Participant{ID: fmt.Sprintf("p%d", i), Role: "approver"})
	}
	it.ResolutionPolicy = policy
	return it
}

// votes turns "p1:approve p2:reject" into a history.
func votes(s string) []hi.Feedback {
	var h []hi.Feedback
	for _, v := range strings.Fields(s) {
		p, a, _ := strings.Cut(v, ":")
		h = append(h, hi.Feedback{ParticipantID: p, Action: a})
	}
	return h
}

// TestPolicies: each policy with 1, 2, 3 and 5 participants, ties, changed votes, votes from
// non-participants, and late votes after resolution.
func TestPolicies(t *testing.T) {
	tests := []struct {
		name      string
		n         int
		policy    hi.Policy
		history   string
		resolved  bool
		outcome   string
		conflict  string
		decidedBy string
		refused   int
	}{
		{"first_response, 1", 1, hi.FirstResponse, "p1:reject", true, "reject", "", "p1", 0},
		{"first_response, 3, later votes are late", 3, hi.FirstResponse, "p2:edit p1:approve p3:reject", true, "edit", "", "p2", 2},
		{"first_response, nobody yet", 2, hi.FirstResponse, "", false, "", "", "", 0},
		{"first_response, 5, outsider first", 5, hi.FirstResponse, "x1:approve p4:reject p1:approve", true, "reject", "", "p4", 2},
		{"majority, 1", 1, hi.Majority, "p1:approve", true, "approve", "", "p1", 0},
		{"majority, 2, one is not enough", 2, hi.Majority, "p1:approve", false, "", "", "", 0},
		{"majority, 2, tie", 2, hi.Majority, "p1:approve p2:reject", true, "", "tie", "p2", 0},
		{"majority, 3, rejects win too", 3, hi.Majority, "p1:reject p2:approve p3:reject", true, "reject", "", "p3", 0},
		{"majority, 3, three ways", 3, hi.Majority, "p1:reject p2:approve p3:edit", true, "", "tie", "p3", 0},
		{"majority, 5, third approval decides", 5, hi.Majority, "p1:approve p2:reject p3:approve p4:approve p5:reject", true, "approve", "", "p4", 1},
		{"majority, 5, changed vote replaces", 5, hi.Majority, "p1:approve p2:approve p1:reject p3:approve", false, "", "", "", 0},
		{"majority, 5, changed vote then decided", 5, hi.Majority, "p1:approve p2:approve p1:reject p3:approve p4:approve", true, "approve", "", "p4", 0},
		{"majority, 5, outsider refused", 5, hi.Majority, "p1:approve x9:approve p2:approve", false, "", "", "", 1},
		{"majority, 5, action not offered", 5, hi.Majority, "p1:approve p2:escalate", false, "", "", "", 1},
		{"all_required, 1", 1, hi.AllRequired, "p1:approve", true, "approve", "", "p1", 0},
		{"all_required, 2, agree", 2, hi.AllRequired, "p2:edit p1:edit", true, "edit", "", "p1", 0},
		{"all_required, 2, tie", 2, hi.AllRequired, "p2:edit p1:approve", true, "", "participants disagree: approve 1, edit 1", "p1", 0},
		{"all_required, 3, one reject rejects", 3, hi.AllRequired, "p1:approve p2:reject p3:approve", true, "reject", "", "p2", 0},
		{"all_required, 3, a reject may still change", 3, hi.AllRequired, "p1:approve p2:reject", false, "", "", "", 0},
		{"all_required, 3, edit, approve and reject", 3, hi.AllRequired, "p1:edit p2:approve p3:reject", true, "reject", "", "p3", 0},
		{"all_required, 3, the last no decides", 3, hi.AllRequired, "p3:reject p1:approve p2:reject", true, "reject", "", "p2", 0},
		{"all_required, 3, waiting for the last", 3, hi.AllRequired, "p1:approve p2:approve", false, "", "", "", 0},
		{"all_required, 3, reject changed to approve", 3, hi.AllRequired, "p1:approve p2:reject p2:approve p3:approve", true, "approve", "", "p3", 0},
		{"all_required, 5, late vote", 5, hi.AllRequired, "p1:approve p2:approve p3:approve p4:approve p5:approve p5:reject", true, "approve", "", "p5", 1},
		{"quorum:2 of 5", 5, hi.Quorum(2), "p1:reject p2:approve p3:approve", true, "approve", "", "p3", 0},
		{"quorum:3 of 3, split", 3, hi.Quorum(3), "p1:approve p2:approve p3:reject", true, "", "no action reached the quorum of 3", "p3", 0},
		{"quorum:1 of 2", 2, hi.Quorum(1), "p2:edit", true, "edit", "", "p2", 0},
		{"quorum:1 of 1", 1, hi.Quorum(1), "p1:reject p1:approve", true, "reject", "", "p1", 1},
	}
	for _, tt := range tests {
		it := message(tt.n, tt.policy)
		it.History = votes(tt.history)
		got := hi.Evaluate(it)
		if got.Resolved != tt.resolved || got.Outcome != tt.outcome || got.Conflict != tt.conflict ||
			got.DecidedBy != tt.decidedBy || len(got.Refused) != tt.refused {
			t.Errorf("%s: %+v", tt.name, got)
		}
	}
}

func TestTallyResult(t *testing.T) {
	it := message(3, hi.Majority)
	it.History = votes("p1:approve p2:approve p3:reject")
	tally := hi.Evaluate(it)
	r := tally.Result(it.InteractionID)
	if r.Status != transport.StatusCompleted || r.Action != "approve" || r.RespondedBy.Name != "p2" {
		t.Errorf("Result %+v", r)
	}
	var back hi.Tally
	if err := json.Unmarshal(r.Data, &back); err != nil || back.Counts["approve"] != 2 || back.Votes["p3"] != "" || len(back.Refused) != 1 {
		t.Errorf("tally in Data: %s (%v)", r.Data, err)
	}
	if want := "majority: approve resolved by p2; 2 of 3 participants responded (approve 2); 1 response(s) refused"; tally.Explanation != want {
		t.Errorf("explanation %q", tally.Explanation)
	}
	it.History = votes("p1:approve p2:reject p3:edit")
	tally = hi.Evaluate(it)
	if r := tally.Result(it.InteractionID); r.Status != transport.StatusFailed || !strings.Contains(r.Reason, "tie") {
		t.Errorf("conflict Result %+v", r)
	}
	if r := hi.Evaluate(message(3, hi.Majority)).Result("x"); r != nil {
		t.Errorf("unresolved gives %+v", r)
	}
}

func TestRecord(t *testing.T) {
	it := message(3, hi.Majority)
	if _, err := it.Record(hi.Feedback{ParticipantID: "p9", Action: "approve"}); err == nil {
		t.Error("non-participant recorded")
	}
	if _, err := it.Record(hi.Feedback{ParticipantID: "p1", Action: "escalate"}); !errors.Is(err, hi.ErrUnsupportedAction) {
		t.Errorf("unsupported action: %v", err)
	}
	_, _ = it.Record(hi.Feedback{ParticipantID: "p1", Action: "approve"})
	tally, _ := it.Record(hi.Feedback{ParticipantID: "p2", Action: "approve"})
	if !tally.Resolved || it.Status != hi.StatusResolved {
		t.Errorf("after two of three approvals: %+v, status %s", tally, it.Status)
	}
}

// FuzzParse: any bytes parse without panic, and a message Parse accepts validates again
// after its own JSON round trip.
//
//	go test -run '^$' -fuzz FuzzParse -fuzztime 5m ./hi/
func FuzzParse(f *testing.F) {
	f.Add([]byte(specExample))
	f.Add([]byte(`{"type":"feedback","timestamp":"2025-06-24","history":[{"participantId":"u","inputText":"x"}]}`))
	f.Add([]byte(`{"interactionId":"","resolutionPolicy":"quorum:9","participants":[{"id":1}],"agentOutput":{"confidence":"NaN"}}`))
	f.Add([]byte("```json\n" + specExample + "\n```"))
	f.Add([]byte("```\n{\"a\":\n```"))
	f.Fuzz(func(t *testing.T, data []byte) {
		it, err := hi.Parse(data)
		if err != nil {
			var pe *hi.ParseError
			if !errors.As(err, &pe) || len(pe.Problems) == 0 {
				t.Fatalf("untyped or empty error: %v", err)
			}
			if it != nil {
				t.Fatalf("an Interaction with the error %v", err)
			}
			return
		}
		if err := it.Validate(); err != nil {
			t.Fatalf("accepted, then refused after a round trip: %v", err)
		}
		_ = hi.Evaluate(it)
	})
}
