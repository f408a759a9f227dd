package hitladk_test

import (
	"encoding/json"
	"testing"

	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/workflowagent"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/workflow"
	"google.golang.org/genai"

	"github.com/hitlkit/hitlkit/hitl/hitladk"
)

// TestInputRequest: against a real ADK workflow whose node asks a person for input
// (adk_request_input), every answer and approval reaches the node as the person's input, with
// the data they gave, and a no, an expiry (even with default approve), a cancellation, a
// failure or a nil Result reaches it as no input (nil).
func TestInputRequest(t *testing.T) {
	for _, tt := range verdicts {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			var got []any // what the node received, once per run after the answer
			rerun := true
			ask := workflow.NewEmittingFunctionNode[any, any]("ask",
				func(nc agent.Context, _ any, emit func(*session.Event) error) (any, error) {
					reply, err := workflow.ResumeOrRequestInput(nc, emit, session.RequestInput{
						InterruptID: "name-" + nc.InvocationID(), Message: "Which name goes on the report?"})
					if err != nil {
						return nil, err
					}
					got = append(got, reply)
					return "done", nil
				}, workflow.NodeConfig{RerunOnResume: &rerun})
			a, err := workflowagent.New(workflowagent.Config{Name: "report", Edges: workflow.Chain(workflow.Start, ask)})
			if err != nil {
				t.Fatal(err)
			}
			sessions := session.InMemoryService()
			s, err := sessions.Create(ctx, &session.CreateRequest{AppName: "app", UserID: "u"})
			if err != nil {
				t.Fatal(err)
			}
			r, err := runner.New(runner.Config{AppName: "app", Agent: a, SessionService: sessions})
			if err != nil {
				t.Fatal(err)
			}
			turn := func(msg *genai.Content) []*session.Event {
				var evs []*session.Event
				for ev, err := range r.Run(ctx, "u", s.Session.ID(), msg, agent.RunConfig{}) {
					if err != nil {
						t.Fatal(err)
					}
					evs = append(evs, ev)
				}
				return evs
			}
			pending := hitladk.Pending(turn(genai.NewContentFromText("write the report", genai.RoleUser)))
			if len(pending) != 1 || pending[0].Name != hitladk.InputCallName || pending[0].Hint != "Which name goes on the report?" {
				t.Fatalf("pending %+v", pending)
			}
			turn(hitladk.Response(pending[0], tt.result))
			if len(got) != 1 {
				t.Fatalf("the node ran %d times after the answer, want 1", len(got))
			}
			if !tt.input {
				if got[0] != nil {
					t.Errorf("the node got %#v as input, want none (nil)", got[0])
				}
				return
			}
			in, ok := got[0].(map[string]any)
			if !ok || in["status"] != "completed" || in["action"] != tt.result.Action {
				t.Fatalf("the node got %#v, want the person's input", got[0])
			}
			if len(tt.result.Data) > 0 {
				var data, want any
				if s, _ := in["data"].(string); json.Unmarshal([]byte(s), &data) != nil || json.Unmarshal(tt.result.Data, &want) != nil || !jsonEqual(data, want) {
					t.Errorf("the node's data %v, want %s", in["data"], tt.result.Data)
				}
			}
		})
	}
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
