package hitlmcpgo_test

import (
	"context"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
	"github.com/hitlkit/hitlkit/hitl/hitlmcpgo"
)

// TestStreamableHTTP: a hitlmcpgo tool behind mcp-go's Streamable HTTP server (its
// defaults, on loopback) serves go-sdk and mcp-go clients on both revisions: the review
// link reaches a client that declared URL elicitation, and the approval deletes once.
func TestStreamableHTTP(t *testing.T) {
	for _, rev := range revisions {
		for _, kind := range []string{"go-sdk", "mcp-go"} {
			t.Run(rev+" "+kind, func(t *testing.T) {
				b := newBackend(t)
				s := server.NewMCPServer("files", "1", server.WithToolCapabilities(false))
				tool := b.goTool(3 * time.Second)
				var spoke atomic.Value
				s.AddTool(mcp.NewTool("delete_file"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					spoke.Store(server.RequestProtocolVersion(ctx))
					return tool.Handle(ctx, req)
				})
				web := httptest.NewServer(server.NewStreamableHTTPServer(s))
				defer web.Close()
				var text string
				var isError bool
				switch kind {
				case "go-sdk":
					c := gomcp.NewClient(&gomcp.Implementation{Name: "agent", Version: "1"}, hitlmcp.ClientOptions(decide(t, b, "approve"), nil))
					cs, err := c.Connect(t.Context(), &gomcp.StreamableClientTransport{Endpoint: web.URL}, &gomcp.ClientSessionOptions{ProtocolVersion: rev})
					if err != nil {
						t.Fatal(err)
					}
					defer cs.Close()
					res, err := cs.CallTool(t.Context(), &gomcp.CallToolParams{Name: "delete_file"})
					if err != nil {
						t.Fatal(err)
					}
					text, isError = sdkText(res), res.IsError
				default:
					opts := append(hitlmcpgo.ClientOptions(decide(t, b, "approve"), nil), client.WithProtocolVersion(rev))
					c, err := client.NewStreamableHttpClient(web.URL)
					if err != nil {
						t.Fatal(err)
					}
					for _, o := range opts {
						o(c)
					}
					defer c.Close()
					if err := c.Start(t.Context()); err != nil {
						t.Fatal(err)
					}
					init := mcp.InitializeRequest{}
					init.Params.ProtocolVersion = rev
					if _, err := c.Initialize(t.Context(), init); err != nil {
						t.Fatal(err)
					}
					res, err := c.CallTool(t.Context(), call("delete_file"))
					if err != nil {
						t.Fatal(err)
					}
					text, isError = goText(res), res.IsError
				}
				if text != "deleted" || isError || b.deleted.Load() != 1 {
					t.Fatalf("CallTool = %q isError %v; deleted %d; want deleted once", text, isError, b.deleted.Load())
				}
				if spoke.Load() != rev {
					t.Errorf("the call spoke %v, want %s", spoke.Load(), rev)
				}
			})
		}
	}
}
