package hitladk_test

import (
	"context"
	"fmt"
	"iter"

	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/adk/v2/tool/functiontool"
	"google.golang.org/genai"

	"github.com/hitlkit/hitlkit/hitl/hitladk"
	"github.com/hitlkit/hitlkit/transport"
)

// An ADK agent's delete_file tool requires confirmation: the host finds the pause, asks its
// human through hitlkit (here, the decision is already known), and resumes the run. The
// agent, its tool and the model that stands in for an LLM are below.
func ExamplePending() {
	ctx := context.Background()
	deleteFile, err := NewDeleteFileTool(func(path string) { fmt.Println("deleting", path) })
	if err != nil {
		fmt.Println(err)
		return
	}
	run, err := StartAgent(ctx, deleteFile)
	if err != nil {
		fmt.Println(err)
		return
	}

	events, err := run(genai.NewContentFromText("clean up the report", genai.RoleUser))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range hitladk.Pending(events) {
		fmt.Println("confirm:", p.Tool, p.Args["path"])
		// The person's decision, from hitl's Client.Do or Wait, an HXP request, an HI
		// fan-out. Only an approval confirms: any other Result leaves the file alone.
		decision := &transport.Result{Status: transport.StatusCompleted, Action: "approve", Decision: transport.DecisionApprove}
		if _, err := run(hitladk.Response(p, decision)); err != nil {
			fmt.Println(err)
			return
		}
	}
	// Output:
	// confirm: delete_file /tmp/report.txt
	// deleting /tmp/report.txt
}

// DeleteFileArgs are the arguments of the delete_file tool.
type DeleteFileArgs struct {
	Path string `json:"path"`
}

// NewDeleteFileTool is a delete_file tool that requires a person's confirmation before each
// call; deleted stands in for deleting the file.
func NewDeleteFileTool(deleted func(path string)) (tool.Tool, error) {
	return functiontool.New(functiontool.Config{Name: "delete_file", Description: "Delete a file.", RequireConfirmation: true},
		func(_ agent.Context, a DeleteFileArgs) (map[string]any, error) {
			deleted(a.Path)
			return map[string]any{"deleted": a.Path}, nil
		})
}

// StartAgent is an ADK host as any other: an LLM agent with the tool, an in-memory session
// and a runner. run runs one turn of the agent with msg and returns the turn's events.
func StartAgent(ctx context.Context, t tool.Tool) (run func(msg *genai.Content) ([]*session.Event, error), err error) {
	a, err := llmagent.New(llmagent.Config{Name: "files", Model: ScriptedModel{}, Tools: []tool.Tool{t}})
	if err != nil {
		return nil, err
	}
	sessions := session.InMemoryService()
	s, err := sessions.Create(ctx, &session.CreateRequest{AppName: "app", UserID: "user"})
	if err != nil {
		return nil, err
	}
	r, err := runner.New(runner.Config{AppName: "app", Agent: a, SessionService: sessions})
	if err != nil {
		return nil, err
	}
	return func(msg *genai.Content) ([]*session.Event, error) {
		var events []*session.Event
		for ev, err := range r.Run(ctx, "user", s.Session.ID(), msg, agent.RunConfig{}) {
			if err != nil {
				return events, err
			}
			events = append(events, ev)
		}
		return events, nil
	}, nil
}

// ScriptedModel stands in for an LLM (a real host passes its Gemini model): it asks to
// delete /tmp/report.txt and, once the tool has answered, says it is done.
type ScriptedModel struct{}

// Name is the model's name.
func (ScriptedModel) Name() string { return "scripted" }

// GenerateContent calls delete_file, or says "done" when the request holds its response.
func (ScriptedModel) GenerateContent(_ context.Context, req *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				if fr := p.FunctionResponse; fr != nil && fr.Name == "delete_file" {
					yield(&model.LLMResponse{Content: genai.NewContentFromText("done", genai.RoleModel)}, nil)
					return
				}
			}
		}
		yield(&model.LLMResponse{Content: &genai.Content{Role: string(genai.RoleModel), Parts: []*genai.Part{{
			FunctionCall: &genai.FunctionCall{ID: "call-1", Name: "delete_file", Args: map[string]any{"path": "/tmp/report.txt"}}}}}}, nil)
	}
}
