package hitlmcpgo_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
	"github.com/hitlkit/hitlkit/hitl/hitlmcpgo"
)

var budget = map[string]any{"type": "object", "properties": map[string]any{
	"amount": map[string]any{"type": "number", "minimum": 0, "maximum": 1000},
	"reason": map[string]any{"type": "string"},
}, "required": []any{"amount"}}

// asker answers 5000 first (outside the schema), then 250; it records the forms it was
// put.
type asker struct{ forms []*hitlmcp.Form }

func (a *asker) ask(_ context.Context, f *hitlmcp.Form) (hitlmcp.Answer, error) {
	a.forms = append(a.forms, f)
	if f.Round == 1 {
		return hitlmcp.Answer{Action: "accept", Content: map[string]any{"amount": 5000.0}}, nil
	}
	return hitlmcp.Answer{Action: "accept", Content: map[string]any{"amount": 250.0, "reason": "team lunch"}}, nil
}

func (a *asker) check(t *testing.T) {
	t.Helper()
	if len(a.forms) != 2 || a.forms[1].Round != 2 || len(a.forms[1].Problems) != 1 || a.forms[1].Problems[0].Field != "amount" ||
		a.forms[0].Message != "How much may I spend?" || !strings.Contains(string(a.forms[0].Schema), `"amount"`) {
		t.Fatalf("the human was put %+v", a.forms)
	}
}

// TestFormPutBackMCPGoClient: a go-sdk server's tool asks a form (an input request on
// 2026-07-28, elicitation/create on 2025-11-25); an mcp-go client with hitlmcpgo's handler
// puts an answer that breaks the schema back to the human with its problem, and sends the
// second; with WithRounds(1) the server gets an error instead of the bad answer.
func TestFormPutBackMCPGoClient(t *testing.T) {
	for _, rev := range revisions {
		for _, rounds := range []int{3, 1} {
			t.Run(fmt.Sprintf("%s rounds %d", rev, rounds), func(t *testing.T) {
				p := newPipes(t)
				s := gomcp.NewServer(&gomcp.Implementation{Name: "spend", Version: "1"}, nil)
				s.AddTool(&gomcp.Tool{Name: "spend", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *gomcp.CallToolRequest) (*gomcp.CallToolResult, error) {
					a, ok := req.Params.InputResponses["budget"].(*gomcp.ElicitResult)
					if !ok {
						return &gomcp.CallToolResult{InputRequests: gomcp.InputRequestMap{"budget": &gomcp.ElicitParams{Message: "How much may I spend?", RequestedSchema: budget}}}, nil
					}
					return &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: fmt.Sprint(a.Action, " ", a.Content["amount"])}}}, nil
				})
				ss, err := s.Connect(context.Background(), &gomcp.IOTransport{Reader: p.sr, Writer: p.sw}, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = ss.Close(); _ = ss.Wait() })
				a := &asker{}
				c := goClient(t, p, rev, hitlmcpgo.ClientOptions(nil, a.ask, hitlmcp.WithRounds(rounds))...)
				res, err := c.CallTool(t.Context(), call("spend"))
				if rounds == 1 {
					if err == nil || !strings.Contains(err.Error(), "amount") {
						t.Fatalf("CallTool = %+v, %v; want an error naming the problem", res, err)
					}
					return
				}
				if err != nil || goText(res) != "accept 250" {
					t.Fatalf("CallTool = %+v (%q), %v; want the corrected answer", res, goText(res), err)
				}
				a.check(t)
			})
		}
	}
}

// TestFormPutBackSDKClient: the same from the other side — an mcp-go server's tool asks
// the form (server.InputRequestBuilder; mcp-go sends elicitation/create on 2025-11-25) and
// a go-sdk client with hitlmcp's handler puts the bad answer back.
func TestFormPutBackSDKClient(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			p := newPipes(t)
			s := server.NewMCPServer("spend", "1", server.WithToolCapabilities(false))
			s.AddTool(mcp.NewTool("spend"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				a := server.ElicitationResponse(req.Params.InputResponses, "budget")
				if a == nil {
					return server.NewInputRequestBuilder("").Elicit("budget", mcp.ElicitationParams{Message: "How much may I spend?", RequestedSchema: budget}).ToolResult(), nil
				}
				content, _ := a.Content.(map[string]any)
				return mcp.NewToolResultText(fmt.Sprint(a.Action, " ", content["amount"])), nil
			})
			stdio := server.NewStdioServer(s)
			stdio.SetErrorLogger(discard)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { defer close(done); _ = stdio.Listen(ctx, p.sr, p.sw) }()
			t.Cleanup(func() { cancel(); _ = p.sr.Close(); _ = p.sw.Close(); <-done })
			a := &asker{}
			cs := sdkClient(t, p, rev, hitlmcp.ClientOptions(nil, a.ask))
			res, err := cs.CallTool(t.Context(), &gomcp.CallToolParams{Name: "spend"})
			if err != nil || sdkText(res) != "accept 250" {
				t.Fatalf("CallTool = %+v (%q), %v; want the corrected answer", res, sdkText(res), err)
			}
			a.check(t)
		})
	}
}
