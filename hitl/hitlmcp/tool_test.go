package hitlmcp_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

var secret = []byte("a-secret-of-at-least-thirty-two-bytes!")

// files is an MCP server with a delete_file tool whose backend (the fake HITL service)
// asks a person first; deleted counts the deletions the tool made.
type files struct {
	svc     *hitltest.Server
	deleted atomic.Int32
	tool    *hitlmcp.Tool
}

// newFiles is the tool over svc, with a Check of check.
func newFiles(t *testing.T, svc *hitltest.Server, check time.Duration) *files {
	t.Helper()
	c, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses())
	if err != nil {
		t.Fatal(err)
	}
	f := &files{svc: svc}
	f.tool = &hitlmcp.Tool{Client: c, Secret: secret, Check: check,
		Call: func(ctx context.Context, _ *mcp.CallToolRequest) (*http.Request, error) {
			return http.NewRequestWithContext(ctx, http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{"delete":"/tmp/report.txt"}`))
		},
		Result: func(_ context.Context, _ *http.Response, r *transport.Result) (*mcp.CallToolResult, error) {
			text := "not deleted: " + string(r.Status) + " " + r.Action
			if r.Approved() {
				f.deleted.Add(1)
				text = "deleted"
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		}}
	return f
}

// session connects a go-sdk client with options o to a server offering f's tool under
// name, in process, at protocol revision rev ("" for the latest).
func (f *files) session(t *testing.T, name, rev string, o *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, f.tool.Handle)
	return connectAt(t, server, mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, o), rev)
}

// manualURL is a client that declares URL elicitation and runs 2026-07-28's rounds itself
// (its automatic retry loop off).
func manualURL() *mcp.ClientOptions {
	o := hitlmcp.ClientOptions(func(context.Context, *hitl.Interrupt) error { return nil }, nil)
	o.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	return o
}

// caseOf is the case id in a fake service's review URL (…/review/{id}?token=…).
func caseOf(t *testing.T, reviewURL string) string {
	t.Helper()
	u, err := url.Parse(reviewURL)
	if err != nil || !strings.HasPrefix(u.Path, "/review/") {
		t.Fatalf("review URL %q", reviewURL)
	}
	return strings.TrimPrefix(u.Path, "/review/")
}

// text is r's text contents, one a line.
func text(r *mcp.CallToolResult) string {
	if r == nil {
		return ""
	}
	var texts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// TestToolAsksAPerson: the tool's backend answers 202; the go-sdk client gets the review URL
// as a URL elicitation (forwarded by ElicitationHandler, where the person decides), retries
// with the sealed requestState, and gets the tool's result: deleted on approval, not on a
// rejection; a person who has not decided by the first retry is not sent the link again.
func TestToolAsksAPerson(t *testing.T) {
	for _, tt := range []struct {
		name    string
		action  string
		after   time.Duration // when the person decides, after the link reached them
		want    string
		deleted int32
	}{
		{"approved", "approve", 0, "deleted", 1},
		{"rejected", "reject", 0, "Not done: the person rejected delete_file.\nnot deleted: completed reject", 0},
		{"approved after a second", "approve", time.Second, "deleted", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFiles(t, hitltest.NewServer(t, hitltest.WithRetryAfter(time.Second)), 500*time.Millisecond)
			var forwarded atomic.Int32
			forward := func(_ context.Context, it *hitl.Interrupt) error {
				if forwarded.Add(1) == 1 {
					if !strings.HasPrefix(it.Case.ReviewURL, f.svc.URL+"/review/") || it.ID() == "" {
						t.Errorf("forwarded %q (id %q), want the case's review URL", it.Case.ReviewURL, it.ID())
					}
					id := caseOf(t, it.Case.ReviewURL)
					time.AfterFunc(tt.after, func() { _ = f.svc.Respond(id, tt.action, nil, nil) })
				}
				return nil
			}
			cs := f.session(t, "delete_file", "", hitlmcp.ClientOptions(forward, nil))
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_file"})
			if err != nil || text(res) != tt.want || f.deleted.Load() != tt.deleted {
				t.Fatalf("CallTool = %q, %v; deleted %d; want %q, %d", text(res), err, f.deleted.Load(), tt.want, tt.deleted)
			}
			if forwarded.Load() != 1 {
				t.Errorf("forwarded %d times; the link goes to the person once, whatever the retries", forwarded.Load())
			}
		})
	}
}

// TestToolOnEveryRevision: on every revision a session negotiates, a tool call that needs a
// person returns the person's result, or a result the revision reads as "not done" — an
// input-required result on 2026-07-28, an isError result naming the review link below —
// never an empty success. On 2025-11-25 the link goes out as a URL elicitation, and the
// client hears notifications/elicitation/complete for it when the person has decided.
func TestToolOnEveryRevision(t *testing.T) {
	const check = 3 * time.Second // the fake service's first poll is after 1 s; the rest is room for a busy machine
	for _, tt := range []struct {
		rev      string
		urlMode  bool // the client declares URL-mode elicitation
		elicited bool // the link reaches the client as an elicitation
	}{
		{"2026-07-28", true, true},
		{"2025-11-25", true, true},
		{"2025-11-25", false, false},
		{"2025-06-18", false, false},
		{"2025-03-26", false, false},
	} {
		for _, quick := range []bool{true, false} {
			if tt.rev == "2026-07-28" && !quick {
				continue // the client retries on its own until it gives up; see "2026-07-28 paused"
			}
			name := tt.rev
			if !tt.urlMode {
				name += " form only"
			}
			if quick {
				name += " decided within Check"
			} else {
				name += " undecided"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				f := newFiles(t, hitltest.NewServer(t), check)
				done := make(chan struct{})
				defer close(done)
				if quick {
					go func() {
						if id := f.svc.NextCase(done); id != "" {
							_ = f.svc.Respond(id, "approve", nil, nil)
						}
					}()
				}
				var elicited []string
				completed := make(chan string, 1)
				forward := func(_ context.Context, it *hitl.Interrupt) error {
					elicited = append(elicited, it.ID())
					return nil
				}
				o := hitlmcp.ClientOptions(forward, func(context.Context, *hitlmcp.Form) (hitlmcp.Answer, error) {
					return hitlmcp.Answer{Action: "decline"}, nil
				})
				if !tt.urlMode {
					o.Capabilities.Elicitation.URL = nil
				}
				o.ElicitationCompleteHandler = func(_ context.Context, n *mcp.ElicitationCompleteNotificationRequest) {
					completed <- n.Params.ElicitationID
				}
				res, err := f.session(t, "delete_file", tt.rev, o).CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_file"})
				if err != nil {
					t.Fatal(err)
				}
				if !res.IsError && len(res.Content) == 0 {
					t.Fatalf("an empty success: %+v", res)
				}
				if (len(elicited) > 0) != tt.elicited {
					t.Errorf("elicited %v, want an elicitation: %v", elicited, tt.elicited)
				}
				if quick {
					if text(res) != "deleted" || f.deleted.Load() != 1 {
						t.Fatalf("CallTool = %+v (%q), want the tool's result", res, text(res))
					}
					if tt.rev == "2025-11-25" && tt.urlMode {
						select {
						case id := <-completed:
							if id != elicited[0] {
								t.Errorf("completion for %q, elicited %q", id, elicited[0])
							}
						case <-time.After(5 * time.Second):
							t.Error("no notifications/elicitation/complete")
						}
					}
					return
				}
				if !res.IsError || !strings.Contains(text(res), f.svc.URL+"/review/") || f.deleted.Load() != 0 {
					t.Fatalf("CallTool = %+v (%q), want an isError result naming the review link", res, text(res))
				}
			})
		}
	}
	t.Run("2026-07-28 paused", func(t *testing.T) {
		t.Parallel()
		f := newFiles(t, hitltest.NewServer(t), check)
		manual := manualURL()
		res, err := f.session(t, "delete_file", "", manual).CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_file"})
		review, _ := res.InputRequests["review"].(*mcp.ElicitParams)
		if err != nil || !res.NeedsInput() || review == nil || review.ElicitationID != "" || !strings.HasPrefix(review.URL, f.svc.URL+"/review/") {
			t.Fatalf("CallTool = %+v, %v; want input required, a URL input request without an elicitationId", res, err)
		}
	})
}

// TestToolStateIsSealed: with the client's retry loop off, the input-required result carries
// the review URL and a requestState that shows nothing of the case; a retry on another
// process's tool with the same secret and ledger (a restart, another replica) gets the
// decision, once; an altered state, one sealed for another tool, other arguments or another
// caller, and a replay are refused as invalid params without polling the service.
func TestToolStateIsSealed(t *testing.T) {
	svc := hitltest.NewServer(t, hitltest.WithRetryAfter(time.Second))
	manual := manualURL()
	first := newFiles(t, svc, 200*time.Millisecond)
	ledger := &hitlmcp.MemoryLedger{}
	first.tool.Ledger = ledger
	args := map[string]any{"path": "/tmp/report.txt"}
	res, err := first.session(t, "delete_file", "", manual).CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_file", Arguments: args})
	if err != nil || !res.NeedsInput() || res.RequestState == "" {
		t.Fatalf("first call = %+v, %v; want input required with a requestState", res, err)
	}
	review, ok := res.InputRequests["review"].(*mcp.ElicitParams)
	if !ok || review.Mode != "url" || !strings.HasPrefix(review.URL, svc.URL+"/review/") {
		t.Fatalf("input requests %+v", res.InputRequests)
	}
	state := res.RequestState
	id := caseOf(t, review.URL)
	body, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(state, "v1."))
	if err != nil {
		t.Fatalf("requestState %q: %v", state, err)
	}
	for _, secret := range []string{id, "/status", "token", "http", "poll"} {
		if strings.Contains(string(body), secret) || strings.Contains(state, secret) {
			t.Errorf("the requestState shows %q", secret)
		}
	}

	polls := func() int {
		n := 0
		for _, q := range svc.Requests() {
			if strings.HasSuffix(q.Path, "/status") {
				n++
			}
		}
		return n
	}
	after := newFiles(t, svc, 200*time.Millisecond)
	after.tool.Ledger = ledger
	refused := func(t *testing.T, what string, call func() (*mcp.CallToolResult, error), want error) {
		t.Helper()
		before := polls()
		res, err := call()
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpc.Message, want.Error()) || polls() != before {
			t.Errorf("%s: %+v, %v, %d polls; want invalid params (-32602) %q and no poll", what, res, err, polls()-before, want)
		}
	}
	for _, bad := range []struct {
		name, tool, state string
		args              any
	}{
		{"altered", "delete_file", "x" + state, args},
		{"truncated", "delete_file", state[:len(state)-4], args},
		{"another tool's", "empty_trash", state, args},
		{"other arguments", "delete_file", state, map[string]any{"path": "/etc/passwd"}},
		{"no arguments", "delete_file", state, nil},
	} {
		cs := after.session(t, bad.tool, "", manual)
		refused(t, bad.name+" state", func() (*mcp.CallToolResult, error) {
			return cs.CallTool(t.Context(), &mcp.CallToolParams{Name: bad.tool, Arguments: bad.args, RequestState: bad.state})
		}, hitlmcp.ErrBadState)
	}
	// The transport's authenticated user is the caller: another user's retry is refused.
	_, err = after.tool.Handle(t.Context(), &mcp.CallToolRequest{
		Params: &mcp.CallToolParamsRaw{Name: "delete_file", Arguments: []byte(`{"path":"/tmp/report.txt"}`), RequestState: state},
		Extra:  &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: "mallory", Expiration: time.Now().Add(time.Hour)}}})
	if !errors.Is(err, hitlmcp.ErrBadState) {
		t.Errorf("another caller's retry: %v, want ErrBadState", err)
	}

	if err := svc.Respond(id, "approve", nil, nil); err != nil {
		t.Fatal(err)
	}
	// The client retries as MCP says, echoing the state (its arguments re-encoded), until
	// the result is complete: the first poll waits for the 202's Retry-After (1 s), longer
	// than a retry's Check.
	cs := after.session(t, "delete_file", "", manual)
	states := []string{state}
	for try := 1; ; try++ {
		res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_file", Arguments: json.RawMessage(`{ "path" : "/tmp/report.txt" }`),
			RequestState: states[len(states)-1], InputResponses: mcp.InputResponseMap{"review": &mcp.ElicitResult{Action: "accept"}}})
		if err != nil || !res.NeedsInput() || try == 20 {
			break
		}
		states = append(states, res.RequestState)
	}
	if err != nil || text(res) != "deleted" || after.deleted.Load() != 1 {
		t.Fatalf("retry on another process = %q, %v", text(res), err)
	}
	if len(states) < 2 {
		t.Fatalf("asked again %d times, want at least once", len(states)-1)
	}
	// One approval, one deletion: every state of the call is spent, on either process.
	for i, s := range states {
		for _, f := range []*files{first, after} {
			cs := f.session(t, "delete_file", "", manual)
			refused(t, "a replay", func() (*mcp.CallToolResult, error) {
				return cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_file", Arguments: args, RequestState: s})
			}, hitlmcp.ErrReplayed)
		}
		_, err := after.tool.Handle(t.Context(), &mcp.CallToolRequest{
			Params: &mcp.CallToolParamsRaw{Name: "delete_file", Arguments: []byte(`{"path":"/tmp/report.txt"}`), RequestState: s}})
		if !errors.Is(err, hitlmcp.ErrReplayed) {
			t.Errorf("state %d replayed: %v, want ErrReplayed", i, err)
		}
	}
	if n := after.deleted.Load() + first.deleted.Load(); n != 1 {
		t.Errorf("deleted %d times", n)
	}
}

// TestToolCaseExpires: a case that expires while the client retries is the person's Result
// (expired, the default applied), returned once like a decision.
func TestToolCaseExpires(t *testing.T) {
	f := newFiles(t, hitltest.NewServer(t, hitltest.WithCaseLifetime(2*time.Second)), time.Second)
	cs := f.session(t, "delete_file", "", hitlmcp.ClientOptions(func(context.Context, *hitl.Interrupt) error { return nil }, nil))
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_file"})
	if err != nil || !strings.HasPrefix(text(res), "Not done: the review of delete_file expired before the person decided; the default the service applied is not the person's approval.\nnot deleted: expired") || f.deleted.Load() != 0 {
		t.Fatalf("CallTool = %q, %v; want the expired case's result", text(res), err)
	}
}

// TestToolLinkDeclined: a client that declines to show the review link gets an isError
// result naming it at once, on 2026-07-28 and on 2025-11-25; nothing is deleted.
func TestToolLinkDeclined(t *testing.T) {
	for _, rev := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(rev, func(t *testing.T) {
			t.Parallel()
			f := newFiles(t, hitltest.NewServer(t), time.Minute)
			o := hitlmcp.ClientOptions(func(context.Context, *hitl.Interrupt) error { return nil }, nil)
			o.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			start := time.Now()
			res, err := f.session(t, "delete_file", rev, o).CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_file"})
			if err != nil || !res.IsError || !strings.Contains(text(res), "declined") || !strings.Contains(text(res), f.svc.URL+"/review/") {
				t.Fatalf("CallTool = %+v (%q), %v; want an isError result naming the link", res, text(res), err)
			}
			if time.Since(start) > 30*time.Second || f.deleted.Load() != 0 {
				t.Errorf("took %v, deleted %d", time.Since(start), f.deleted.Load())
			}
		})
	}
}

// TestToolFailures: a backend that cannot be reached is a tool execution error, an isError
// result the model reads; a Tool without its required fields is internal error (-32603).
func TestToolFailures(t *testing.T) {
	svc := hitltest.NewServer(t)
	f := newFiles(t, svc, time.Second)
	cs := f.session(t, "delete_file", "", hitlmcp.ClientOptions(func(context.Context, *hitl.Interrupt) error { return nil }, nil))
	svc.Close()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_file"})
	if err != nil || !res.IsError || text(res) == "" {
		t.Errorf("an unreachable backend: %+v (%q), %v; want an isError result", res, text(res), err)
	}

	server := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "delete_file", InputSchema: map[string]any{"type": "object"}}, (&hitlmcp.Tool{}).Handle)
	_, err = connect(t, server, mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)).CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_file"})
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInternalError || !strings.Contains(rpc.Message, "Secret") {
		t.Errorf("an empty Tool: %#v, want internal error (-32603)", err)
	}
}

// TestToolURLOnlyWhereDeclared: a client that did not declare URL elicitation — one with a
// form handler only, one with no elicitation handler — is never sent the review link as an
// elicitation or input request, on 2026-07-28 as on 2025-11-25: within Check it gets an
// isError result naming the link, and nothing is deleted.
func TestToolURLOnlyWhereDeclared(t *testing.T) {
	form := func(context.Context, *hitlmcp.Form) (hitlmcp.Answer, error) {
		t.Error("a form was asked")
		return hitlmcp.Answer{Action: "decline"}, nil
	}
	for _, rev := range []string{"2026-07-28", "2025-11-25"} {
		for name, o := range map[string]*mcp.ClientOptions{
			"form only": hitlmcp.ClientOptions(nil, form),
			"none":      {},
		} {
			t.Run(rev+" "+name, func(t *testing.T) {
				t.Parallel()
				f := newFiles(t, hitltest.NewServer(t), 500*time.Millisecond)
				o.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					t.Errorf("elicited %+v", req.Params)
					return &mcp.ElicitResult{Action: "accept"}, nil
				}
				if name == "none" {
					o.ElicitationHandler = nil
				}
				res, err := f.session(t, "delete_file", rev, o).CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_file"})
				if err != nil || !res.IsError || res.NeedsInput() || !strings.Contains(text(res), f.svc.URL+"/review/") || f.deleted.Load() != 0 {
					t.Fatalf("CallTool = %+v (%q), %v; want an isError result naming the link", res, text(res), err)
				}
			})
		}
	}
}

// TestToolRepeatJoins: the same call (tool, arguments, caller) made again while its case is
// open joins that case: an approval given after the first "not done" deletes once, and no
// second case opens; a call with other arguments or from another caller opens its own; once
// the outcome is returned, the same call again opens a new case. On 2026-07-28 a repeat of a
// paused call gets a requestState of the same call, so the approval is spent once.
func TestToolRepeatJoins(t *testing.T) {
	opened := func(svc *hitltest.Server) int {
		n := 0
		for _, q := range svc.Requests() {
			if q.Method == http.MethodPost {
				n++
			}
		}
		return n
	}
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(rev+" not done", func(t *testing.T) {
			t.Parallel()
			svc := hitltest.NewServer(t)
			f := newFiles(t, svc, 300*time.Millisecond)
			cs := f.session(t, "delete_file", rev, &mcp.ClientOptions{}) // no URL elicitation
			call := func(path string) *mcp.CallToolResult {
				t.Helper()
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": path}})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			first := call("/tmp/report.txt")
			if !first.IsError || !strings.Contains(text(first), "Not done") {
				t.Fatalf("first call = %q, want not done", text(first))
			}
			if res := call("/tmp/other.txt"); !res.IsError || opened(svc) != 2 {
				t.Fatalf("other arguments = %q, %d cases; want a case of their own", text(res), opened(svc))
			}
			var id string
			for _, q := range svc.Requests() {
				if q.CaseID != "" {
					id = q.CaseID
					break
				}
			}
			if err := svc.Respond(id, "approve", nil, nil); err != nil {
				t.Fatal(err)
			}
			var res *mcp.CallToolResult
			for range 10 { // the approval is seen at the next poll
				if res = call("/tmp/report.txt"); !res.IsError {
					break
				}
			}
			if text(res) != "deleted" || res.IsError || f.deleted.Load() != 1 || opened(svc) != 2 {
				t.Fatalf("the repeat = %q; deleted %d, %d cases; want the first case's approval", text(res), f.deleted.Load(), opened(svc))
			}
			if res := call("/tmp/report.txt"); !res.IsError || f.deleted.Load() != 1 || opened(svc) != 3 {
				t.Errorf("after the outcome = %q; deleted %d, %d cases; want a new case", text(res), f.deleted.Load(), opened(svc))
			}
		})
	}
	t.Run("another caller", func(t *testing.T) {
		t.Parallel()
		svc := hitltest.NewServer(t)
		f := newFiles(t, svc, 100*time.Millisecond)
		for _, user := range []string{"ada", "mallory", "ada"} {
			res, err := f.tool.Handle(t.Context(), &mcp.CallToolRequest{
				Params: &mcp.CallToolParamsRaw{Name: "delete_file", Arguments: []byte(`{}`)},
				Extra:  &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: user, Expiration: time.Now().Add(time.Hour)}}})
			if err != nil || !res.IsError {
				t.Fatalf("%s: %+v, %v", user, res, err)
			}
		}
		if opened(svc) != 2 {
			t.Errorf("%d cases, want one per caller", opened(svc))
		}
	})
	t.Run("2026-07-28 paused", func(t *testing.T) {
		t.Parallel()
		svc := hitltest.NewServer(t)
		f := newFiles(t, svc, 300*time.Millisecond)
		cs := f.session(t, "delete_file", "", manualURL())
		params := &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "/tmp/report.txt"}}
		one, err := cs.CallTool(t.Context(), params)
		if err != nil || !one.NeedsInput() {
			t.Fatalf("first call = %+v, %v", one, err)
		}
		two, err := cs.CallTool(t.Context(), params)
		if err != nil || !two.NeedsInput() || opened(svc) != 1 {
			t.Fatalf("repeat = %+v, %v, %d cases; want input required on the same case", two, err, opened(svc))
		}
		if u1, u2 := one.InputRequests["review"].(*mcp.ElicitParams).URL, two.InputRequests["review"].(*mcp.ElicitParams).URL; u1 != u2 {
			t.Errorf("review links %q and %q", u1, u2)
		}
		if err := svc.Respond(caseOf(t, one.InputRequests["review"].(*mcp.ElicitParams).URL), "approve", nil, nil); err != nil {
			t.Fatal(err)
		}
		retry := func(state string) (*mcp.CallToolResult, error) {
			for {
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: params.Name, Arguments: params.Arguments, RequestState: state,
					InputResponses: mcp.InputResponseMap{"review": &mcp.ElicitResult{Action: "accept"}}})
				if err != nil || !res.NeedsInput() {
					return res, err
				}
				state = res.RequestState
			}
		}
		if res, err := retry(two.RequestState); err != nil || text(res) != "deleted" {
			t.Fatalf("the repeat's retry = %+v, %v", res, err)
		}
		if _, err := retry(one.RequestState); !errors.Is(err, hitlmcp.ErrReplayed) && (err == nil || !strings.Contains(err.Error(), hitlmcp.ErrReplayed.Error())) {
			t.Errorf("the first call's retry: %v, want ErrReplayed", err)
		}
		if f.deleted.Load() != 1 {
			t.Errorf("deleted %d times", f.deleted.Load())
		}
	})
}

// TestToolProgress: while a call waits for the person, a client that gave a progress token
// hears notifications/progress (rising, without the review link); one that gave none hears
// nothing.
func TestToolProgress(t *testing.T) {
	for _, token := range []any{"p-1", nil} {
		t.Run(fmt.Sprint(token), func(t *testing.T) {
			t.Parallel()
			f := newFiles(t, hitltest.NewServer(t), 2500*time.Millisecond)
			var (
				mu    sync.Mutex
				heard []*mcp.ProgressNotificationParams
			)
			o := &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, n *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				defer mu.Unlock()
				heard = append(heard, n.Params)
			}}
			params := &mcp.CallToolParams{Name: "delete_file"}
			if token != nil {
				params.SetProgressToken(token)
			}
			res, err := f.session(t, "delete_file", "2025-11-25", o).CallTool(t.Context(), params)
			if err != nil || !res.IsError {
				t.Fatalf("CallTool = %+v, %v", res, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if token == nil {
				if len(heard) != 0 {
					t.Errorf("heard %d notifications without a token", len(heard))
				}
				return
			}
			if len(heard) < 2 {
				t.Fatalf("heard %d notifications in 2.5 s", len(heard))
			}
			for i, n := range heard {
				if n.ProgressToken != token || strings.Contains(n.Message, "http") || (i > 0 && n.Progress <= heard[i-1].Progress) {
					t.Errorf("notification %d: %+v", i, n)
				}
			}
		})
	}
}

// TestToolNoIsNeverAGoAhead: a rejection, an edit, an expiry with default_action "approve" and
// a cancellation reach the client as an isError result whose first content names the outcome
// in plain words (no link, no token, nothing the person gave), before what Result returned —
// even from a Result that words every outcome as done, or fails; only an approval is the
// tool's success, Result's content alone. On both revisions, to a client that declared URL
// elicitation and to one that did not.
func TestToolNoIsNeverAGoAhead(t *testing.T) {
	for _, tt := range []struct {
		name    string
		body    string
		decide  func(svc *hitltest.Server, id string) error
		fail    bool   // Result fails on an outcome that is not an approval
		verdict string // a word the first content says; "" for an approval
	}{
		{"approved", `{}`, func(svc *hitltest.Server, id string) error { return svc.Respond(id, "approve", nil, nil) }, false, ""},
		{"rejected", `{}`, func(svc *hitltest.Server, id string) error {
			return svc.Respond(id, "reject", map[string]any{"reason": "secret-reason"}, nil)
		}, false, "rejected"},
		{"edited", `{}`, func(svc *hitltest.Server, id string) error {
			return svc.Respond(id, "edit", map[string]any{"feedback": "secret-feedback"}, nil)
		}, false, "changes"},
		{"expired with default approve", `{"timeout":"1s","default_action":"approve"}`, func(*hitltest.Server, string) error { return nil }, false, "expired"},
		{"cancelled", `{}`, func(svc *hitltest.Server, id string) error { return svc.Cancel(id, "secret-withdrawn") }, false, "cancelled"},
		{"rejected, Result fails", `{}`, func(svc *hitltest.Server, id string) error { return svc.Respond(id, "reject", nil, nil) }, true, "rejected"},
	} {
		for _, rev := range []string{"2026-07-28", "2025-11-25"} {
			for _, urlMode := range []bool{true, false} {
				name := rev + " " + tt.name
				if !urlMode {
					name += " no URL elicitation"
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					svc := hitltest.NewServer(t)
					c, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses())
					if err != nil {
						t.Fatal(err)
					}
					var got *transport.Result
					tool := &hitlmcp.Tool{Client: c, Secret: secret, Check: 5 * time.Second,
						Call: func(ctx context.Context, _ *mcp.CallToolRequest) (*http.Request, error) {
							return http.NewRequestWithContext(ctx, http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(tt.body))
						},
						// A careless Result: every outcome worded as done.
						Result: func(_ context.Context, _ *http.Response, r *transport.Result) (*mcp.CallToolResult, error) {
							got = r
							if tt.fail && !r.Approved() {
								return nil, errors.New("the result could not be worded")
							}
							return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
						}}
					server := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)
					server.AddTool(&mcp.Tool{Name: "delete_file", InputSchema: map[string]any{"type": "object"}}, tool.Handle)
					done := make(chan struct{})
					defer close(done)
					var id string
					decided := make(chan struct{})
					go func() {
						defer close(decided)
						if id = svc.NextCase(done); id != "" {
							_ = tt.decide(svc, id)
						}
					}()
					var o *mcp.ClientOptions
					if urlMode {
						o = hitlmcp.ClientOptions(func(context.Context, *hitl.Interrupt) error { return nil }, nil)
					}
					cs := connectAt(t, server, mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, o), rev)
					res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_file"})
					<-decided
					if err != nil || got == nil || res.IsError != (tt.verdict != "") || got.Approved() != (tt.verdict == "") {
						t.Fatalf("CallTool = %+v (%q), %v; Result saw %+v; want isError %v", res, text(res), err, got, tt.verdict != "")
					}
					var texts []string
					for _, c := range res.Content {
						tc, ok := c.(*mcp.TextContent)
						if !ok {
							t.Fatalf("content %#v, want text", c)
						}
						texts = append(texts, tc.Text)
					}
					if tt.verdict == "" {
						if len(texts) != 1 || texts[0] != "done" {
							t.Fatalf("an approval's content %q, want Result's alone", texts)
						}
						return
					}
					callback := "done"
					if tt.fail {
						callback = "the result could not be worded"
					}
					if len(texts) != 2 || !strings.HasPrefix(texts[0], "Not done: ") || !strings.Contains(texts[0], tt.verdict) || !strings.Contains(texts[1], callback) {
						t.Fatalf("content %q, want the outcome (%q) first, then %q", texts, tt.verdict, callback)
					}
					for _, secret := range []string{"http", "token", "/review/", id, "secret-"} {
						if strings.Contains(texts[0], secret) {
							t.Errorf("the outcome %q shows %q", texts[0], secret)
						}
					}
				})
			}
		}
	}
}

// TestToolStillPendingBeforeTheClientGivesUp: a client whose automatic 2026-07-28 loop stops
// after 10 calls (go-sdk's, mcp-go's; the TypeScript client's after 11) gets, at its 10th call
// of a person who has not decided, an isError result saying the decision is still pending and
// to call again later — without the review link — instead of the SDK's "exceeded maximum
// retries"; calling again joins the open case, and an approval given meanwhile is its result.
func TestToolStillPendingBeforeTheClientGivesUp(t *testing.T) {
	svc := hitltest.NewServer(t)
	f := newFiles(t, svc, 200*time.Millisecond) // 9 waits pass the 202's Retry-After (1 s): the case is polled
	var forwarded atomic.Int32
	var link string
	forward := func(_ context.Context, it *hitl.Interrupt) error {
		if forwarded.Add(1) == 1 {
			link = it.Case.ReviewURL
		}
		return nil
	}
	cs := f.session(t, "delete_file", "2026-07-28", hitlmcp.ClientOptions(forward, nil))
	params := &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "/tmp/report.txt"}}
	calls := func() int {
		n := 0
		for _, q := range svc.Requests() {
			if q.Method == http.MethodPost {
				n++
			}
		}
		return n
	}
	res, err := cs.CallTool(t.Context(), params)
	if err != nil || !res.IsError || res.NeedsInput() || f.deleted.Load() != 0 {
		t.Fatalf("CallTool = %+v (%q), %v; want an isError result", res, text(res), err)
	}
	if got := text(res); !strings.HasPrefix(got, "Not done: ") || !strings.Contains(got, "still") || !strings.Contains(got, "again") ||
		strings.Contains(got, "http") || strings.Contains(got, caseOf(t, link)) {
		t.Errorf("the text %q, want the decision still pending, call again, and no link", got)
	}
	if err := svc.Respond(caseOf(t, link), "approve", nil, nil); err != nil {
		t.Fatal(err)
	}
	res, err = cs.CallTool(t.Context(), params)
	if err != nil || res.IsError || text(res) != "deleted" || f.deleted.Load() != 1 || calls() != 1 {
		t.Fatalf("calling again = %+v (%q), %v; deleted %d, %d cases; want the open case's approval", res, text(res), err, f.deleted.Load(), calls())
	}
}

// TestToolChainBound: a client that runs 2026-07-28's rounds itself is asked 9 times along a
// chain of retries, each from the last result's state, and the 10th call says "still
// pending"; retries from the first state it kept are asked again however many.
func TestToolChainBound(t *testing.T) {
	f := newFiles(t, hitltest.NewServer(t), 20*time.Millisecond)
	cs := f.session(t, "delete_file", "", manualURL())
	params := &mcp.CallToolParams{Name: "delete_file"}
	first, err := cs.CallTool(t.Context(), params)
	if err != nil || !first.NeedsInput() {
		t.Fatalf("first call = %+v, %v", first, err)
	}
	retry := func(state string) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: params.Name, RequestState: state,
			InputResponses: mcp.InputResponseMap{"review": &mcp.ElicitResult{Action: "accept"}}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for i := range 12 {
		if res := retry(first.RequestState); !res.NeedsInput() {
			t.Fatalf("retry %d from the first state = %+v (%q), want input required", i+1, res, text(res))
		}
	}
	res := first
	for call := 2; call <= 10; call++ {
		res = retry(res.RequestState)
		if call < 10 && !res.NeedsInput() {
			t.Fatalf("call %d of the chain = %+v (%q), want input required", call, res, text(res))
		}
	}
	if res.NeedsInput() || !res.IsError || !strings.Contains(text(res), "still waits") || f.deleted.Load() != 0 {
		t.Fatalf("the chain's 10th call = %+v (%q), want still pending", res, text(res))
	}
}
