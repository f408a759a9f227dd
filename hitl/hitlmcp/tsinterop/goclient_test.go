package tsinterop_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
)

// tsServer connects a go-sdk client with options o to the TypeScript server script over
// transport ("stdio" or "http"); the session closes when the test ends. connect makes
// another session to the same server (over stdio: the same process is gone, so a new one).
func tsServer(t *testing.T, script, transport string) (connect func(o *mcp.ClientOptions) *mcp.ClientSession) {
	t.Helper()
	needNode(t)
	var url string
	if transport == "http" {
		url = startPeer(t, script, "http").listen(t)
	}
	return func(o *mcp.ClientOptions) *mcp.ClientSession {
		t.Helper()
		var tr mcp.Transport
		if transport == "http" {
			tr = &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), peerTimeout)
			t.Cleanup(cancel)
			tr = &mcp.CommandTransport{Command: exec.CommandContext(ctx, "node", script, "stdio")}
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "go-agent", Version: "1"}, o).Connect(t.Context(), tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
}

// texter returns a function giving a tool call's text; anything else fails t.
func texter(t *testing.T) func(*mcp.CallToolResult, error) string {
	return func(res *mcp.CallToolResult, err error) string { t.Helper(); return textOf(t, res, err) }
}

func textOf(t *testing.T, res *mcp.CallToolResult, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("result without content: %+v", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("result %+v", res)
	}
	return tc.Text
}

// inbox keeps the interrupts a forwarder was given.
type inbox struct {
	mu  sync.Mutex
	its []*hitl.Interrupt
}

func (b *inbox) forward(_ context.Context, it *hitl.Interrupt) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.its = append(b.its, it)
	return nil
}

func (b *inbox) all() []*hitl.Interrupt {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]*hitl.Interrupt(nil), b.its...)
}

// formIntact calls the server's form tool, which answers with what it received, and checks
// that profile arrived accepted and intact.
func formIntact(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	var got struct {
		Action  string
		Content map[string]any
	}
	if err := json.Unmarshal([]byte(texter(t)(cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "form"}))), &got); err != nil {
		t.Fatal(err)
	}
	if got.Action != "accept" || !reflect.DeepEqual(got.Content, profile) {
		t.Errorf("the server received %+v, want %v", got, profile)
	}
}

// profile is an answer to the TypeScript servers' profile form, one value of each type.
var profile = map[string]any{"name": "Ada", "email": "ada@example.org", "site": "https://example.org", "born": "1815-12-10",
	"at": "2026-11-24T07:00:00Z", "age": 36.0, "score": 0.5, "ok": true, "size": "m", "tier": "gold", "toppings": []any{"egg", "ham"}}

// TestTSServerElicitsFromGoClient: a TypeScript v1 server (protocol 2025-11-25) asks the Go
// client, over stdio and Streamable HTTP: a form of every field type is answered intact, an
// answer with a bad format is put back to the human with its problem and the good second
// answer sent, one that stays bad is refused as invalid params before it is sent, a URL elicitation
// is forwarded with its id, and a -32042 pause is kept in a store and retried from a new
// session.
func TestTSServerElicitsFromGoClient(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			connect := tsServer(t, "server_v1.mjs", transport)
			var (
				mu       sync.Mutex
				answer   map[string]any
				box      inbox
				firstBad map[string]any // the answer to round 1, when set
				problems []hitlmcp.Problem
			)
			ask := func(_ context.Context, f *hitlmcp.Form) (hitlmcp.Answer, error) {
				mu.Lock()
				defer mu.Unlock()
				if f.Message != "Your profile?" || !strings.Contains(string(f.Schema), `"date-time"`) {
					t.Errorf("asked %q %s", f.Message, f.Schema)
				}
				if f.Round == 1 && firstBad != nil {
					return hitlmcp.Answer{Action: "accept", Content: firstBad}, nil
				}
				problems = f.Problems
				return hitlmcp.Answer{Action: "accept", Content: answer}, nil
			}
			cs := connect(hitlmcp.ClientOptions(box.forward, ask))

			answer = profile
			formIntact(t, cs)

			bad := map[string]any{}
			for k, v := range profile {
				bad[k] = v
			}
			bad["email"] = "not-an-email"
			// A bad answer is put back to the human within the same elicitation/create; the
			// second, good answer is what the server receives.
			mu.Lock()
			firstBad = bad
			mu.Unlock()
			formIntact(t, cs)
			mu.Lock()
			if len(problems) != 1 || problems[0].Field != "email" || problems[0].Value != `"not-an-email"` {
				t.Errorf("put back with %+v, want the email's problem", problems)
			}
			firstBad = nil
			answer = bad
			mu.Unlock()
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "form"})
			if err == nil && (!res.IsError || !strings.Contains(textOf(t, res, nil), "-32602")) {
				t.Errorf("a bad email reached the server: %+v", res)
			}

			text := texter(t)(cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "url"}))
			if forwarded := box.all(); !strings.Contains(text, `"accept"`) || len(forwarded) != 1 || forwarded[0].ReviewURL() != "https://files.example/connect?s=1" || forwarded[0].ID() != "el-v1" {
				t.Errorf("url: %q, forwarded %v", text, forwarded)
			}

			if transport == "http" { // the -32042 page is done for the server process, not the session
				manual := &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}
				call := &mcp.CallToolParams{Name: "approve_first", Arguments: map[string]any{}}
				res, err := connect(manual).CallTool(t.Context(), call)
				it, perr := hitlmcp.Paused(call, res, err)
				if perr != nil || it.ReviewURL() != "https://deploy.example/approve/1" {
					t.Fatalf("Paused = %v, %v (%v)", it, perr, err)
				}
				store := &hitl.MemoryStore{}
				if err := store.Put(t.Context(), it); err != nil {
					t.Fatal(err)
				}
				kept, err := store.List(t.Context())
				if err != nil || len(kept) != 1 {
					t.Fatal(kept, err)
				}
				if text := texter(t)(hitlmcp.Retry(t.Context(), connect(manual), kept[0])); text != "deployed" {
					t.Errorf("retry after a restart = %q", text)
				}
			}
		})
	}
}

