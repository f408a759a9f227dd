package hitlmcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

// DefaultCheck is how long a tool call waits for the human's decision before it answers
// "not done" (see [Tool] for which calls wait).
const DefaultCheck = 5 * time.Second

// DefaultStateTTL is how long a requestState stays valid when the case gives no expiry.
const DefaultStateTTL = 24 * time.Hour

// Protocol revisions (https://modelcontextprotocol.io/specification). From rev20260728 a
// tool asks with an input-required result and the client retries with requestState
// (multi round-trip requests, SEP-2322); before it, only the server can ask, within the
// open call (elicitation/create; URL mode from rev20251125).
const (
	rev20260728 = "2026-07-28"
	rev20251125 = "2025-11-25"
)

var (
	// ErrBadState: a retried tool call's requestState was not sealed by this tool with this
	// secret for this call (altered, truncated, sealed for another tool, other arguments or
	// another caller) or has expired; nothing is polled. On the wire it is JSON-RPC invalid
	// params (-32602).
	ErrBadState = errors.New("hitlmcp: requestState is not one this tool sealed for this call")
	// ErrReplayed: the requestState's call has already returned the person's result; it is
	// refused before any poll, so one approval runs the action once. On the wire it is
	// JSON-RPC invalid params (-32602).
	ErrReplayed = errors.New("hitlmcp: requestState has already returned the person's result")
)

// Tool is the server side: an MCP tool whose backend may answer with a HITL 202 (a person
// must decide first). Its [Tool.Handle] calls the backend; when the backend asks for a
// human, what the client gets depends on the protocol revision of the call and on whether
// the client declared URL-mode elicitation (elicitation.url in its capabilities: in
// initialize up to 2025-11-25, in each request's _meta from 2026-07-28):
//
//   - 2026-07-28 and later, URL elicitation declared: an input-required result, a URL-mode
//     input request with the case's review URL and the case sealed in requestState. The
//     client forwards the link and retries with requestState; the retry waits up to Check
//     for the decision (polling the case, as [hitl.Client.Wait] does) and returns Result's
//     tool result, or asks again.
//   - 2025-11-25, URL elicitation declared: the go-sdk server sends the link as a URL-mode
//     elicitation/create (its elicitationId a random id) and calls Handle again within the
//     same call; Handle waits up to Check, and returns Result's tool result after
//     notifications/elicitation/complete, or an isError result naming the review link.
//   - every other call — a client with a form handler only or none, on any revision, and
//     every revision before 2025-11-25: the link is never sent as an elicitation or input
//     request; Handle waits up to Check (the service may reach the person by its own
//     means), and returns Result's tool result or an isError result naming the review link.
//
// A tool call never returns an empty success while the person has not decided, and only
// an approval ([transport.Result.Approved]) is a success: a rejection, an expiry (with
// default_action "approve" too), a cancellation, a failure and an answer that is not an
// approval reach the client with isError set, whatever Result returned (with Result's
// content, or a sentence naming the outcome when it has none).
//
// A repeat of a call — the same tool, the same arguments, the same caller — made while its
// case is open joins that case instead of opening another: on 2025-11-25, a model that got
// "not done" and calls again gets the outcome of the first call's case (an approval given
// after the first "not done" runs the action once); on 2026-07-28 the repeat gets
// requestState of the same paused call. Once a call's outcome has been returned (or its
// case cannot be read), the same call opens a new case. The open cases are kept in the
// Tool's memory until their state expires: a repeat reaching another replica or a restarted
// process opens a new case there.
//
// While a call waits for the decision, a client that gave a progress token (_meta
// progressToken) gets notifications/progress: one when the wait begins, one per change the
// service reports (opened, in progress) and one every second; progress is the seconds since
// the case opened, the message says the call waits and never carries the review link.
//
// Serve it over stdio, or over HTTP with mcp.NewStreamableHTTPHandler; with go-sdk v1.8.0
// the handler decides which clients are served how (see the package documentation,
// "Which HTTP handler").
//
// requestState is sealed with AES-256-GCM under a key derived from Secret, over the tool's
// name, its arguments, the caller ([Tool.Caller]) and an expiry (the case's expires_at plus
// hitl.DefaultGrace, else DefaultStateTTL); it reveals nothing of the case (poll URL,
// tokens) to the client. A state that does not open is [ErrBadState]. The person's result
// comes back at most once per paused call: the call is recorded in Ledger when it does,
// and any later retry with one of its states is [ErrReplayed], before any poll. The server
// keeps nothing else between calls, so a retry may reach another replica or a restarted
// process if they share Secret and Ledger.
//
// Client, Secret (32 bytes or more), Call and Result are required. A Tool is safe for
// concurrent use once built; do not change its fields after the first call. A call ends
// when its context does.
type Tool struct {
	// Client sends the backend request and polls its case. Its forwarder is not used: the
	// MCP client forwards the review URL.
	Client *hitl.Client
	// Secret keys the seal on requestState.
	Secret []byte
	// Call builds the backend request for one tool call.
	Call func(ctx context.Context, req *mcp.CallToolRequest) (*http.Request, error)
	// Result is the tool's result: from the backend's response when it needed no person
	// (r is nil; Result must not close resp.Body, the tool does), or from the person's Result
	// (resp is nil) — completed, expired with the default applied, or cancelled. Act only
	// when r.Approved(); any other r reaches the client with isError set. An error it
	// returns reaches the client as an isError result.
	Result func(ctx context.Context, resp *http.Response, r *transport.Result) (*mcp.CallToolResult, error)
	// Check is how long a call waits for the decision before it answers "not done"; 0
	// means DefaultCheck.
	Check time.Duration
	// Caller names who calls: a requestState only opens for the same caller, and a repeat
	// only joins the same caller's open case. nil means the authenticated user the transport
	// reports (RequestExtra.TokenInfo.UserID), or nobody in particular when there is none
	// (every caller is then the same caller: set Caller, say to a session id, to keep
	// unauthenticated callers apart).
	Caller func(req *mcp.CallToolRequest) string
	// Ledger records the paused calls that have returned the person's result. nil means one
	// in memory for this Tool; replicas share one (see [Ledger]).
	Ledger Ledger

	once   sync.Once
	memory *MemoryLedger

	mu    sync.Mutex
	calls map[string]*openCall // the open cases by call (see join), keyed by bindKey
	prune int                  // the size at which expired calls are dropped next
}

