package hitl_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// An agent wraps its outbound call: when the service asks for a human, the client forwards
// the question, waits for the decision and returns it with the response. Only an approval
// comes back without an error; a "no" (or an expiry, a cancellation, an answer that is not a
// yes) is a *hitl.NotApprovedError holding the Result.
func Example() {
	svc := hitltest.NewUnstartedServer() // a fake HITL service on loopback
	svc.Start()
	defer svc.Close()
	go func() { // the human, answering in the review page
		id := svc.NextCase(nil)
		_ = svc.Respond(id, "approve", map[string]string{"feedback": "ship it"}, nil)
	}()

	client, err := hitl.NewClient(
		transport.WithHTTPClient(svc.Client()),
		transport.WithAllowPrivateAddresses(), // the fake serves http://127.0.0.1
		hitl.WithForwarder(func(ctx context.Context, it *hitl.Interrupt) error {
			fmt.Println("forward to the human:", it.Prompt())
			return nil
		}),
	)
	if err != nil {
		panic(err)
	}
	req, _ := http.NewRequest(http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{}`))
	resp, err := client.Do(context.Background(), req, nil)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()

	fmt.Println("status:", resp.StatusCode)
	fmt.Println("approved:", resp.Result.Approved())
	approval, _ := hitl.ApprovalOf(resp.Result)
	fmt.Println("feedback:", approval.Feedback)
	// Output:
	// forward to the human: Approve deployment of acme-web v2.1.0 to production
	// status: 202
	// approved: true
	// feedback: ship it
}

// Detect recognises a HITL Protocol 202 in any response the agent already has.
func ExampleDetect() {
	body := `{"status":"human_input_required","message":"5 matching jobs found.","hitl":{
	  "spec_version":"0.8","case_id":"review_abc123","type":"selection",
	  "review_url":"https://svc.example/review/abc123?token=K7xR2mN4pQ8sT1vW3xY5zA9bC2dE4fG6hI8jK0l",
	  "poll_url":"https://api.svc.example/v1/reviews/abc123/status",
	  "prompt":"Select which jobs to apply for","default_action":"skip",
	  "created_at":"2026-02-22T10:00:00Z","expires_at":"2026-02-23T10:00:00Z"}}`
	resp := &http.Response{StatusCode: http.StatusAccepted, Body: io.NopCloser(strings.NewReader(body))}

	it, err := hitl.Detect(resp, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(it.Kind, it.Case.Type, it.ID())
	fmt.Println(it.Prompt())
	fmt.Println(it) // secrets redacted

	// Not a HITL response: nil, nil.
	plain := &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader(`{}`))}
	it, err = hitl.Detect(plain, nil)
	fmt.Println(it == nil, err)
	// Output:
	// hitl selection review_abc123
	// Select which jobs to apply for
	// hitl interrupt: hitl case review_abc123 (selection, expires 2026-02-23T10:00:00Z, review https://svc.example/review/abc123?[redacted])
	// true <nil>
}

// An interrupt saved as JSON can be waited on by another process.
func ExampleClient_Wait_resume() {
	svc := hitltest.NewUnstartedServer()
	svc.Start()
	defer svc.Close()
	client, _ := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses())

	// Process 1: call, detect only, save the interrupt.
	req, _ := http.NewRequest(http.MethodPost, svc.URL+"/actions/confirmation", nil)
	resp, err := client.Do(context.Background(), req, &hitl.CallOptions{DetectOnly: true})
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	saved, _ := json.Marshal(resp.Interrupt)

	// Meanwhile the human confirms.
	_ = svc.Respond(resp.Interrupt.ID(), "confirm", map[string]any{"confirmed_items": []string{"email_001"}}, nil)

	// Process 2: restore and wait.
	var it hitl.Interrupt
	if err := json.Unmarshal(saved, &it); err != nil {
		panic(err)
	}
	res, err := client.Wait(context.Background(), &it, nil)
	if err != nil {
		panic(err)
	}
	c, _ := hitl.ConfirmationOf(res)
	fmt.Println("approved:", res.Approved(), c.ConfirmedItems)
	// Output:
	// approved: true [email_001]
}

// WriteTo forwards to a terminal.
func ExampleWriteTo() {
	it := &hitl.Interrupt{Kind: hitl.KindHITL, Message: "Deployment plan ready.", Case: &hitl.Case{
		CaseID: "review_1", Type: hitl.TypeApproval, Prompt: "Approve the deployment?", ReviewURL: "https://svc.example/review/1?token=abc"}}
	_ = hitl.WriteTo(os.Stdout)(context.Background(), it)
	// Output:
	// Deployment plan ready.
	// Approve the deployment?
	// Approval review
	// Review: https://svc.example/review/1?token=abc
}

// An agent with a public endpoint receives the service's callbacks: it mounts a Callbacks
// handler, asks for callbacks on each call, and Wait wakes as soon as a signed callback
// arrives, confirming the outcome with one poll.
func ExampleNewCallbacks() {
	callbacks, err := hitl.NewCallbacks([]byte(hitltest.DefaultCallbackSecret), nil)
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /hitl/callbacks", callbacks)
	agent := httptest.NewServer(mux) // the agent's public endpoint
	defer agent.Close()

	svc := hitltest.NewUnstartedServer(hitltest.WithoutEvents())

	svc.Start()
	defer svc.Close()
	go func() {
		id := svc.NextCase(nil)
		_ = svc.Respond(id, "confirm", nil, nil)
	}()

	client, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses(),
		hitl.WithCallbacks(callbacks), hitl.WithForwarder(hitl.WriteTo(io.Discard)))
	if err != nil {
		panic(err)
	}
	req, _ := http.NewRequest(http.MethodPost, svc.URL+"/actions/confirmation", strings.NewReader(`{}`))
	resp, err := client.Do(context.Background(), req, &hitl.CallOptions{CallbackURL: agent.URL + "/hitl/callbacks"})
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	fmt.Println("callback URL echoed:", resp.Interrupt.Case.CallbackURL == agent.URL+"/hitl/callbacks")
	fmt.Println("approved:", resp.Result.Approved())

	// A callback signed with another secret is refused.
	forged := httptest.NewRequest(http.MethodPost, "/hitl/callbacks", strings.NewReader(`{"event":"review.completed","case_id":"review_1"}`))
	forged.Header.Set(hitl.SignatureHeader, "sha256="+strings.Repeat("0", 64))
	w := httptest.NewRecorder()
	callbacks.ServeHTTP(w, forged)
	fmt.Println("forged callback:", w.Code)
	// Output:
	// callback URL echoed: true
	// approved: true
	// forged callback: 401
}

// A chat agent offers a case's inline actions as buttons whose data holds no token, and
// finds the case again when one is tapped.
func ExampleButtonTable() {
	it := &hitl.Interrupt{Kind: hitl.KindHITL, Case: &hitl.Case{
		CaseID: "review_confirm_1", Type: hitl.TypeConfirmation,
		SubmitURL: "https://api.example/reviews/review_confirm_1/submit", SubmitToken: "agt_0123456789abcdef0123456789abcdef",
		InlineActions: []string{"confirm", "cancel"},
	}}
	var table hitl.ButtonTable
	for _, b := range table.Buttons(it) {
		fmt.Println(b.Action, len(b.Data) <= 64, strings.Contains(b.Data, "agt_"))
	}
	tapped, action, ok := table.Lookup(table.Buttons(it)[0].Data)
	fmt.Println(tapped.ID(), action, ok)
	// Output:
	// confirm true false
	// cancel true false
	// review_confirm_1 confirm true
}

// A form's one-line summary goes into the forwarded message; Check reports every problem
// with an answer by key.
func ExampleForm_Check() {
	form, _ := hitl.ParseForm([]byte(`{"steps":[
		{"title":"Personal","fields":[{"key":"name","label":"Name","type":"text","required":true}]},
		{"title":"Pay","fields":[{"key":"salary","label":"Salary","type":"number","sensitive":true,"validation":{"max":200000}}]}]}`))
	fmt.Println(form.Summary())
	fmt.Println(form.Check(context.Background(), []byte(`{"salary":999999}`)))
	// Output:
	// 2-step form: Personal → Pay
	// hitl: invalid result data: name: required; salary: above the maximum 200000
}

// chatButton is a way of one's own: it learns the outcome from a button the human pressed in
// a chat.
type chatButton struct{ pressed <-chan string }

func (b chatButton) Wait(ctx context.Context, it *hitl.Interrupt) (*transport.Result, error) {
	select {
	case action := <-b.pressed:
		return &transport.Result{Status: transport.StatusCompleted, CaseID: it.ID(), Action: action,
			Decision: transport.DecisionApprove}, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// A custom way of learning the outcome — here a chat button the human pressed — wakes the
// wait; a poll of the service confirms what it says before the wait returns it.
func ExampleWithWaiter() {
	svc := hitltest.NewUnstartedServer(hitltest.WithoutEvents(), hitltest.WithRetryAfter(time.Minute))
	svc.Start()
	defer svc.Close()
	pressed := make(chan string, 1)
	go func() { // the human presses "approve" in the chat; the bot records it with the service
		id := svc.NextCase(nil)
		_ = svc.Respond(id, "approve", nil, nil)
		pressed <- "approve"
	}()
	client, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses(),
		hitl.WithWaiter(chatButton{pressed}), hitl.WithForwarder(hitl.WriteTo(io.Discard)))
	if err != nil {
		panic(err)
	}
	req, _ := http.NewRequest(http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{}`))
	resp, err := client.Do(context.Background(), req, nil)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	fmt.Println("approved:", resp.Result.Approved())
	// Output:
	// approved: true
}
