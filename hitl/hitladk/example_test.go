package hitladk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool/functiontool"
	"google.golang.org/genai"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitladk"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
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
		decision := &transport.Result{Status: transport.StatusCompleted, Action: "approve", Decision: transport.DecisionApprove} // from Client.Do or Wait
		run(hitladk.Response(p, decision))
	}
	// Output:
	// confirm: delete_file /tmp/report.txt
	// deleting /tmp/report.txt
}

// An ADK agent's delete_file tool requires confirmation. The host puts each confirmation on a
// HITL service's review page (the fake, hitltest), where a person decides, and resumes the
// agent with the decision: approving runs the tool; rejecting does not, and neither does a
// confirmation nobody answers before it expires.
func Example_reviewPage() {
	ctx := context.Background()
	svc := hitltest.NewUnstartedServer(hitltest.WithRetryAfter(time.Second), hitltest.WithCaseLifetime(3*time.Second))
	svc.Start()
	defer svc.Close()
	for _, person := range []string{"approve", "reject", "nobody"} {
		// The forwarder hands the review link to the person, who answers on the page.
		forward := func(ctx context.Context, it *hitl.Interrupt) error {
			if person == "nobody" || it.Reminder > 0 {
				return nil
			}
			return onReviewPage(ctx, svc.Client(), it.Case.ReviewURL, person)
		}
		client, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses(), hitl.WithForwarder(forward))
		if err != nil {
			fmt.Println(err)
			return
		}
		del, _ := deleteFile(func(path string) { fmt.Println("  deleting", path) }) // as in ExamplePending
		turn, err := newAgent(ctx, del)
		if err != nil {
			fmt.Println(err)
			return
		}
		run := func(msg *genai.Content) []*session.Event { evs, _ := turn(msg); return evs }

		// The Asker: each pause becomes a case on the service; Do forwards the review link and
		// waits for the decision. An Asker returns every decision as a Result (Response turns
		// anything but an approval into confirmed:false), so it asks Do for every decision.
		ask := func(ctx context.Context, p hitladk.Request) (*transport.Result, error) {
			body, _ := json.Marshal(map[string]any{"tool": p.Tool, "args": p.Args})
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(string(body)))
			if err != nil {
				return nil, err
			}
			resp, err := client.Do(ctx, req, &hitl.CallOptions{EveryDecisionOK: true})
			if err != nil {
				return nil, err
			}
			_ = resp.Body.Close()
			fmt.Printf("%s: %s %s\n", person, resp.Result.Status, resp.Result.Action)
			return resp.Result, nil
		}
		msg, err := hitladk.Answer(ctx, hitladk.Pending(run(genai.NewContentFromText("clean up the report", genai.RoleUser))), ask)
		if err != nil {
			fmt.Println(err)
			return
		}
		run(msg)
	}
	// Output:
	// approve: completed approve
	//   deleting /tmp/report.txt
	// reject: completed reject
	// nobody: expired
}

// onReviewPage is the person: opens the review page and submits its form with action.
func onReviewPage(ctx context.Context, hc *http.Client, reviewURL, action string) error {
	page, err := http.NewRequestWithContext(ctx, http.MethodGet, reviewURL, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(page)
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	form, err := http.NewRequestWithContext(ctx, http.MethodPost, reviewURL, strings.NewReader(url.Values{"action": {action}}.Encode()))
	if err != nil {
		return err
	}
	form.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err = hc.Do(form)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
