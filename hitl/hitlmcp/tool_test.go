package hitlmcp_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
)

var secret = []byte("a-secret-of-at-least-thirty-two-bytes!")

// files is an MCP server with a delete_file tool whose backend (the fake HITL service)
// asks a person first; deleted counts the deletions the tool made.
type files struct {
	svc     *hitltest.Server
	deleted atomic.Int32
	tool    *hitlmcp.Tool
}

func newFiles(t *testing.T, svc *hitltest.Server) *files {
	t.Helper()
	c, err := hitl.NewClient(hitl.WithHTTPClient(svc.Client()), hitl.WithAllowLocalHTTP())
	if err != nil {
		t.Fatal(err)
	}
	f := &files{svc: svc}
	f.tool = &hitlmcp.Tool{Client: c, Secret: secret, Check: 200 * time.Millisecond,
		Call: func(ctx context.Context, _ *mcp.CallToolRequest) (*http.Request, error) {
			return http.NewRequestWithContext(ctx, http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{"delete":"/tmp/report.txt"}`))
		},
		Result: func(_ context.Context, _ *http.Response, r *hitl.Result) (*mcp.CallToolResult, error) {
			text := "not deleted: " + string(r.Status) + " " + r.Action
			if r.DecidedByHuman() && r.Action == "approve" {
				f.deleted.Add(1)
				text = "deleted"
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		}}
	return f
}

// session connects a go-sdk client to a server offering f's tool under name, in process.
func (f *files) session(t *testing.T, name string, o *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, f.tool.Handle)
	o.Capabilities = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}}
	return connect(t, server, mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, o))
}

func text(r *mcp.CallToolResult) string {
	if r == nil || len(r.Content) == 0 {
		return ""
	}
	if tc, ok := r.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// TestToolAsksAPerson: the tool's backend answers 202; the go-sdk client gets the review URL
// as a URL elicitation (forwarded by ElicitationHandler, where the person decides), retries
// with the sealed requestState, and gets the tool's result: deleted on approval, not on a
// rejection; a person who has not decided by the first retry is asked again.
func TestToolAsksAPerson(t *testing.T) {
	for _, tt := range []struct {
		name    string
		action  string
		after   time.Duration // when the person decides, after the link reached them
		want    string
		deleted int32
	}{
		{"approved", "approve", 0, "deleted", 1},
		{"rejected", "reject", 0, "not deleted: completed reject", 0},
		{"approved after a second", "approve", time.Second, "deleted", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFiles(t, hitltest.NewServer(t, hitltest.WithRetryAfter(time.Second)))
			var forwarded atomic.Int32
			forward := func(_ context.Context, it *hitl.Interrupt) error {
				if forwarded.Add(1) == 1 {
					if !strings.HasPrefix(it.Case.ReviewURL, f.svc.URL+"/review/") {
						t.Errorf("forwarded %q, want the case's review URL", it.Case.ReviewURL)
					}
					time.AfterFunc(tt.after, func() { _ = f.svc.Respond(it.ID(), tt.action, nil, nil) })
				}
				return nil
			}
			cs := f.session(t, "delete_file", &mcp.ClientOptions{ElicitationHandler: hitlmcp.ElicitationHandler(forward, nil)})
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_file"})
			if err != nil || text(res) != tt.want || f.deleted.Load() != tt.deleted {
				t.Fatalf("CallTool = %q, %v; deleted %d; want %q, %d", text(res), err, f.deleted.Load(), tt.want, tt.deleted)
			}
			if tt.after > 0 && forwarded.Load() < 2 {
				t.Errorf("forwarded %d times; a person who had not decided is asked again", forwarded.Load())
			}
		})
	}
}

// TestToolStateIsSealed: with the client's retry loop off, the input-required result carries
// the review URL and a requestState; a retry of another process's tool with the same secret
// (a restart, another replica) gets the decision; an altered state, or one sealed for
// another tool, is refused without polling the service.
func TestToolStateIsSealed(t *testing.T) {
	svc := hitltest.NewServer(t, hitltest.WithRetryAfter(time.Second))
	manual := &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}
	first := newFiles(t, svc).session(t, "delete_file", manual)
	res, err := first.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_file"})
	if err != nil || !res.NeedsInput() || res.RequestState == "" {
		t.Fatalf("first call = %+v, %v; want input required with a requestState", res, err)
	}
	review, ok := res.InputRequests["review"].(*mcp.ElicitParams)
	if !ok || review.Mode != "url" || !strings.HasPrefix(review.URL, svc.URL+"/review/") {
		t.Fatalf("input requests %+v", res.InputRequests)
	}
	state := res.RequestState

	polls := func() int {
		n := 0
		for _, q := range svc.Requests() {
			if strings.HasSuffix(q.Path, "/status") {
				n++
			}
		}
		return n
	}
	after := newFiles(t, svc)
	for _, bad := range []struct{ name, tool, state string }{
		{"altered", "delete_file", "x" + state},
		{"truncated", "delete_file", state[:len(state)-4]},
		{"another tool's", "empty_trash", state},
	} {
		before := polls()
		res, err := after.session(t, bad.tool, manual).CallTool(t.Context(), &mcp.CallToolParams{Name: bad.tool, RequestState: bad.state})
		if (err == nil && !res.IsError) || polls() != before {
			t.Errorf("%s state: %+v, %v, %d polls; want a refusal and no poll", bad.name, res, err, polls()-before)
		}
		if err == nil && !strings.Contains(text(res), hitlmcp.ErrBadState.Error()) {
			t.Errorf("%s state: %q, want %v", bad.name, text(res), hitlmcp.ErrBadState)
		}
	}

	if err := svc.Respond(review.ElicitationID, "approve", nil, nil); err != nil {
		t.Fatal(err)
	}
	// The client retries as MCP says, echoing the state, until the result is complete: the
	// first poll waits for the 202's Retry-After (1 s), longer than a retry's Check.
	cs := after.session(t, "delete_file", manual)
	for try := 1; ; try++ {
		res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_file", RequestState: state,
			InputResponses: mcp.InputResponseMap{"review": &mcp.ElicitResult{Action: "accept"}}})
		if err != nil || !res.NeedsInput() || try == 20 {
			break
		}
		state = res.RequestState
	}
	if err != nil || text(res) != "deleted" || after.deleted.Load() != 1 {
		t.Fatalf("retry on another process = %q, %v", text(res), err)
	}
}
