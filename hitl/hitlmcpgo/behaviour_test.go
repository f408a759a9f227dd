package hitlmcpgo_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
	"github.com/hitlkit/hitlkit/hitl/hitlmcpgo"
	hitltransport "github.com/hitlkit/hitlkit/transport"
)

func call(name string) mcp.CallToolRequest {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	return req
}

// TestNoIsNeverAGoAhead: behind a Result that words every outcome as done, or fails, a
// rejection, an edit, an expiry with default_action "approve" and a cancellation reach an
// mcp-go client as an isError result whose first content names the outcome in plain words (no
// link, no token, nothing the person gave), before what Result returned, on both revisions;
// only an approval is the tool's success, Result's content alone.
func TestNoIsNeverAGoAhead(t *testing.T) {
	for _, rev := range revisions {
		for _, tt := range []struct {
			name, action, body string
			fail               bool   // Result fails on an outcome that is not an approval
			verdict            string // a word the first content says; "" for an approval
		}{
			{"approved", "approve", "", false, ""},
			{"rejected", "reject", "", false, "rejected"},
			{"edited", "edit", "", false, "changes"},
			{"expired with default approve", "none", `{"timeout":"1s","default_action":"approve"}`, false, "expired"},
			{"cancelled", "cancel", "", false, "cancelled"},
			{"rejected, Result fails", "reject", "", true, "rejected"},
		} {
			t.Run(rev+" "+tt.name, func(t *testing.T) {
				b := newBackend(t)
				b.body = tt.body
				var got *hitltransport.Result
				tool := b.goTool(5 * time.Second)
				tool.Result = func(_ context.Context, _ *http.Response, r *hitltransport.Result) (*mcp.CallToolResult, error) {
					got = r
					if tt.fail && !r.Approved() {
						return nil, errors.New("the result could not be worded")
					}
					return mcp.NewToolResultText("done"), nil
				}
				p := newPipes(t)
				serveMCPGo(t, p, tool)
				var link string
				forward := decide(t, b, tt.action)
				c := goClient(t, p, rev, hitlmcpgo.ClientOptions(func(ctx context.Context, it *hitl.Interrupt) error {
					link = it.Case.ReviewURL
					return forward(ctx, it)
				}, nil)...)
				res, err := c.CallTool(t.Context(), call("delete_file"))
				if err != nil || got == nil || res.IsError != (tt.verdict != "") || got.Approved() != (tt.verdict == "") {
					t.Fatalf("CallTool = %+v (%q), %v; Result saw %+v; want isError %v", res, goText(res), err, got, tt.verdict != "")
				}
				var texts []string
				for _, c := range res.Content {
					tc, ok := c.(mcp.TextContent)
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
				for _, secret := range []string{"http", "token", "/review/", caseOf(t, link)} {
					if strings.Contains(texts[0], secret) {
						t.Errorf("the outcome %q shows %q", texts[0], secret)
					}
				}
			})
		}
	}
}

// TestLinkOnlyWhereItCanGo: an mcp-go client with a form handler only, or none, and a
// go-sdk client with form elicitation only are never sent the review link as an
// elicitation, on either revision, by a hitlmcpgo tool on mcp-go's server or a hitlmcp tool
// on go-sdk's: the call ends after Check with an isError result naming the link; a repeat
// after the person approved joins the open case and deletes once.
func TestLinkOnlyWhereItCanGo(t *testing.T) {
	form := func(context.Context, *hitlmcp.Form) (hitlmcp.Answer, error) {
		return hitlmcp.Answer{}, errors.New("a form was asked")
	}
	for _, srv := range []string{"mcp-go server", "go-sdk server"} {
		for _, rev := range revisions {
			for _, kind := range []string{"mcp-go form only", "mcp-go no handler", "go-sdk form only"} {
				t.Run(srv+" "+rev+" "+kind, func(t *testing.T) {
					linkOnlyWhereItCanGo(t, srv, rev, kind, form)
				})
			}
		}
	}
}

// linkOnlyWhereItCanGo is one row of TestLinkOnlyWhereItCanGo: srv serves the tool, kind is
// the client.
func linkOnlyWhereItCanGo(t *testing.T, srv, rev, kind string, form hitlmcp.FormAsker) {
	b := newBackend(t)
	p := newPipes(t)
	if srv == "go-sdk server" {
		serveSDK(t, p, b.sdkTool(1500*time.Millisecond))
	} else {
		serveMCPGo(t, p, b.goTool(1500*time.Millisecond))
	}
	var callTool func() (bool, string, error)
	switch kind {
	case "go-sdk form only":
		cs := sdkClient(t, p, rev, hitlmcp.ClientOptions(nil, form))
		callTool = func() (bool, string, error) {
			res, err := cs.CallTool(t.Context(), &gomcp.CallToolParams{Name: "delete_file"})
			if err != nil {
				return false, "", err
			}
			return res.IsError, sdkText(res), nil
		}
	default:
		var opts []client.ClientOption
		if kind == "mcp-go form only" {
			opts = hitlmcpgo.ClientOptions(nil, form)
		}
		c := goClient(t, p, rev, opts...)
		callTool = func() (bool, string, error) {
			res, err := c.CallTool(t.Context(), call("delete_file"))
			if err != nil {
				return false, "", err
			}
			return res.IsError, goText(res), nil
		}
	}
	isError, text, err := callTool()
	if err != nil || !isError || !strings.Contains(text, b.svc.URL+"/review/") || b.deleted.Load() != 0 {
		t.Fatalf("CallTool = isError %v %q, %v; want an isError result naming the review link", isError, text, err)
	}
	if err := b.svc.Respond(caseOf(t, text[strings.Index(text, b.svc.URL):]), "approve", nil, nil); err != nil {
		t.Fatal(err)
	}
	isError, text, err = callTool()
	if err != nil || isError || text != "deleted" || b.deleted.Load() != 1 {
		t.Fatalf("the repeat = isError %v %q, %v; deleted %d; want the first case's approval", isError, text, err, b.deleted.Load())
	}
	if n := opened(b); n != 1 {
		t.Errorf("%d cases opened, want 1: the repeat joins the open case", n)
	}
}

// opened counts the backend requests that opened a case.
func opened(b *backend) int {
	n := 0
	for _, r := range b.svc.Requests() {
		if r.Method == http.MethodPost && r.Path == "/actions/approval" {
			n++
		}
	}
	return n
}

// modern is a context as mcp-go's server gives a 2026-07-28 request whose client declared
// URL elicitation.
func modern(ctx context.Context) context.Context {
	return server.WithRequestProtocolInfo(ctx, &server.RequestProtocolInfo{Modern: true, ProtocolVersion: "2026-07-28",
		ClientCapabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{URL: &struct{}{}}}})
}

