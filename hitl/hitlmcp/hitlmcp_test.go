package hitlmcp_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
	return connectAt(t, server, client, "")
}

// connectAt is connect with the client asking for protocol revision rev ("" for the
// latest).
func connectAt(t *testing.T, server *mcp.Server, client *mcp.Client, rev string) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: rev})
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

// TestFormRules: an accepted answer is checked against every rule an elicitation schema may
// hold (MCP 2025-11-25 "Elicitation": string length and the formats email, uri, date and
// date-time; number and integer bounds; booleans; single- and multi-select enums; required)
// before it is sent; one that breaks a rule never reaches the server.
func TestFormRules(t *testing.T) {
	schema := map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{
		"name":  map[string]any{"type": "string", "minLength": 2, "maxLength": 5},
		"email": map[string]any{"type": "string", "format": "email"},
		"site":  map[string]any{"type": "string", "format": "uri"},
		"born":  map[string]any{"type": "string", "format": "date"},
		"at":    map[string]any{"type": "string", "format": "date-time"},
		"age":   map[string]any{"type": "integer", "minimum": 0, "maximum": 150},
		"score": map[string]any{"type": "number", "minimum": 0.5, "maximum": 1},
		"ok":    map[string]any{"type": "boolean"},
		"size":  map[string]any{"type": "string", "enum": []any{"s", "m"}},
		"tier":  map[string]any{"type": "string", "oneOf": []any{map[string]any{"const": "gold", "title": "Gold"}, map[string]any{"const": "free", "title": "Free"}}},
		"toppings": map[string]any{"type": "array", "minItems": 1, "maxItems": 2,
			"items": map[string]any{"type": "string", "enum": []any{"ham", "egg", "kale"}}},
	}}
	good := map[string]any{"name": "Ada", "email": "ada@example.org", "site": "https://example.org/a", "born": "1815-12-10",
		"at": "2026-11-24T07:00:00Z", "age": 36.0, "score": 0.75, "ok": true, "size": "m", "tier": "gold", "toppings": []any{"egg"}}
	for _, tt := range []struct {
		field string
		value any // nil: the field left out
		ok    bool
	}{
		{"", nil, true},
		{"email", nil, true},
		{"at", "2026-11-24T07:00:00+01:00", true},
		{"name", nil, false},
		{"name", "A", false},
		{"name", "Adalove", false},
		{"name", 7.0, false},
		{"email", "not-an-email", false},
		{"email", "Ada <ada@example.org>", false},
		{"site", "example.org/a", false},
		{"site", "https://exa mple.org", false},
		{"born", "10/12/1815", false},
		{"born", "1815-13-10", false},
		{"at", "2026-11-24 07:00", false},
		{"at", "2026-11-24", false},
		{"age", 36.5, false},
		{"age", -1.0, false},
		{"score", 0.25, false},
		{"ok", "yes", false},
		{"size", "xl", false},
		{"tier", "Gold", false},
		{"toppings", []any{}, false},
		{"toppings", []any{"ham", "egg", "kale"}, false},
		{"toppings", []any{"tofu"}, false},
	} {
		t.Run(fmt.Sprintf("%s=%v", tt.field, tt.value), func(t *testing.T) {
			answer := map[string]any{}
			for k, v := range good {
				answer[k] = v
			}
			if tt.field != "" {
				delete(answer, tt.field)
				if tt.value != nil {
					answer[tt.field] = tt.value
				}
			}
			ask := func(context.Context, *hitlmcp.Form) (hitlmcp.Answer, error) {
				return hitlmcp.Answer{Action: "accept", Content: answer}, nil
			}
			got, err := call(t, &mcp.ElicitParams{Message: "Who?", RequestedSchema: schema}, hitlmcp.ElicitationHandler(nil, ask))
			if tt.ok && (err != nil || !strings.HasPrefix(got, "accept")) {
				t.Fatalf("the server received %q, %v; want the answer", got, err)
			}
			if !tt.ok && (err == nil || !errors.Is(err, hitlmcp.ErrBadAnswer)) {
				t.Fatalf("the server received %q, %v; want ErrBadAnswer", got, err)
			}
		})
	}
}

