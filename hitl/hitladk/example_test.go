package hitladk_test

import (
	"context"
	"fmt"

	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/adk/v2/tool/functiontool"
	"google.golang.org/genai"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitladk"
	"github.com/hitlkit/hitlkit/transport"
)

// An ADK agent's delete_file tool requires confirmation: the host finds the pause, asks its
// human through hitlkit (here, the decision is already known), and resumes the run.
func ExamplePending() {
	ctx := context.Background()
	del, _ := functiontool.New(functiontool.Config{Name: "delete_file", Description: "Delete a file.", RequireConfirmation: true},
		func(_ agent.Context, a deleteArgs) (map[string]any, error) {
			fmt.Println("deleting", a.Path)
			return map[string]any{"deleted": a.Path}, nil
		})
	a, _ := llmagent.New(llmagent.Config{Name: "files", Model: scripted{}, Tools: []tool.Tool{del}})
	sessions := session.InMemoryService()
	s, _ := sessions.Create(ctx, &session.CreateRequest{AppName: "app", UserID: "u"})
	r, _ := runner.New(runner.Config{AppName: "app", Agent: a, SessionService: sessions})
	run := func(msg *genai.Content) (evs []*session.Event) {
		for ev, err := range r.Run(ctx, "u", s.Session.ID(), msg, agent.RunConfig{}) {
			if err == nil {
				evs = append(evs, ev)
			}
		}
		return evs
	}

	for _, p := range hitladk.Pending(run(genai.NewContentFromText("clean up the report", genai.RoleUser))) {
		fmt.Println("confirm:", p.Tool, p.Args["path"])
		decision := &hitl.Result{Status: transport.StatusCompleted, Action: "approve"} // from Client.Do or Wait
		run(hitladk.Response(p, decision))
	}
	// Output:
	// confirm: delete_file /tmp/report.txt
	// deleting /tmp/report.txt
}
