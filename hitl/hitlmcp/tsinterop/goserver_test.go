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
			if r.Approved() {
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
		// "stateful" and "stateless" choose; "http" takes the one the client's revision needs.
		o := &mcp.StreamableHTTPOptions{Stateless: transport == "stateless" || transport == "http" && (sdk == "v2" || sdk == "v2-form")}
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
// first is refused as invalid params, and the file is deleted once. Two paused calls with
// other arguments are kept apart: approving the second does not complete the first.
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

// cases counts the cases the tool opened (its backend calls).
func (g *goTool) cases() int {
	n := 0
	for _, q := range g.svc.Requests() {
		if q.Method == http.MethodPost && strings.HasPrefix(q.Path, "/actions/") {
			n++
		}
	}
	return n
}

// TestTSClientURLOnlyWhereDeclared: a TypeScript v2 client on 2026-07-28 that declares form
// elicitation only is never sent the review link as a URL input request; within Check it
// gets an isError result naming the link, as 2025-11-25 clients do, and nothing is deleted.
func TestTSClientURLOnlyWhereDeclared(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			g := newGoTool(t)
			g.person(t, -1)
			events := g.runClient(t, "v2-form", transport, "call")
			if v, _ := event(events, "protocol"); v != "2026-07-28" {
				t.Errorf("negotiated %v", v)
			}
			if el, ok := event(events, "elicit"); ok {
				t.Errorf("a client without URL elicitation was sent %v", el)
			}
			text, isError := result(t, callEvent(t, events))
			if !isError || !strings.Contains(text, g.svc.URL+"/review/") || g.deleted.Load() != 0 {
				t.Fatalf("result %q (isError %v), want an isError result naming the review link", text, isError)
			}
		})
	}
}

// TestTSClientRepeatJoins: a TypeScript client whose call was answered "not done" calls the
// same tool with the same arguments again: the repeat joins the open case, so the person's
// approval, given after the first "not done", deletes the file once and no second case is
// opened — on 2025-11-25 (v1, v2 at its defaults) and on 2026-07-28 with a client that
// declares no URL elicitation.
func TestTSClientRepeatJoins(t *testing.T) {
	for _, r := range []struct{ sdk, transport string }{
		{"v1", "stdio"}, {"v1", "http"}, {"v2-default", "http"}, {"v2-form", "stdio"}, {"v2-form", "http"},
	} {
		t.Run(r.sdk+" "+r.transport, func(t *testing.T) {
			t.Parallel()
			g := newGoTool(t)
			g.person(t, check+check/2) // after the first "not done"
			events := g.runClient(t, r.sdk, r.transport, "again")
			v, _ := event(events, "again")
			calls, _ := v.([]any)
			if len(calls) < 2 {
				t.Fatalf("calls %v, want a first \"not done\" and a repeat", v)
			}
			first, isError := result(t, calls[0])
			if !isError || !strings.Contains(first, "Not done") {
				t.Errorf("the first call: %q (isError %v)", first, isError)
			}
			last, isError := result(t, calls[len(calls)-1])
			if last != "deleted" || isError || g.deleted.Load() != 1 || g.cases() != 1 {
				t.Fatalf("the last repeat: %q (isError %v); deleted %d, %d cases; want the first case's approval, once", last, isError, g.deleted.Load(), g.cases())
			}
		})
	}
}

// TestTSClientProgress: a TypeScript client that asks for progress hears, while the call
// waits for the person, notifications/progress with a rising progress and no review link —
// on 2025-11-25 (v1) and 2026-07-28 (v2) — and then the tool's result.
func TestTSClientProgress(t *testing.T) {
	for _, r := range []struct{ sdk, transport string }{{"v1", "stdio"}, {"v1", "http"}, {"v2", "stdio"}, {"v2", "http"}} {
		t.Run(r.sdk+" "+r.transport, func(t *testing.T) {
			t.Parallel()
			g := newGoTool(t)
			g.person(t, 2*time.Second)
			events := g.runClient(t, r.sdk, r.transport, "progress")
			e := callEvent(t, events)
			if text, isError := result(t, e); text != "deleted" || isError {
				t.Fatalf("result %q (isError %v)", text, isError)
			}
			all, _ := e["progress"].([]any)
			var progress []any
			last := 0.0
			for _, p := range all {
				n, _ := p.(map[string]any)["progress"].(float64)
				msg, _ := p.(map[string]any)["message"].(string)
				if strings.HasPrefix(msg, "Fulfilling input required") {
					continue // the v2 client's own, for its retry rounds
				}
				progress = append(progress, p)
				if n <= last || strings.Contains(msg, "http") || !strings.Contains(msg, "waiting") {
					t.Errorf("progress %v after %v", p, last)
				}
				last = n
			}
			if len(progress) == 0 {
				t.Errorf("no progress while the call waited")
			}
		})
	}
}

// TestHandlerChoice holds what hitlmcp's README says about handlers: which go-sdk Streamable
// HTTP handler serves which TypeScript client, the person approving at once. The stateful
// handler (sessions) speaks 2025-11-25 only — a v2 client asking for 2026-07-28 falls back
// to it — and sends the link as elicitation/create; the stateless one speaks 2026-07-28 with
// the client that asks for it (the link as an input request), and serves 2025-11-25 clients
// without any elicitation (undecided within Check, they get the link in an isError result).
func TestHandlerChoice(t *testing.T) {
	for _, tt := range []struct {
		sdk, handler string
		protocol     string // negotiated
		elicited     bool   // the link came as an elicitation or input request
		deleted      bool   // the call returned the tool's result
	}{
		{"v1", "stateful", "2025-11-25", true, true},
		{"v2-default", "stateful", "2025-11-25", true, true},
		{"v2", "stateful", "2025-11-25", true, true},
		{"v1", "stateless", "2025-11-25", false, true},
		{"v2-default", "stateless", "2025-11-25", false, true},
		{"v2", "stateless", "2026-07-28", true, true},
	} {
		t.Run(tt.sdk+" "+tt.handler, func(t *testing.T) {
			t.Parallel()
			g := newGoTool(t)
			g.person(t, 0)
			events := g.runClient(t, tt.sdk, tt.handler, "call")
			v, _ := event(events, "protocol")
			_, elicited := event(events, "elicit")
			text, isError := result(t, callEvent(t, events))
			if v != tt.protocol || elicited != tt.elicited || (text == "deleted" && !isError) != tt.deleted {
				t.Errorf("protocol %v, elicited %v, result %q (isError %v); want %s, %v, deleted %v", v, elicited, text, isError, tt.protocol, tt.elicited, tt.deleted)
			}
		})
	}
}
