package hitlgenkit_test

import (
	"context"
	"fmt"

	"github.com/firebase/genkit/go/ai"

	"github.com/hitlkit/hitlkit/hitl/hitlgenkit"
	"github.com/hitlkit/hitlkit/transport"
)

// A Genkit agent's delete_file tool calls Approve first. Generate returns interrupted before
// the tool acts; the host asks (here the person's decision is already known: an Asker would
// call hitl.Client.Do, an HXP client, a chat) and resumes Generate with the restarts.
func ExampleApprove() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// newAgent's delete_file tool is:
	//	func(tc *ai.ToolContext, in fileArgs) (string, error) {
	//		ok, why, err := hitlgenkit.Approve(tc, "Delete "+in.Path+"?")
	//		if err != nil || !ok {
	//			return why, err
	//		}
	//		... delete in.Path ...
	//	}
	a := newAgentIn(ctx, request{"delete_file", "call-1", `{"path":"/tmp/report.txt"}`})
	ask := func(_ context.Context, q hitlgenkit.Question) (*transport.Result, error) {
		fmt.Println("asked:", q.Prompt)
		return &transport.Result{Status: transport.StatusCompleted, Action: "approve", Decision: transport.DecisionApprove}, nil
	}

	resp, err := a.generate(ctx, nil, nil)
	for err == nil && resp.FinishReason == ai.FinishReasonInterrupted {
		var restarts []*ai.Part
		if restarts, err = hitlgenkit.Answer(ctx, hitlgenkit.Questions(resp), ask, a.tools()...); err == nil {
			resp, err = a.generate(ctx, resp.History(), restarts)
		}
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("model:", resp.Text())
	fmt.Println("deleted:", a.ran())
	// Output:
	// asked: Delete /tmp/report.txt?
	// model: told: call-1="deleted /tmp/report.txt"
	// deleted: [/tmp/report.txt]
}