// TestRefusalsHaveCodes: on a 2025-11-25 session the server's elicitation/create gets a
// JSON-RPC error with a defined code and a message, never code 0: invalid params (-32602)
// for an answer outside the schema and for a mode the handler does not take, internal error
// (-32603) when the person cannot be reached.
func TestRefusalsHaveCodes(t *testing.T) {
	tooMuch := func(context.Context, *hitlmcp.Form) (hitlmcp.Answer, error) {
		return hitlmcp.Answer{Action: "accept", Content: map[string]any{"amount": 5000.0}}, nil
	}
	unreachable := func(context.Context, *hitl.Interrupt) error { return errors.New("chat: offline") }
	form := &mcp.ElicitParams{Message: "How much?", RequestedSchema: budget}
	page := &mcp.ElicitParams{Mode: "url", Message: "Pay", URL: "https://pay.example/1", ElicitationID: "el-1"}
	for _, tt := range []struct {
		name    string
		ask     *mcp.ElicitParams
		handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
		code    int64
		message string
	}{
		{"an answer outside the schema", form, hitlmcp.ElicitationHandler(nil, tooMuch), jsonrpc.CodeInvalidParams, "does not match"},
		{"a form without a FormAsker", form, hitlmcp.ElicitationHandler(unreachable, nil), jsonrpc.CodeInvalidParams, "without a FormAsker"},
		{"the person unreachable", page, hitlmcp.ElicitationHandler(unreachable, nil), jsonrpc.CodeInternalError, "chat: offline"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1"}, nil)
			got := make(chan error, 1)
			mcp.AddTool(server, &mcp.Tool{Name: "buy"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				_, err := req.Session.Elicit(ctx, tt.ask)
				got <- err
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
			})
			o := &mcp.ClientOptions{ElicitationHandler: tt.handler, Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
				Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}}
			cs := connectAt(t, server, mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, o), "2025-11-25")
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "buy"}); err != nil {
				t.Fatal(err)
			}
			var rpc *jsonrpc.Error
			if err := <-got; !errors.As(err, &rpc) || rpc.Code != tt.code || !strings.Contains(rpc.Message, tt.message) {
				t.Fatalf("the server's Elicit = %#v, want code %d with %q", err, tt.code, tt.message)
			}
		})
	}
}

// readmeClient is the README's client, as written there.
const readmeClient = `client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, hitlmcp.ClientOptions(fwd, askMyHumanForm))`

// TestREADMEClientTakesURLElicitations: a client built as the README shows declares URL
// mode and form mode, so a 2025-11-25 server sends it both.
func TestREADMEClientTakesURLElicitations(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil || !strings.Contains(string(readme), readmeClient) {
		t.Fatalf("the README does not build its client as %s (%v)", readmeClient, err)
	}
	var forwarded atomic.Int32
	fwd := func(context.Context, *hitl.Interrupt) error { forwarded.Add(1); return nil }
	askMyHumanForm := func(context.Context, *hitlmcp.Form) (hitlmcp.Answer, error) {
		return hitlmcp.Answer{Action: "accept", Content: map[string]any{"amount": 5.0}}, nil
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, hitlmcp.ClientOptions(fwd, askMyHumanForm))

	server := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "buy"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		u, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "url", Message: "Pay", URL: "https://pay.example/1", ElicitationID: "el-1"})
		if err != nil {
			return nil, nil, err
		}
		f, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "How much?", RequestedSchema: budget})
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: u.Action + " " + f.Action}}}, nil, nil
	})
	res, err := connectAt(t, server, client, "2025-11-25").CallTool(t.Context(), &mcp.CallToolParams{Name: "buy"})
	if err != nil || res.IsError || text(res) != "accept accept" || forwarded.Load() != 1 {
		t.Fatalf("CallTool = %+v, %v; forwarded %d", res, err, forwarded.Load())
	}
}