// TestTSServerV2AsksGoClient: a TypeScript v2 server (protocol 2026-07-28) asks with
// input_required results, over stdio and Streamable HTTP: the Go client forwards a URL input
// request (no elicitationId) with an id of its own and gets the result, answers a form,
// puts an answer that breaks the schema back to the human with every problem and sends the
// good second answer, refuses to send an answer whose date breaks its format, and two paused calls alike are
// kept apart in a store and both resumed from a new session.
func TestTSServerV2AsksGoClient(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			connect := tsServer(t, "server_v2.mjs", transport)
			var (
				box      inbox
				mu       sync.Mutex
				answer   = profile
				firstBad map[string]any // the answer to round 1, when set
				problems []hitlmcp.Problem
			)
			ask := func(_ context.Context, f *hitlmcp.Form) (hitlmcp.Answer, error) {
				mu.Lock()
				defer mu.Unlock()
				if f.Round == 1 && firstBad != nil {
					return hitlmcp.Answer{Action: "accept", Content: firstBad}, nil
				}
				problems = f.Problems
				return hitlmcp.Answer{Action: "accept", Content: answer}, nil
			}
			cs := connect(hitlmcp.ClientOptions(box.forward, ask))
			if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
				t.Errorf("negotiated %s", v)
			}
			text := texter(t)(cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "approve"}))
			if forwarded := box.all(); !strings.HasPrefix(text, "approved call-") || len(forwarded) != 1 || forwarded[0].ID() == "" ||
				!strings.HasPrefix(forwarded[0].ReviewURL(), "https://deploy.example/approve/call-") {
				t.Errorf("approve = %q, forwarded %v", text, forwarded)
			}
			formIntact(t, cs)

			bad := maps.Clone(profile)
			bad["born"] = "10/12/1815"
			delete(bad, "name")
			// A bad answer is put back to the human before the retry is sent; the second, good
			// answer is what the server receives.
			mu.Lock()
			firstBad = bad
			mu.Unlock()
			formIntact(t, cs)
			mu.Lock()
			if want := []hitlmcp.Problem{{Field: "name", Rule: "is required"}, {Field: "born", Rule: "must be a date like 2026-07-28 (RFC 3339)", Value: `"10/12/1815"`}}; !reflect.DeepEqual(problems, want) {
				t.Errorf("put back with %+v, want %+v", problems, want)
			}
			firstBad = nil
			answer = bad
			mu.Unlock()
			if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "form"}); !errors.Is(err, hitlmcp.ErrBadAnswer) {
				t.Errorf("a date not in RFC 3339 form: %+v, %v; want ErrBadAnswer before the retry is sent", res, err)
			}

			manual := hitlmcp.ClientOptions(box.forward, nil) // declares URL mode; the loop is ours
			manual.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
			store := &hitl.MemoryStore{}
			first := connect(manual)
			for range 2 {
				call := &mcp.CallToolParams{Name: "approve", Arguments: map[string]any{}}
				res, err := first.CallTool(t.Context(), call)
				it, perr := hitlmcp.Paused(call, res, err)
				if perr != nil {
					t.Fatalf("Paused = %v (%+v, %v)", perr, res, err)
				}
				if err := store.Put(t.Context(), it); err != nil {
					t.Fatal(err)
				}
			}
			kept, err := store.List(t.Context())
			if err != nil || len(kept) != 2 || kept[0].ID() == kept[1].ID() {
				t.Fatalf("the store keeps %v, %v; want two paused calls", kept, err)
			}
			again := connect(manual)
			resumed := map[string]bool{}
			for _, it := range kept {
				resumed[texter(t)(hitlmcp.Retry(t.Context(), again, it))] = true
			}
			if len(resumed) != 2 {
				t.Errorf("resumed %v, want two different calls", resumed)
			}
		})
	}
}
