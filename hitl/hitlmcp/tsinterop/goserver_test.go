package tsinterop_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// check is the Go tool's Check in these tests: the fake service's first poll is after 1 s,
// and the rest is room for a busy machine.
const check = 3 * time.Second

// goTool is a Go MCP server whose delete_file tool (a hitlmcp.Tool) asks a person through
// the fake HITL service svc; deleted counts the deletions.
type goTool struct {
	svc     *hitltest.Server
	server  *mcp.Server
	deleted atomic.Int32
}

func newGoTool(t *testing.T) *goTool {
	t.Helper()
	svc := hitltest.NewServer(t)
	c, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses())
	if err != nil {
		t.Fatal(err)
	}
	g := &goTool{svc: svc, server: mcp.NewServer(&mcp.Implementation{Name: "go-files", Version: "1"}, nil)}
	tool := &hitlmcp.Tool{Client: c, Secret: []byte("a-secret-of-at-least-thirty-two-bytes!"), Check: check,
		Call: func(ctx context.Context, _ *mcp.CallToolRequest) (*http.Request, error) {
			return http.NewRequestWithContext(ctx, http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{"delete":"/tmp/report.txt"}`))
		},
		Result: func(_ context.Context, _ *http.Response, r *transport.Result) (*mcp.CallToolResult, error) {
			if r.Decision != "" && r.Action == "approve" {
				g.deleted.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted"}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "not deleted: " + r.Action}}}, nil
		}}
	g.server.AddTool(&mcp.Tool{Name: "delete_file", InputSchema: map[string]any{"type": "object"}}, tool.Handle)
	return g
}

// person decides the cases the tool opens, in order: decide[i] is how long after the i-th
// case opened the person approves it, or negative for never.
func (g *goTool) person(t *testing.T, decide ...time.Duration) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	t.Cleanup(func() { close(done); <-stopped })
	go func() {
		defer close(stopped)
		for _, d := range decide {
			id := g.svc.NextCase(done)
			if id == "" {
				return
			}
			if d < 0 {
				continue
			}
			go func() {
				select {
				case <-time.After(d):
					_ = g.svc.Respond(id, "approve", nil, nil)
				case <-done:
				}
			}()
		}
	}()
}

// runClient runs the TypeScript client script against g over transport ("stdio", "http",
// or "stateless" HTTP) and returns its events once it has finished.
func (g *goTool) runClient(t *testing.T, sdk, transport, scenario string) []map[string]any {
	t.Helper()
	needNode(t)
	if transport != "stdio" {
		// go-sdk serves 2026-07-28 over Streamable HTTP only without sessions, and
		// elicitation/create (2025-11-25) only with them.
		o := &mcp.StreamableHTTPOptions{Stateless: sdk == "v2" || transport == "stateless"}
		hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return g.server }, o))
		defer hs.Close()
		p := startPeer(t, "client.mjs", sdk, hs.URL, scenario)
		p.wait(t)
		for ss := range g.server.Sessions() {
			_ = ss.Close()
		}
		return p.events(t)
	}
	p := startPeer(t, "client.mjs", sdk, "stdio", scenario)
	ss, err := g.server.Connect(t.Context(), &mcp.IOTransport{Reader: p.stdout, Writer: p.stdin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.wait(t)
	_ = ss.Wait()
	return p.events(t)
}

// result is the text of a call's result in an event, and whether it is an error.
func result(t *testing.T, v any) (text string, isError bool) {
	t.Helper()
	e, _ := v.(map[string]any)
	r, ok := e["result"].(map[string]any)
	if !ok {
		t.Fatalf("no result in %v", v)
	}
	if c, _ := r["content"].([]any); len(c) > 0 {
		text, _ = c[0].(map[string]any)["text"].(string)
	}
	isError, _ = r["isError"].(bool)
	return text, isError
}

func callEvent(t *testing.T, events []map[string]any) map[string]any {
	t.Helper()
	for _, e := range events {
		if _, ok := e["result"]; ok {
			return e
		}
		if _, ok := e["error"]; ok {
			return e
		}
	}
	t.Fatalf("no call in %v", events)
	return nil
}

// TestTSClientV1CallsGoTool: a TypeScript v1 client (2025-11-25) calls hitlmcp.Tool over
// stdio and Streamable HTTP; the review link arrives as a URL elicitation with an id; a
// person who decides within Check gives the tool's result after
// notifications/elicitation/complete, and one who takes longer gives an isError result
// naming the link — never an empty success. The same for a v2 client at its defaults; on a
// server without sessions (no elicitation/create) the link arrives in the isError result.
func TestTSClientV1CallsGoTool(t *testing.T) {
	type run struct {
		sdk, transport string
		quick          bool
	}
	runs := []run{{"v2-default", "http", false}, {"v1", "stateless", false}}
	for _, transport := range []string{"stdio", "http"} {
		runs = append(runs, run{"v1", transport, true}, run{"v1", transport, false})
	}
	for _, r := range runs {
		transport, quick := r.transport, r.quick
		t.Run(fmt.Sprintf("%s %s quick=%v", r.sdk, transport, quick), func(t *testing.T) {
			t.Parallel()
			g := newGoTool(t)
			if quick {
				g.person(t, 0)
			} else {
				g.person(t, 2*check)
			}
			events := g.runClient(t, r.sdk, transport, "call")
			if v, _ := event(events, "protocol"); transport == "http" && v != "2025-11-25" {
				t.Errorf("negotiated %v", v)
			}
			el, ok := event(events, "elicit")
			params, _ := el.(map[string]any)
			id, _ := params["elicitationId"].(string)
			if transport == "stateless" {
				if ok {
					t.Errorf("elicited %v without a session", el)
				}
			} else if !ok || params["mode"] != "url" || id == "" || !strings.HasPrefix(params["url"].(string), g.svc.URL+"/review/") {
				t.Fatalf("elicitation %v", el)
			}
			text, isError := result(t, callEvent(t, events))
			if quick {
				if text != "deleted" || isError || g.deleted.Load() != 1 {
					t.Fatalf("result %q (isError %v), deleted %d", text, isError, g.deleted.Load())
				}
				if c, _ := event(events, "complete"); c != id {
					t.Errorf("completion %v, want %q", c, id)
				}
				return
			}
			if !isError || !strings.Contains(text, g.svc.URL+"/review/") || g.deleted.Load() != 0 {
				t.Fatalf("result %q (isError %v), want an isError result naming the review link", text, isError)
			}
		})
	}
}

// TestTSClientV2CallsGoTool: a TypeScript v2 client with versionNegotiation 'auto' speaks
// 2026-07-28 with hitlmcp.Tool over stdio and Streamable HTTP; a person who takes longer
// than Check is asked about again, the client retries with requestState, and the tool
// deletes once.
func TestTSClientV2CallsGoTool(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			g := newGoTool(t)
			g.person(t, 2*check)
			events := g.runClient(t, "v2", transport, "call")
			if v, _ := event(events, "protocol"); v != "2026-07-28" {
				t.Errorf("negotiated %v", v)
			}
			el, _ := event(events, "elicit")
			params, _ := el.(map[string]any)
			if _, has := params["elicitationId"]; has || params["mode"] != "url" {
				t.Errorf("input request %v: want URL mode without elicitationId", el)
			}
			text, isError := result(t, callEvent(t, events))
			if text != "deleted" || isError || g.deleted.Load() != 1 {
				t.Fatalf("result %q (isError %v), deleted %d", text, isError, g.deleted.Load())
			}
		})
	}
}

// TestTSClientV2Replay: a TypeScript v2 client on 2026-07-28 runs the rounds by hand, over
// stdio and Streamable HTTP; once the tool has deleted, a replay of its last state or of its
// first is refused as invalid params, and the file is deleted once. Two paused calls are kept
// apart: approving the second does not complete the first.
func TestTSClientV2Replay(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run("replay "+transport, func(t *testing.T) {
			t.Parallel()
			g := newGoTool(t)
			g.person(t, 0)
			events := g.runClient(t, "v2", transport, "replay")
			if text, _ := result(t, callEvent(t, events)); text != "deleted" {
				t.Fatalf("result %q", text)
			}
			for _, key := range []string{"replay", "replayFirst"} {
				v, _ := event(events, key)
				e, _ := v.(map[string]any)["error"].(map[string]any)
				if code, _ := e["code"].(float64); code != -32602 || !strings.Contains(fmt.Sprint(e["message"]), "already returned") {
					t.Errorf("%s: %v, want invalid params (-32602)", key, v)
				}
			}
			if g.deleted.Load() != 1 {
				t.Errorf("deleted %d times", g.deleted.Load())
			}
		})
		t.Run("two paused calls "+transport, func(t *testing.T) {
			t.Parallel()
			g := newGoTool(t)
			g.person(t, -1, 0)
			events := g.runClient(t, "v2", transport, "two")
			second, _ := event(events, "second")
			if text, _ := result(t, map[string]any{"result": second.(map[string]any)["result"]}); text != "deleted" {
				t.Errorf("the second call: %v", second)
			}
			first, _ := event(events, "first")
			r, _ := first.(map[string]any)["result"].(map[string]any)
			if r["resultType"] != "input_required" || g.deleted.Load() != 1 {
				t.Errorf("the first call, not approved: %v; deleted %d", first, g.deleted.Load())
			}
		})
	}
}