// TestStateSealedAndSingleUse: a 2026-07-28 call gets input_required with a URL input
// request and a sealed requestState; the retry after the approval deletes once; a replay,
// a state altered, for other arguments or for another caller is refused before any poll.
func TestStateSealedAndSingleUse(t *testing.T) {
	b := newBackend(t)
	tool := b.goTool(3 * time.Second)
	tool.Caller = func(ctx context.Context, _ mcp.CallToolRequest) string {
		s, _ := ctx.Value(callerKey{}).(string)
		return s
	}
	ctx := context.WithValue(modern(t.Context()), callerKey{}, "alice")
	req := call("delete_file")
	req.Params.Arguments = map[string]any{"path": "/tmp/report.txt"}
	res, err := tool.Handle(ctx, req)
	if err != nil || !res.NeedsInput() || res.RequestState == "" {
		t.Fatalf("Handle = %+v, %v; want input_required with requestState", res, err)
	}
	in := res.InputRequests["review"].Elicitation
	if in == nil || in.Mode != mcp.ElicitationModeURL || !strings.HasPrefix(in.URL, b.svc.URL+"/review/") || in.ElicitationID != "" {
		t.Fatalf("input request %+v, want the review link in URL mode without elicitationId", in)
	}
	if strings.Contains(res.RequestState, b.svc.URL) {
		t.Error("requestState shows the case")
	}
	state := res.RequestState
	if err := b.svc.Respond(caseOf(t, in.URL), "approve", nil, nil); err != nil {
		t.Fatal(err)
	}
	retry := func(ctx context.Context, args map[string]any, s string) (*mcp.CallToolResult, error) {
		r := call("delete_file")
		r.Params.Arguments = args
		r.Params.RequestState = s
		return tool.Handle(ctx, r)
	}
	args := map[string]any{"path": "/tmp/report.txt"}
	for name, try := range map[string]func() (*mcp.CallToolResult, error){
		"altered":         func() (*mcp.CallToolResult, error) { return retry(ctx, args, state[:len(state)-2]+"AA") },
		"other arguments": func() (*mcp.CallToolResult, error) { return retry(ctx, map[string]any{"path": "/etc"}, state) },
		"another caller": func() (*mcp.CallToolResult, error) {
			return retry(context.WithValue(ctx, callerKey{}, "mallory"), args, state)
		},
	} {
		if res, err := try(); !errors.Is(err, hitlmcp.ErrBadState) {
			t.Errorf("%s: %+v, %v; want ErrBadState", name, res, err)
		}
	}
	if res, err := retry(ctx, args, state); err != nil || goText(res) != "deleted" || res.IsError {
		t.Fatalf("retry = %+v, %v; want deleted", res, err)
	}
	if res, err := retry(ctx, args, state); !errors.Is(err, hitlmcp.ErrReplayed) || b.deleted.Load() != 1 {
		t.Fatalf("replay = %+v, %v; deleted %d; want ErrReplayed, one deletion", res, err, b.deleted.Load())
	}
}

