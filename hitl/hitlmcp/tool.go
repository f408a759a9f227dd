package hitlmcp

import (
	"bytes"
	"context"
	"crypto/rand"
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
// human, what the client gets depends on the protocol revision of the call:
//
//   - 2026-07-28 and later: an input-required result, a URL-mode input request with the
//     case's review URL and the case sealed in requestState. The client forwards the link
//     and retries with requestState; the retry waits up to Check for the decision (polling
//     the case, as [hitl.Client.Wait] does) and returns Result's tool result, or asks again.
//   - 2025-11-25, the client declaring URL elicitation: the go-sdk server sends the link as a
//     URL-mode elicitation/create (its elicitationId a random id) and calls Handle again
//     within the same call; Handle waits up to Check, and returns Result's tool result after
//     notifications/elicitation/complete, or an isError result naming the review link.
//   - every other session: Handle waits up to Check (the service may reach the person by
//     its own means), and returns Result's tool result or an isError result naming the
//     review link.
//
// A tool call never returns an empty success while the person has not decided.
//
// requestState is sealed with AES-256-GCM under a key derived from Secret, over the tool's
// name, its arguments, the caller ([Tool.Caller]) and an expiry (the case's expires_at plus
// hitl.DefaultGrace, else DefaultStateTTL); it reveals nothing of the case (poll URL,
// tokens) to the client. A
// state that does not open is [ErrBadState]. The person's result comes back at most once
// per paused call: the call is recorded in Ledger when it does, and any later retry with
// one of its states is [ErrReplayed], before any poll. The server keeps nothing else
// between calls, so a retry may reach another replica or a restarted process if they share
// Secret and Ledger.
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
	// (resp is nil) — completed, expired with the default applied, or cancelled. An error it
	// returns reaches the client as an isError result.
	Result func(ctx context.Context, resp *http.Response, r *transport.Result) (*mcp.CallToolResult, error)
	// Check is how long a call waits for the decision before it answers "not done"; 0
	// means DefaultCheck.
	Check time.Duration
	// Caller names who calls, and a requestState only opens for the same caller. nil means
	// the authenticated user the transport reports (RequestExtra.TokenInfo.UserID), or
	// nobody in particular when there is none.
	Caller func(req *mcp.CallToolRequest) string
	// Ledger records the paused calls that have returned the person's result. nil means one
	// in memory for this Tool; replicas share one (see [Ledger]).
	Ledger Ledger

	once   sync.Once
	memory *MemoryLedger
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
		return t.check(ctx, req, bind, p)
	}
	hreq, err := t.Call(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, err := t.Client.Do(ctx, hreq, &hitl.CallOptions{DetectOnly: true})
	if err != nil {
		if resp != nil && resp.Response != nil {
			_ = resp.Body.Close()
		}
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.Interrupt == nil {
		return t.Result(ctx, resp.Response, nil)
	}
	it := resp.Interrupt
	if it.Case == nil || it.Case.ReviewURL == "" {
		return nil, fmt.Errorf("hitlmcp: the backend asked for a person without a review URL (%s)", it.Kind)
	}
	// The state outlives the case by the time Wait gives the service to report its expiry,
	// so that a retry still gets the expired case's Result.
	expires := it.ExpiresAt().Add(hitl.DefaultGrace)
	if it.ExpiresAt().IsZero() {
		expires = time.Now().Add(DefaultStateTTL)
	}
	p := &paused{Call: rand.Text(), Expires: expires.Unix(), Interrupt: it}
	if !multiRoundTrip(req) && !urlElicitation(req) {
		// The client cannot be asked; the service may reach the person by its own means.
		return t.check(ctx, req, bind, p)
	}
	return t.ask(req, bind, p)
}

// check waits up to Check for the decision on p; a case still open is asked again.
func (t *Tool) check(ctx context.Context, req *mcp.CallToolRequest, bind []byte, p *paused) (*mcp.CallToolResult, error) {
	ledger := t.ledger()
	if spent, err := ledger.Spent(ctx, p.Call); err != nil {
		return nil, err
	} else if spent {
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
	r, err := t.Client.Wait(wctx, p.Interrupt, &hitl.WaitOptions{PollOnly: true, NoReminders: true})
	switch {
	case err == nil:
	case ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		return t.ask(req, bind, p) // not decided yet
	default:
		return nil, err
	}
	if first, err := ledger.Spend(ctx, p.Call, time.Unix(p.Expires, 0)); err != nil {
		return nil, err
	} else if !first {
		return nil, refusal(ErrReplayed)
	}
	if !multiRoundTrip(req) && urlElicitation(req) {
		// 2025-11-25 "URL Elicitation": the server may say the out-of-band step is done.
		_ = req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: p.Call})
	}
	return t.Result(ctx, nil, r)
}

// ask is "not done" as the call's revision understands it: an input request of the review
// URL with p sealed in requestState where the client can echo it (see [Tool]), an isError
// result naming the link elsewhere.
func (t *Tool) ask(req *mcp.CallToolRequest, bind []byte, p *paused) (*mcp.CallToolResult, error) {
	switch {
	case multiRoundTrip(req):
	case urlElicitation(req) && req.Params.RequestState == "":
	default:
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

// urlElicitation reports whether the session can take a URL-mode elicitation/create.
func urlElicitation(req *mcp.CallToolRequest) bool {
	if req.Session == nil || req.ProtocolVersion() < rev20251125 {
		return false
	}
	ip := req.Session.InitializeParams()
	return ip != nil && ip.Capabilities != nil && ip.Capabilities.Elicitation != nil && ip.Capabilities.Elicitation.URL != nil
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
