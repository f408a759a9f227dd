package hitlmcp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// call runs a real go-sdk server and client in process over the in-memory transport: the
// server's tool "ask" asks the client for ask (multi round-trip, the current protocol) and
// answers with what came back; the client's elicitations go to handler.
func call(t *testing.T, ask *mcp.ElicitParams, handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) (string, error) {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "ask"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if len(req.Params.InputResponses) == 0 {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"q": ask}}, nil, nil
		}
		res := req.Params.InputResponses["q"].(*mcp.ElicitResult)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s %v", res.Action, res.Content)}}}, nil, nil
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: handler,
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
			Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
	})
	cs := connect(t, server, client)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask"})
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", fmt.Errorf("tool error: %v", res.Content)
	}
	return res.Content[0].(*mcp.TextContent).Text, nil
}

// connect connects client to server in process, over the in-memory transport; the session
// closes when the test ends.
func connect(t *testing.T, server *mcp.Server, client *mcp.Client) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return cs
}

var budget = map[string]any{"type": "object", "properties": map[string]any{
	"amount": map[string]any{"type": "number", "minimum": 0, "maximum": 1000},
	"reason": map[string]any{"type": "string"},
}, "required": []any{"amount"}}

// TestFormElicitation: the server asks for a form; the human's answer goes back when it fits
// the schema; one that does not fit is refused before it reaches the server; decline passes.
func TestFormElicitation(t *testing.T) {
	for _, tt := range []struct {
		name    string
		answer  hitlmcp.Answer
		wantErr bool
		want    string
	}{
		{"accepted", hitlmcp.Answer{Action: "accept", Content: map[string]any{"amount": 250.0, "reason": "team lunch"}}, false, "accept map[amount:250 reason:team lunch]"},
		{"outside the schema", hitlmcp.Answer{Action: "accept", Content: map[string]any{"amount": 5000.0}}, true, ""},
		{"missing a required field", hitlmcp.Answer{Action: "accept", Content: map[string]any{"reason": "x"}}, true, ""},
		{"declined", hitlmcp.Answer{Action: "decline"}, false, "decline map[]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var asked *hitlmcp.Form
			ask := func(_ context.Context, f *hitlmcp.Form) (hitlmcp.Answer, error) { asked = f; return tt.answer, nil }
			got, err := call(t, &mcp.ElicitParams{Message: "How much may I spend?", RequestedSchema: budget}, hitlmcp.ElicitationHandler(nil, ask))
			if asked == nil || asked.Message != "How much may I spend?" || !strings.Contains(string(asked.Schema), `"amount"`) {
				t.Fatalf("the human was asked %+v", asked)
			}
			if tt.wantErr {
				if err == nil {
					t.Fatalf("the server received %q, want the answer refused", got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("the server received %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestURLElicitation: a URL-mode elicitation is forwarded like a review link and accepted;
// without a FormAsker, a form is refused.
func TestURLElicitation(t *testing.T) {
	var forwarded *hitl.Interrupt
	fwd := func(_ context.Context, it *hitl.Interrupt) error { forwarded = it; return nil }
	got, err := call(t, &mcp.ElicitParams{Mode: "url", Message: "Sign in to the file service",
		URL: "https://files.example/connect?state=abc", ElicitationID: "el_1"}, hitlmcp.ElicitationHandler(fwd, nil))
	if err != nil || !strings.HasPrefix(got, "accept") {
		t.Fatalf("the server received %q, %v", got, err)
	}
	if forwarded == nil || forwarded.Kind != hitlmcp.KindURLElicitation || forwarded.ReviewURL() != "https://files.example/connect?state=abc" ||
		forwarded.ID() != "el_1" || forwarded.Prompt() != "Sign in to the file service" {
		t.Errorf("forwarded %+v", forwarded)
	}
	if _, err := call(t, &mcp.ElicitParams{Message: "x", RequestedSchema: budget}, hitlmcp.ElicitationHandler(fwd, nil)); err == nil {
		t.Error("a form was answered without a FormAsker")
	}
}
