package hitlmcpgo_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
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

// TestHandlerChoiceMCPGo holds the mcp-go row of hitlmcp's "Which HTTP handler": a hitlmcp
// tool behind go-sdk's Streamable HTTP handler, on loopback, called by an mcp-go client. At
// its defaults the client takes the stateful handler's answer to server/discover as
// agreement on 2026-07-28 and every tools/call fails ("unsupported protocol version"),
// nothing deleted; the stateless handler serves it on 2026-07-28; the stateful handler
// serves the client that asks for 2025-11-25 (the link as elicitation/create). Where it is
// served, the approval deletes once.
func TestHandlerChoiceMCPGo(t *testing.T) {
	for _, tt := range []struct {
		name      string
		stateless bool
		rev       string // "": mcp-go's default
		want      string // the revision spoken, or "" for a failed call
	}{
		{"defaults stateful", false, "", ""},
		{"defaults stateless", true, "", "2026-07-28"},
		{"2025-11-25 stateful", false, "2025-11-25", "2025-11-25"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := newBackend(t)
			tool := b.sdkTool(3 * time.Second)
			var spoke atomic.Value
			spoke.Store("")
			s := gomcp.NewServer(&gomcp.Implementation{Name: "files", Version: "1"}, nil)
			s.AddTool(&gomcp.Tool{Name: "delete_file", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *gomcp.CallToolRequest) (*gomcp.CallToolResult, error) {
				spoke.Store(req.ProtocolVersion())
				return tool.Handle(ctx, req)
			})
			web := httptest.NewServer(gomcp.NewStreamableHTTPHandler(func(*http.Request) *gomcp.Server { return s },
				&gomcp.StreamableHTTPOptions{Stateless: tt.stateless}))
			defer web.Close()
			opts := hitlmcpgo.ClientOptions(decide(t, b, "approve"), nil)
			if tt.rev != "" {
				opts = append(opts, client.WithProtocolVersion(tt.rev))
			}
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
			init.Params.ProtocolVersion = tt.rev
			if _, err := c.Initialize(t.Context(), init); err != nil {
				t.Fatal(err)
			}
			res, err := c.CallTool(t.Context(), call("delete_file"))
			if tt.want == "" {
				if err == nil || !strings.Contains(err.Error(), "unsupported protocol version") || b.deleted.Load() != 0 {
					t.Fatalf("CallTool = %+v, %v; deleted %d; want unsupported protocol version", res, err, b.deleted.Load())
				}
				return
			}
			if err != nil || goText(res) != "deleted" || res.IsError || b.deleted.Load() != 1 {
				t.Fatalf("CallTool = %+v, %v; deleted %d; want deleted once", res, err, b.deleted.Load())
			}
			if spoke.Load() != tt.want {
				t.Errorf("the call spoke %v, want %s", spoke.Load(), tt.want)
			}
		})
	}
}