// openCall is a tool call whose case is open, for the repeats that join it.
type openCall struct {
	ready chan struct{} // closed once the first call knows its case (p), or that it has none
	p     *paused
}

// reviewInput is the key of the input request the tool returns.
const reviewInput = "review"

// Handle is the tool's mcp.ToolHandler. A requestState refused ([ErrBadState],
// [ErrReplayed]) is JSON-RPC invalid params (-32602); a Tool without its required fields,
// or a call whose context ended, is internal error (-32603); any other failure (the backend
// unreachable, an error from Call or Result) is a tool execution error: an isError result
// with the error's text, for the model to read (MCP "Tools", "Error Handling").
func (t *Tool) Handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	res, err := t.handle(ctx, req)
	var rpc *jsonrpc.Error
	switch {
	case err == nil || errors.As(err, &rpc):
		return res, err
	case ctx.Err() != nil:
		return nil, withCode(err, jsonrpc.CodeInternalError)
	default:
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
	}
}

func (t *Tool) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if t.Client == nil || len(t.Secret) < 32 || t.Call == nil || t.Result == nil {
		return nil, withCode(errors.New("hitlmcp: Tool needs Client, a Secret of 32 bytes or more, Call and Result"), jsonrpc.CodeInternalError)
	}
	if req == nil || req.Params == nil {
		return nil, refusal(errors.New("hitlmcp: tool call without params"))
	}
	bind := t.binding(req)
	if state := req.Params.RequestState; state != "" {
		p, err := t.open(bind, state)
		if err != nil {
			return nil, refusal(err)
		}
		return t.check(ctx, req, bind, p, false)
	}
	p, opened, err := t.join(ctx, bind)
	if err != nil {
		return nil, err
	}
	if p == nil {
		var res *mcp.CallToolResult
		func() {
			defer func() { opened(p) }() // also if Call or Result panics: no repeat waits for it
			p, res, err = t.start(ctx, req)
		}()
		if p == nil {
			return res, err
		}
	}
	// A repeat of the call while its case is open (joined) goes on with that case, as the
	// first call did: its outcome, never a second case.
	joined := opened == nil
	if !urlElicitation(req) {
		// The client cannot be sent the link; the service may reach the person by its own
		// means, and the result names the link.
		return t.check(ctx, req, bind, p, joined)
	}
	return t.ask(req, bind, p)
}

