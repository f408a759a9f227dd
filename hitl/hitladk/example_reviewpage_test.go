package hitladk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitladk"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// An ADK agent's delete_file tool requires confirmation. The host puts each confirmation on a
// HITL service's review page (the fake, hitltest), where a person decides, and resumes the
// agent with the decision: approving runs the tool; rejecting does not, and neither does a
// confirmation nobody answers before it expires. NewDeleteFileTool and StartAgent (an
// ordinary ADK host: LLM agent, session, runner) are in ExamplePending.
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
			return AnswerOnReviewPage(ctx, svc.Client(), it.Case.ReviewURL, person)
		}
		client, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses(), hitl.WithForwarder(forward))
		if err != nil {
			fmt.Println(err)
			return
		}
		deleteFile, err := NewDeleteFileTool(func(path string) { fmt.Println("  deleting", path) })
		if err != nil {
			fmt.Println(err)
			return
		}
		run, err := StartAgent(ctx, deleteFile)
		if err != nil {
			fmt.Println(err)
			return
		}

		// The Asker: each pause becomes a case on the service; Do forwards the review link and
		// waits for the decision. An Asker returns every decision as a Result (Response turns
		// anything but an approval into confirmed:false), so it asks Do for every decision.
		ask := func(ctx context.Context, p hitladk.Request) (*transport.Result, error) {
			body, err := json.Marshal(map[string]any{"tool": p.Tool, "args": p.Args})
			if err != nil {
				return nil, err
			}
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(string(body)))
			if err != nil {
				return nil, err
			}
			resp, err := client.Do(ctx, req, &hitl.CallOptions{EveryDecisionOK: true})
			if err != nil {
				return nil, err
			}
			_ = resp.Body.Close()
			if resp.Result == nil { // no case was opened: the service failed, nobody was asked
				return nil, fmt.Errorf("review service: %s", resp.Status)
			}
			fmt.Printf("%s: %s, go-ahead %t\n", person, resp.Result.Status, resp.Result.Approved())
			return resp.Result, nil
		}
		events, err := run(genai.NewContentFromText("clean up the report", genai.RoleUser))
		if err != nil {
			fmt.Println(err)
			return
		}
		msg, err := hitladk.Answer(ctx, hitladk.Pending(events), ask)
		if err != nil {
			fmt.Println(err)
			return
		}
		if _, err := run(msg); err != nil {
			fmt.Println(err)
			return
		}
	}
	// Output:
	// approve: completed, go-ahead true
	//   deleting /tmp/report.txt
	// reject: completed, go-ahead false
	// nobody: expired, go-ahead false
}

// AnswerOnReviewPage is the person: opens the review page and submits its form with action.
func AnswerOnReviewPage(ctx context.Context, hc *http.Client, reviewURL, action string) error {
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
