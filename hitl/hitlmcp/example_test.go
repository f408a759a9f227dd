package hitlmcp_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// An MCP server's tool asks the agent's human how much it may spend, with a 2026-07-28 input
// request (InputRequests); the agent's client answers through hitlkit. The first answer
// breaks the server's schema, so the form goes back to the human with the problem; the
// second reaches the server.
func ExampleElicitationHandler() {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "buy"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if len(req.Params.InputResponses) == 0 {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"budget": &mcp.ElicitParams{
				Message: "How much may I spend?",
				RequestedSchema: map[string]any{"type": "object",
					"properties": map[string]any{"amount": map[string]any{"type": "number", "maximum": 1000}}},
			}}}, nil, nil
		}
		res := req.Params.InputResponses["budget"].(*mcp.ElicitResult)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("bought for %v", res.Content["amount"])}}}, nil, nil
	})
	human := func(_ context.Context, f *hitlmcp.Form) (hitlmcp.Answer, error) {
		if f.Round == 1 {
			fmt.Println("asked:", f.Message)
			return hitlmcp.Answer{Action: "accept", Content: map[string]any{"amount": 2500.0}}, nil
		}
		fmt.Println("asked again:", f.Problems[0])
		return hitlmcp.Answer{Action: "accept", Content: map[string]any{"amount": 250.0}}, nil
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"},
		&mcp.ClientOptions{ElicitationHandler: hitlmcp.ElicitationHandler(nil, human)})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Close()
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "buy"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// asked: How much may I spend?
	// asked again: amount: must be at most 1000 (got 2500)
	// bought for 250
}

// A FormAsker may check an answer itself before it answers, and ask again at once.
func ExampleForm_Check() {
	f := &hitlmcp.Form{Message: "Your account?", Schema: []byte(`{"type":"object","required":["email"],
		"properties":{"email":{"type":"string","format":"email"},"pin":{"type":"string","minLength":6}}}`)}
	err := f.Check(map[string]any{"email": "ada", "pin": "1234"})
	var bad *hitlmcp.AnswerError
	if errors.As(err, &bad) {
		for _, p := range bad.Problems {
			fmt.Println(p) // the pin's value is secret: not shown
		}
	}
	fmt.Println(f.Check(map[string]any{"email": "ada@example.org", "pin": "123456"}))
	// Output:
	// email: must be an email address (RFC 5321) (got "ada")
	// pin: must be at least 6 characters long
	// <nil>
}

// An MCP server's delete_file tool calls a backend that wants a person to approve first. The
// tool answers "input required" with the review link; the agent's client forwards it (here
// the person approves at once), retries, and gets the tool's result.
func ExampleTool() {
	ctx := context.Background()
	backend := hitltest.NewUnstartedServer(hitltest.WithRetryAfter(time.Second)) // a HITL service
	backend.Start()
	defer backend.Close()
	hc, err := hitl.NewClient(transport.WithHTTPClient(backend.Client()), transport.WithAllowPrivateAddresses())
	if err != nil {
		log.Fatal(err)
	}
	tool := &hitlmcp.Tool{Client: hc, Secret: []byte("a-secret-of-at-least-thirty-two-bytes!"),
		Call: func(ctx context.Context, _ *mcp.CallToolRequest) (*http.Request, error) {
			return http.NewRequestWithContext(ctx, http.MethodPost, backend.URL+"/actions/approval", strings.NewReader(`{}`))
		},
		Result: func(_ context.Context, _ *http.Response, r *transport.Result) (*mcp.CallToolResult, error) {
			done := "not deleted"
			if r != nil && r.Approved() {
				done = "deleted"
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: done}}}, nil
		}}
	server := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "delete_file", InputSchema: map[string]any{"type": "object"}}, tool.Handle)

	forward := func(_ context.Context, it *hitl.Interrupt) error {
		if it.Reminder == 0 && strings.HasPrefix(it.Case.ReviewURL, backend.URL) {
			fmt.Println("review link forwarded")
		}
		// The person opens the page and approves.
		id, _, _ := strings.Cut(strings.TrimPrefix(it.Case.ReviewURL, backend.URL+"/review/"), "?")
		return backend.Respond(id, "approve", nil, nil)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, hitlmcp.ClientOptions(forward, nil))
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Close()
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_file"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// review link forwarded
	// deleted
}

// A Ledger records the paused calls whose requestState has returned the person's result:
// the first Spend of a call wins, a replay finds it spent.
func ExampleMemoryLedger() {
	ctx := context.Background()
	var ledger hitlmcp.MemoryLedger
	until := time.Now().Add(time.Hour) // when every state of the call has expired
	first, _ := ledger.Spend(ctx, "call-1", until)
	replay, _ := ledger.Spend(ctx, "call-1", until)
	spent, _ := ledger.Spent(ctx, "call-1")
	fmt.Println(first, replay, spent)
	// Output: true false true
}