// start calls the backend for a call that joined no open case: its result when no person
// is needed (p nil), or the case the backend opened.
func (t *Tool) start(ctx context.Context, req *mcp.CallToolRequest) (p *paused, res *mcp.CallToolResult, err error) {
	hreq, err := t.Call(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	resp, err := t.Client.Do(ctx, hreq, &hitl.CallOptions{DetectOnly: true})
	if err != nil {
		if resp != nil && resp.Response != nil {
			_ = resp.Body.Close()
		}
		return nil, nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.Interrupt == nil {
		res, err := t.Result(ctx, resp.Response, nil)
		return nil, res, err
	}
	it := resp.Interrupt
	if it.Case == nil || it.Case.ReviewURL == "" {
		return nil, nil, fmt.Errorf("hitlmcp: the backend asked for a person without a review URL (%s)", it.Kind)
	}
	// The state outlives the case by the time Wait gives the service to report its expiry,
	// so that a retry still gets the expired case's Result.
	expires := it.ExpiresAt().Add(hitl.DefaultGrace)
	if it.ExpiresAt().IsZero() {
		expires = time.Now().Add(DefaultStateTTL)
	}
	return &paused{Call: rand.Text(), Expires: expires.Unix(), Opened: time.Now().UnixMilli(), Interrupt: it}, nil, nil
}

// join returns the open case of the call bind when there is one (waiting, if an identical
// call is opening it, for the backend's answer). Otherwise the call is the first: opened
// must then be called with its case, or nil when it has none, before the call returns.
func (t *Tool) join(ctx context.Context, bind []byte) (p *paused, opened func(*paused), err error) {
	key := bindKey(bind)
	for {
		t.mu.Lock()
		e := t.calls[key]
		if e != nil && e.p != nil && !time.Now().Before(time.Unix(e.p.Expires, 0)) {
			delete(t.calls, key)
			e = nil
		}
		if e == nil {
			e = &openCall{ready: make(chan struct{})}
			t.add(key, e)
			t.mu.Unlock()
			return nil, func(p *paused) {
				t.mu.Lock()
				defer t.mu.Unlock()
				e.p = p
				if p == nil && t.calls[key] == e {
					delete(t.calls, key)
				}
				close(e.ready)
			}, nil
		}
		t.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		t.mu.Lock()
		p = e.p
		t.mu.Unlock()
		if p != nil {
			return p, nil, nil
		}
		// The first call needed no person, or failed: this one calls the backend itself.
	}
}

// add records e under key, dropping the expired calls now and then; t.mu is held.
func (t *Tool) add(key string, e *openCall) {
	if t.calls == nil {
		t.calls = map[string]*openCall{}
	}
	if len(t.calls) >= t.prune {
		now := time.Now()
		for k, c := range t.calls {
			if c.p != nil && !now.Before(time.Unix(c.p.Expires, 0)) {
				delete(t.calls, k)
			}
		}
		t.prune = max(2*len(t.calls), 64)
	}
	t.calls[key] = e
}

// forget ends the joining of the call bind to the case of paused call id: a repeat now
// opens a new case.
func (t *Tool) forget(bind []byte, id string) {
	key := bindKey(bind)
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.calls[key]; e != nil && e.p != nil && e.p.Call == id {
		delete(t.calls, key)
	}
}

// bindKey is the map key of a call's binding.
func bindKey(bind []byte) string {
	sum := sha256.Sum256(bind)
	return string(sum[:])
}

// check waits up to Check for the decision on p; a case still open is asked again. joined
// says the call is a repeat that joined p's case (see [Tool]).
func (t *Tool) check(ctx context.Context, req *mcp.CallToolRequest, bind []byte, p *paused, joined bool) (*mcp.CallToolResult, error) {
	ledger := t.ledger()
	if spent, err := ledger.Spent(ctx, p.Call); err != nil {
		return nil, err
	} else if spent {
		if joined {
			return doneElsewhere(req.Params.Name), nil
		}
		return nil, refusal(ErrReplayed)
	}
	if a, ok := req.Params.InputResponses[reviewInput].(*mcp.ElicitResult); ok && (a.Action == "decline" || a.Action == "cancel") {
		return notDone(req.Params.Name, p.Interrupt, "the review link was "+a.Action+"d"), nil
	}
	wait := t.Check
	if wait <= 0 {
		wait = DefaultCheck
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	progress := startProgress(wctx, req, time.UnixMilli(p.Opened))
	r, err := t.Client.Wait(wctx, p.Interrupt, &hitl.WaitOptions{PollOnly: true, NoReminders: true, OnUpdate: progress.update})
	progress.stop()
	switch {
	case err == nil:
	case ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		return t.ask(req, bind, p) // not decided yet
	case ctx.Err() == nil:
		t.forget(bind, p.Call) // the case cannot be read: a repeat opens a new one
		return nil, err
	default:
		return nil, err
	}
	if first, err := ledger.Spend(ctx, p.Call, time.Unix(p.Expires, 0)); err != nil {
		return nil, err
	} else if !first {
		if joined {
			return doneElsewhere(req.Params.Name), nil
		}
		return nil, refusal(ErrReplayed)
	}
	t.forget(bind, p.Call)
	if !multiRoundTrip(req) && urlElicitation(req) {
		// 2025-11-25 "URL Elicitation": the server may say the out-of-band step is done.
		_ = req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: p.Call})
	}
	res, err := t.Result(ctx, nil, r)
	if err != nil || r.Approved() {
		return res, err
	}
	// Only an approval is a go-ahead: any other outcome is never read as the tool's success.
	if res == nil {
		res = &mcp.CallToolResult{}
	}
	if len(res.Content) == 0 {
		res.Content = []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("Not done: %s was not approved (%s).", req.Params.Name, outcome(r))}}
	}
	res.IsError = true
	return res, nil
}