// TestURLElicitationWithoutID: a 2026-07-28 URL input request has no elicitationId; the
// forwarded Interrupt has an id of its link, the same each time, another for another link.
// The same link asked for again (a tool call retried while the person takes their time) is
// accepted without forwarding it again; ten minutes on, it is forwarded again as a reminder.
func TestURLElicitationWithoutID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var (
			ids       []string
			reminders []int
		)
		fwd := func(_ context.Context, it *hitl.Interrupt) error {
			ids, reminders = append(ids, it.ID()), append(reminders, it.Reminder)
			return nil
		}
		h := hitlmcp.ElicitationHandler(fwd, nil)
		ask := func(url string) {
			t.Helper()
			res, err := call(t, &mcp.ElicitParams{Mode: "url", Message: "Sign in", URL: url}, h)
			if err != nil || !strings.HasPrefix(res, "accept") {
				t.Fatalf("elicitation = %+v, %v", res, err)
			}
		}
		for range 9 { // nine retry rounds of one tool call
			ask("https://files.example/connect")
		}
		ask("https://files.example/other")
		if len(ids) != 2 || ids[0] == "" || ids[1] == "" || ids[0] == ids[1] {
			t.Fatalf("forwarded ids %q, want one per link", ids)
		}
		<-time.After(10 * time.Minute)
		ask("https://files.example/connect")
		if len(ids) != 3 || ids[2] != ids[0] || reminders[2] != 1 {
			t.Fatalf("after 10 minutes: ids %q, reminders %v; want the first link again as reminder 1", ids, reminders)
		}
	})
}

// A link whose forwarding failed is forwarded again the next time it is asked for.
func TestURLElicitationForwardFailed(t *testing.T) {
	n := 0
	fwd := func(context.Context, *hitl.Interrupt) error {
		n++
		if n == 1 {
			return errors.New("chat is down")
		}
		return nil
	}
	h := hitlmcp.ElicitationHandler(fwd, nil)
	p := &mcp.ElicitParams{Mode: "url", Message: "Sign in", URL: "https://files.example/connect"}
	if _, err := call(t, p, h); err == nil {
		t.Fatal("a failed forward was answered")
	}
	if res, err := call(t, p, h); err != nil || !strings.HasPrefix(res, "accept") || n != 2 {
		t.Fatalf("second ask = %+v, %v after %d forwards; want it forwarded again", res, err, n)
	}
}

// TestAnswerLeftAsGiven: the SDK fills a schema's defaults into the content it sends, in
// place; the map the FormAsker answered with stays as it was, so the caller can keep reading
// it while the answer travels.
func TestAnswerLeftAsGiven(t *testing.T) {
	withDefault := map[string]any{"type": "object", "properties": map[string]any{
		"amount": map[string]any{"type": "number"},
		"reason": map[string]any{"type": "string", "default": "none given"},
	}, "required": []any{"amount"}}
	answer := map[string]any{"amount": 10.0}
	ask := func(context.Context, *hitlmcp.Form) (hitlmcp.Answer, error) {
		return hitlmcp.Answer{Action: "accept", Content: answer}, nil
	}
	got, err := call(t, &mcp.ElicitParams{Message: "How much?", RequestedSchema: withDefault}, hitlmcp.ElicitationHandler(nil, ask))
	if err != nil || got != "accept map[amount:10 reason:none given]" {
		t.Fatalf("the server received %q, %v; want the answer with the schema's default", got, err)
	}
	if len(answer) != 1 || answer["amount"] != 10.0 {
		t.Errorf("the FormAsker's map is now %v; want it as it was answered", answer)
	}
}