type callerKey struct{}

// TestCancelled: a call whose context ends while it waits for the person returns an error,
// deletes nothing and leaves no goroutine behind (goleak in TestMain).
func TestCancelled(t *testing.T) {
	b := newBackend(t)
	tool := b.goTool(time.Minute)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	defer close(done)
	go func() {
		if id := b.svc.NextCase(done); id != "" {
			cancel()
		}
	}()
	res, err := tool.Handle(ctx, call("delete_file")) // no URL elicitation: it waits
	if err == nil || b.deleted.Load() != 0 {
		t.Fatalf("Handle = %+v, %v; want an error, nothing deleted", res, err)
	}
}

// TestToolIncomplete: a Tool without its required fields refuses every call.
func TestToolIncomplete(t *testing.T) {
	res, err := (&hitlmcpgo.Tool{Secret: []byte("short")}).Handle(t.Context(), call("x"))
	if err == nil || !strings.Contains(err.Error(), "Secret") {
		t.Fatalf("Handle = %+v, %v", res, err)
	}
}

// TestNoPersonNeeded: a backend that answers at once (no 202) is the tool's result from
// Result(resp, nil), with the response body still open.
func TestNoPersonNeeded(t *testing.T) {
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "gone") }))
	defer svc.Close()
	c, err := hitl.NewClient(hitltransport.WithAllowPrivateAddresses())
	if err != nil {
		t.Fatal(err)
	}
	tool := &hitlmcpgo.Tool{Client: c, Secret: secret,
		Call: func(ctx context.Context, _ mcp.CallToolRequest) (*http.Request, error) {
			return http.NewRequestWithContext(ctx, http.MethodPost, svc.URL, nil)
		},
		Result: func(_ context.Context, resp *http.Response, r *hitltransport.Result) (*mcp.CallToolResult, error) {
			if r != nil || resp == nil {
				return nil, errors.New("want the backend's response")
			}
			b, err := io.ReadAll(resp.Body)
			return mcp.NewToolResultText(string(b)), err
		}}
	res, err := tool.Handle(modern(t.Context()), call("delete_file"))
	if err != nil || res.IsError || goText(res) != "gone" {
		t.Fatalf("Handle = %+v (%q), %v; want the backend's answer", res, goText(res), err)
	}

}

// TestLateApproval: on 2025-11-25 a person slower than Check: the first call, whose link
// went out as a URL elicitation, ends "not done" naming the link; the person approves; the
// model's repeat of the call joins the open case and deletes once — for a go-sdk and an
// mcp-go client of a hitlmcpgo tool.
func TestLateApproval(t *testing.T) {
	for _, kind := range []string{"go-sdk", "mcp-go"} {
		t.Run(kind, func(t *testing.T) {
			b := newBackend(t)
			p := newPipes(t)
			serveMCPGo(t, p, b.goTool(1500*time.Millisecond))
			var links []string
			forward := func(_ context.Context, it *hitl.Interrupt) error {
				links = append(links, it.Case.ReviewURL)
				return nil
			}
			var callTool func() (bool, string, error)
			if kind == "go-sdk" {
				cs := sdkClient(t, p, "2025-11-25", hitlmcp.ClientOptions(forward, nil))
				callTool = func() (bool, string, error) {
					res, err := cs.CallTool(t.Context(), &gomcp.CallToolParams{Name: "delete_file"})
					if err != nil {
						return false, "", err
					}
					return res.IsError, sdkText(res), nil
				}
			} else {
				c := goClient(t, p, "2025-11-25", hitlmcpgo.ClientOptions(forward, nil)...)
				callTool = func() (bool, string, error) {
					res, err := c.CallTool(t.Context(), call("delete_file"))
					if err != nil {
						return false, "", err
					}
					return res.IsError, goText(res), nil
				}
			}
			isError, text, err := callTool()
			if err != nil || !isError || len(links) != 1 || !strings.Contains(text, links[0]) {
				t.Fatalf("CallTool = isError %v %q, %v; links %q; want not done naming the elicited link", isError, text, err, links)
			}
			if err := b.svc.Respond(caseOf(t, links[0]), "approve", nil, nil); err != nil {
				t.Fatal(err)
			}
			isError, text, err = callTool()
			if err != nil || isError || text != "deleted" || b.deleted.Load() != 1 || opened(b) != 1 {
				t.Fatalf("the repeat = isError %v %q, %v; deleted %d, %d cases; want the late approval, once", isError, text, err, b.deleted.Load(), opened(b))
			}
		})
	}
}