// outcome is a Result that is not an approval, in words.
func outcome(r *transport.Result) string {
	switch {
	case r.Status == transport.StatusCompleted && r.Decision != "":
		return "the person answered " + string(r.Decision)
	case r.Status != "":
		return string(r.Status)
	}
	return "no decision"
}

// doneElsewhere is the isError result of a repeat whose case's outcome an identical call
// running at the same time returned.
func doneElsewhere(tool string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(
		"Not done by this call: the person's decision on %s was returned to an identical call made at the same time.", tool)}}}
}

// ask is "not done" as the call's revision understands it: an input request of the review
// URL with p sealed in requestState where the client can echo it (see [Tool]), an isError
// result naming the link elsewhere.
func (t *Tool) ask(req *mcp.CallToolRequest, bind []byte, p *paused) (*mcp.CallToolResult, error) {
	if !urlElicitation(req) || (!multiRoundTrip(req) && req.Params.RequestState != "") {
		return notDone(req.Params.Name, p.Interrupt, "no decision yet"), nil
	}
	state, err := t.seal(bind, p)
	if err != nil {
		return nil, err
	}
	in := &mcp.ElicitParams{Mode: "url", Message: p.Interrupt.Prompt(), URL: p.Interrupt.Case.ReviewURL}
	if !multiRoundTrip(req) {
		in.ElicitationID = p.Call // 2026-07-28 URL input requests carry none
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{reviewInput: in}, RequestState: state}, nil
}

// notDone is the isError tool result for a call whose person has not decided.
func notDone(tool string, it *hitl.Interrupt, why string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(
		"Not done: %s waits for a person's decision (%s). %s Review: %s", tool, why, it.Prompt(), it.Case.ReviewURL)}}}
}

// multiRoundTrip reports whether the call's revision has input-required results. An
// unknown revision is taken as the latest, as the go-sdk server does.
func multiRoundTrip(req *mcp.CallToolRequest) bool {
	v := req.ProtocolVersion()
	return v == "" || v >= rev20260728
}

// urlElicitation reports whether the client declared URL-mode elicitation for this call —
// in its initialize request up to 2025-11-25, in the request's _meta from 2026-07-28 — so
// the review link may go to it as an elicitation or input request. A client that declared
// form mode only (elicitation: {}) or nothing gets the link in an isError result instead.
func urlElicitation(req *mcp.CallToolRequest) bool {
	if v := req.ProtocolVersion(); v != "" && v < rev20251125 {
		return false
	}
	c := req.ClientCapabilities()
	return c != nil && c.Elicitation != nil && c.Elicitation.URL != nil
}

// binding is what a requestState is sealed for: the tool, the caller and the arguments
// (decoded and encoded again, so that a client re-encoding them keeps them the same).
func (t *Tool) binding(req *mcp.CallToolRequest) []byte {
	caller := ""
	if t.Caller != nil {
		caller = t.Caller(req)
	} else if req.Extra != nil && req.Extra.TokenInfo != nil {
		caller = req.Extra.TokenInfo.UserID
	}
	args := []byte(req.Params.Arguments)
	var v any
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	if d.Decode(&v) == nil {
		if b, err := json.Marshal(v); err == nil {
			args = b
		}
	}
	b, _ := json.Marshal([]string{req.Params.Name, caller, string(args)}) // strings always encode
	return b
}
