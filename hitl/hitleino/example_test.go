package hitleino_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/hitlkit/hitlkit/hitl/hitleino"
	"github.com/hitlkit/hitlkit/transport"
)

// memory is an in-memory Eino CheckPointStore.
type memory struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memory) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	return b, ok, nil
}

func (s *memory) Set(_ context.Context, id string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[id] = b
	return nil
}

// An Eino agent's delete_file tool asks a person first. The run interrupts before the tool
// runs; the host asks (here the person's decision is already known: an Asker would call
// hitl.Client.Do, an HXP client, a chat) and resumes the run with the Result.
func ExampleApproval() {
	ctx := context.Background()
	del := &deleteFile{}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "files", Description: "Works on files.",
		Model:       scripted{calls: []schema.ToolCall{call("call-1", "delete_file", `{"path":"/tmp/report.txt"}`)}}, // the model
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{hitleino.Approval(del, nil)}}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: &memory{}})
	ask := func(_ context.Context, q hitleino.Question) (*transport.Result, error) {
		fmt.Println("asked:", q.Prompt)
		return &transport.Result{Status: transport.StatusCompleted, Action: "approve", Decision: transport.DecisionApprove}, nil
	}

	events := runner.Query(ctx, "clean up the report", adk.WithCheckPointID("run-1"))
	for ev, ok := events.Next(); ok; ev, ok = events.Next() {
		if qs := hitleino.Questions(ev); len(qs) > 0 {
			params, err := hitleino.Answer(ctx, qs, ask)
			if err != nil {
				fmt.Println(err)
				return
			}
			if events, err = runner.ResumeWithParams(ctx, "run-1", params); err != nil {
				fmt.Println(err)
				return
			}
		} else if ev.Output != nil && ev.Output.MessageOutput.Role == schema.Assistant && ev.Output.MessageOutput.Message.Content != "" {
			fmt.Println("model:", ev.Output.MessageOutput.Message.Content)
		}
	}
	fmt.Println("tool ran with:", del.ran())
	// Output:
	// asked: Run delete_file with {"path":"/tmp/report.txt"}?
	// model: told: call-1=deleted {"path":"/tmp/report.txt"}
	// tool ran with: [{"path":"/tmp/report.txt"}]
}

// Outcome is what an Approval tool does with each Result: only an approval, or a person's
// edit of the arguments, runs the tool.
func ExampleOutcome() {
	for _, r := range []*transport.Result{
		{Status: transport.StatusCompleted, Action: "approve", Decision: transport.DecisionApprove},
		{Status: transport.StatusCompleted, Action: "edit", Decision: transport.DecisionAnswer, Data: []byte(`{"edits":{"path":"/tmp/a"}}`)},
		{Status: transport.StatusExpired, DefaultApplied: true, DefaultAction: "approve"},
	} {
		run, edited, why := hitleino.Outcome(r)
		fmt.Printf("%v %q %q\n", run, edited, why)
	}
	// Output:
	// true "" ""
	// true "{\"path\":\"/tmp/a\"}" ""
	// false "" "not run: the request expired without a decision"
}