// TestRestartMidWait: a 2026-07-28 call paused by one process is retried, after the person
// approved, against a new Tool (a restarted process or another replica: the same Secret and
// Ledger, none of the first's memory): it deletes once; a replay to the first is refused;
// two paused calls with other arguments are kept apart.
func TestRestartMidWait(t *testing.T) {
	b := newBackend(t)
	ledger := &hitlmcp.MemoryLedger{}
	before, after := b.goTool(3*time.Second), b.goTool(3*time.Second)
	before.Ledger, after.Ledger = ledger, ledger
	ctx := modern(t.Context())
	paused := func(path string) (string, string) {
		req := call("delete_file")
		req.Params.Arguments = map[string]any{"path": path}
		res, err := before.Handle(ctx, req)
		if err != nil || !res.NeedsInput() {
			t.Fatalf("Handle = %+v, %v; want input_required", res, err)
		}
		return res.RequestState, res.InputRequests["review"].Elicitation.URL
	}
	stateA, linkA := paused("/a")
	stateB, linkB := paused("/b")
	if linkA == linkB {
		t.Fatal("two calls with other arguments share a case")
	}
	if err := b.svc.Respond(caseOf(t, linkA), "approve", nil, nil); err != nil {
		t.Fatal(err)
	}
	retry := func(tool *hitlmcpgo.Tool, path, state string) (*mcp.CallToolResult, error) {
		req := call("delete_file")
		req.Params.Arguments = map[string]any{"path": path}
		req.Params.RequestState = state
		return tool.Handle(ctx, req)
	}
	if res, err := retry(after, "/b", stateA); !errors.Is(err, hitlmcp.ErrBadState) {
		t.Fatalf("/a's state for /b = %+v, %v; want ErrBadState", res, err)
	}
	if res, err := retry(after, "/a", stateA); err != nil || goText(res) != "deleted" || b.deleted.Load() != 1 {
		t.Fatalf("retry after the restart = %+v, %v; want deleted once", res, err)
	}
	if res, err := retry(before, "/a", stateA); !errors.Is(err, hitlmcp.ErrReplayed) || b.deleted.Load() != 1 {
		t.Fatalf("replay to the first = %+v, %v; want ErrReplayed", res, err)
	}
	if err := b.svc.Respond(caseOf(t, linkB), "reject", nil, nil); err != nil {
		t.Fatal(err)
	}
	if res, err := retry(after, "/b", stateB); err != nil || !res.IsError || b.deleted.Load() != 1 {
		t.Fatalf("/b rejected = %+v, %v; want isError, nothing more deleted", res, err)
	}
}

// TestStillPendingBeforeTheClientGivesUp: an mcp-go client whose automatic 2026-07-28 loop
// stops after 10 calls gets, at its 10th call of a person who has not decided, an isError
// result saying the decision is still pending and to call again later, without the review
// link, instead of "exceeded maximum retries"; calling again joins the open case.
func TestStillPendingBeforeTheClientGivesUp(t *testing.T) {
	b := newBackend(t)
	p := newPipes(t)
	serveMCPGo(t, p, b.goTool(200*time.Millisecond)) // 9 waits pass the 202's Retry-After (1 s): the case is polled
	var link string
	c := goClient(t, p, "2026-07-28", hitlmcpgo.ClientOptions(func(_ context.Context, it *hitl.Interrupt) error {
		if link == "" {
			link = it.Case.ReviewURL
		}
		return nil
	}, nil)...)
	res, err := c.CallTool(t.Context(), call("delete_file"))
	if err != nil || !res.IsError || b.deleted.Load() != 0 {
		t.Fatalf("CallTool = %+v (%q), %v; want an isError result", res, goText(res), err)
	}
	if got := goText(res); !strings.HasPrefix(got, "Not done: ") || !strings.Contains(got, "still") || !strings.Contains(got, "again") ||
		strings.Contains(got, "http") || strings.Contains(got, caseOf(t, link)) {
		t.Errorf("the text %q, want the decision still pending, call again, and no link", got)
	}
	if err := b.svc.Respond(caseOf(t, link), "approve", nil, nil); err != nil {
		t.Fatal(err)
	}
	res, err = c.CallTool(t.Context(), call("delete_file"))
	if err != nil || res.IsError || goText(res) != "deleted" || b.deleted.Load() != 1 || opened(b) != 1 {
		t.Fatalf("calling again = %+v (%q), %v; deleted %d, %d cases; want the open case's approval", res, goText(res), err, b.deleted.Load(), opened(b))
	}
}
