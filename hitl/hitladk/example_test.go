package hitladk_test

import (
	"context"
	"fmt"

	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/session"
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
	turn, err := newAgent(ctx, del) // llmagent, runner and session, as in any ADK host
	if err != nil {
		fmt.Println(err)
		return
	}
	run := func(msg *genai.Content) []*session.Event { evs, _ := turn(msg); return evs }

	for _, p := range hitladk.Pending(run(genai.NewContentFromText("clean up the report", genai.RoleUser))) {
		fmt.Println("confirm:", p.Tool, p.Args["path"])
		decision := &hitl.Result{Status: transport.StatusCompleted, Action: "approve"} // from Client.Do or Wait
		run(hitladk.Response(p, decision))
	}
	// Output:
	// confirm: delete_file /tmp/report.txt
	// deleting /tmp/report.txt
}
