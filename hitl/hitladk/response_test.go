package hitladk_test

import (
	"encoding/json"
	"testing"

	"google.golang.org/adk/v2/tool/toolconfirmation"

	"github.com/hitlkit/hitlkit/hitl/hitladk"
	"github.com/hitlkit/hitlkit/transport"
)

// verdicts are Results of every kind, with whether each is a person's input to an
// adk_request_input pause; only "approve" is a go-ahead.
var verdicts = []struct {
	name   string
	result *transport.Result
	input  bool
}{
	{"approve", &transport.Result{Status: transport.StatusCompleted, Decision: transport.DecisionApprove, Action: "approve"}, true},
	{"confirm", &transport.Result{Status: transport.StatusCompleted, Decision: transport.DecisionApprove, Action: "confirm"}, true},
	{"select keep", &transport.Result{Status: transport.StatusCompleted, Decision: transport.DecisionAnswer, Action: "select", Data: json.RawMessage(`{"selected":["keep the file"]}`)}, true},
	{"submit no", &transport.Result{Status: transport.StatusCompleted, Decision: transport.DecisionAnswer, Action: "submit", Data: json.RawMessage(`{"proceed":false,"note":"do NOT delete"}`)}, true},
	{"edit", &transport.Result{Status: transport.StatusCompleted, Decision: transport.DecisionAnswer, Action: "edit", Data: json.RawMessage(`{"edits":{"path":"/tmp/y"}}`)}, true},
	{"escalation skip", &transport.Result{Status: transport.StatusCompleted, Decision: transport.DecisionAnswer, Action: "skip"}, true},
	{"reject", &transport.Result{Status: transport.StatusCompleted, Decision: transport.DecisionReject, Action: "reject", Reason: "too risky"}, false},
	{"confirmation cancel", &transport.Result{Status: transport.StatusCompleted, Decision: transport.DecisionReject, Action: "cancel"}, false},
	{"expired with default approve", &transport.Result{Status: transport.StatusExpired, DefaultApplied: true, DefaultAction: "approve"}, false},
	{"expired", &transport.Result{Status: transport.StatusExpired}, false},
	{"cancelled", &transport.Result{Status: transport.StatusCancelled, Reason: "withdrawn"}, false},
	{"failed", &transport.Result{Status: transport.StatusFailed}, false},
	{"refused by the service", &transport.Result{Status: transport.StatusRejected}, false},
	{"completed without a decision", &transport.Result{Status: transport.StatusCompleted, Action: "approve"}, false},
	{"default applied with an approve decision", &transport.Result{Status: transport.StatusCompleted, Decision: transport.DecisionApprove, Action: "approve", DefaultApplied: true, DefaultAction: "approve"}, false},
	{"nil", nil, false},
}

// TestResponseConfirmsOnlyApproval: a tool confirmation is confirmed, as ADK reads the
// response (a ToolConfirmation), only for a Result that is Approved — not for a person's
// selection of "keep the file", a form submitted with proceed false, an edit, a no, an expiry
// whatever its default, a cancellation or a failure; each of those says why in the payload.
func TestResponseConfirmsOnlyApproval(t *testing.T) {
	req := hitladk.Request{CallID: "c1", Name: toolconfirmation.FunctionCallName, Tool: "delete_file", Args: map[string]any{"path": "/tmp/x"}}
	for _, tt := range verdicts {
		t.Run(tt.name, func(t *testing.T) {
			fr := hitladk.Response(req, tt.result).Parts[0].FunctionResponse
			if fr.ID != "c1" || fr.Name != toolconfirmation.FunctionCallName {
				t.Fatalf("response %+v", fr)
			}
			b, err := json.Marshal(fr.Response)
			if err != nil {
				t.Fatal(err)
			}
			var tc toolconfirmation.ToolConfirmation // what ADK decodes the response into
			if err := json.Unmarshal(b, &tc); err != nil {
				t.Fatal(err)
			}
			if want := tt.result.Approved(); tc.Confirmed != want {
				t.Fatalf("confirmed = %v, want %v (Approved): %s", tc.Confirmed, want, b)
			}
			payload, _ := tc.Payload.(map[string]any)
			reason, _ := payload["reason"].(string)
			if tc.Confirmed == (reason != "") {
				t.Errorf("confirmed %v with reason %q: %s", tc.Confirmed, reason, b)
			}
			if tt.result != nil && payload["status"] != string(tt.result.Status) {
				t.Errorf("payload status %v, want %s", payload["status"], tt.result.Status)
			}
		})
	}
}

// TestResponseToInput: an adk_request_input pause gets the person's input (status, action,
// data, the whole Result) from an answer or an approval; a no, an expiry, a cancellation, a
// failure or a nil Result is no input: a sole null "payload", which ADK hands the node as
// its input (TestInputRequest runs a workflow).
func TestResponseToInput(t *testing.T) {
	req := hitladk.Request{CallID: "in-1", Name: hitladk.InputCallName}
	for _, tt := range verdicts {
		t.Run(tt.name, func(t *testing.T) {
			resp := hitladk.Response(req, tt.result).Parts[0].FunctionResponse.Response
			payload, hasPayload := resp["payload"]
			if !tt.input {
				if !hasPayload || payload != nil || len(resp) != 1 {
					t.Errorf("no input should be a null payload and nothing else: %+v", resp)
				}
				return
			}
			if hasPayload || resp["status"] != "completed" || resp["action"] != tt.result.Action || resp["result"] == nil {
				t.Errorf("input %+v", resp)
			}
			if len(tt.result.Data) > 0 && resp["data"] != string(tt.result.Data) {
				t.Errorf("data %v, want %s", resp["data"], tt.result.Data)
			}
		})
	}
}
