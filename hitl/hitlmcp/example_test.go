package hitlmcp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
)

// An MCP server's tool asks the agent's human how much it may spend; the agent's client
// answers through hitlkit, and the answer is checked against the server's schema.
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
		fmt.Println("asked:", f.Message)
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
	// bought for 250
}
