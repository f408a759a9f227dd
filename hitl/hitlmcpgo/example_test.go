package hitlmcpgo_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlmcpgo"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// An mcp-go server whose delete_file tool asks an approval service (here the fake one)
// first, and an mcp-go client whose human gets the review link and approves.
func ExampleTool() {
	svc := hitltest.NewUnstartedServer()
	svc.Start()
	defer svc.Close()
	hc, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses())
	if err != nil {
		panic(err)
	}
	tool := &hitlmcpgo.Tool{Client: hc, Secret: []byte("a-secret-of-at-least-thirty-two-bytes!"),
		Call: func(ctx context.Context, _ mcp.CallToolRequest) (*http.Request, error) {
			return http.NewRequestWithContext(ctx, http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{"delete":"/tmp/report.txt"}`))
		},
		Result: func(_ context.Context, _ *http.Response, r *transport.Result) (*mcp.CallToolResult, error) {
			if r != nil && !r.Approved() {
				return mcp.NewToolResultError("not deleted"), nil
			}
			return mcp.NewToolResultText("deleted"), nil
		}}
	s := server.NewMCPServer("files", "1")
	s.AddTool(mcp.NewTool("delete_file"), tool.Handle)

	// The agent's human: shown the link, they approve on the service's page.
	forward := func(_ context.Context, it *hitl.Interrupt) error {
		u, err := url.Parse(it.ReviewURL())
		if err != nil {
			return err
		}
		fmt.Println("review link forwarded")
		return svc.Respond(strings.TrimPrefix(u.Path, "/review/"), "approve", nil, nil)
	}
	ctx := context.Background()
	c, err := client.NewInProcessClientWithOptions(s, hitlmcpgo.ClientOptions(forward, nil)...)
	if err != nil {
		panic(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		panic(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		panic(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "delete_file"
	res, err := c.CallTool(ctx, req)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.IsError, res.Content[0].(mcp.TextContent).Text)
	// Output:
	// review link forwarded
	// false deleted
}
