package hitlmcp

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/internal/mcpcore"
	"github.com/hitlkit/hitlkit/transport"
)

// DefaultCheck is how long a tool call waits for the human's decision before it answers
// "not done" (see [Tool] for which calls wait).
const DefaultCheck = mcpcore.DefaultCheck

// DefaultStateTTL is how long a requestState stays valid when the case gives no expiry.
const DefaultStateTTL = mcpcore.DefaultStateTTL

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
	ErrBadState = mcpcore.ErrBadState
	// ErrReplayed: the requestState's call has already returned the person's result; it is
	// refused before any poll, so one approval runs the action once. On the wire it is
	// JSON-RPC invalid params (-32602).
	ErrReplayed = mcpcore.ErrReplayed
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
//     tool result, or asks again. A chain of retries is asked 9 times at most: the 10th
//     call in a row of a person who has not decided (the last that go-sdk's and mcp-go's
//     automatic loops make) gets an isError result saying the decision is still pending and
//     to call the tool again later, without the review link, where the client's SDK would
//     otherwise end the call with its own "exceeded maximum retries" error.
//   - 2025-11-25, URL elicitation declared: the go-sdk server sends the link as a URL-mode
//     elicitation/create (its elicitationId a random id) and calls Handle again within the
//     same call; Handle waits up to Check, and returns Result's tool result after
//     notifications/elicitation/complete, or an isError result naming the review link.
//   - every other call — a client with a form handler only or none, on any revision, and
//     every revision before 2025-11-25: the link is never sent as an elicitation or input
//     request; Handle waits up to Check (the service may reach the person by its own
//     means), and returns Result's tool result or an isError result naming the review link.
//
// The review link is a credential: its token lets whoever holds it decide the case. It goes
// to the client only to reach the person — in an elicitation or input request to a client
// that declared URL elicitation, for its handler to forward — and in the "not done" isError
// text to a client that did not, which has no other way to show the person the page: that
// text is for the model to show its user, and puts the link in the model's context and in
// whatever the client and the model's provider keep of the conversation. It is never in a
// log, an error, requestState, a progress message or the text naming an outcome.
//
// A tool call never returns an empty success while the person has not decided, and only
// an approval ([transport.Result.Approved]) is a success: a rejection, an expiry (with
// default_action "approve" too), a cancellation, a failure and an answer that is not an
// approval (an edit, a choice) reach the client with isError set and, as the first content,
// a text naming the outcome in plain words ("Not done: the person rejected delete_file.",
// "Not done: the review of delete_file expired before the person decided; …", "… was
// cancelled.") — no review link, no token, nothing the person gave — whatever Result
// returned; Result's content follows it.
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
	// when r.Approved(). On an approval its result goes to the client as it is (an error it
	// returns: an isError result with the error's text). Any other r keeps its verdict,
	// whatever Result made of it: the client gets isError set and, first, a text naming the
	// outcome in plain words (without the review link or anything the person gave), then
	// Result's content, or the text of the error it returned.
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

	engineOnce sync.Once
	eng        *mcpcore.Engine
}

// reviewInput is the key of the input request the tool returns.
const reviewInput = mcpcore.ReviewInput

// Handle is the tool's mcp.ToolHandler. A requestState refused ([ErrBadState],
// [ErrReplayed]) is JSON-RPC invalid params (-32602); a Tool without its required fields,
// or a call whose context ended, is internal error (-32603); any other failure (the backend
// unreachable, an error from Call or Result) is a tool execution error: an isError result
// with the error's text, for the model to read (MCP "Tools", "Error Handling").
func (t *Tool) Handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	res, err := t.handle(ctx, req)
	var rpc *jsonrpc.Error
	var refused *mcpcore.RefusedError
	switch {
	case err == nil || errors.As(err, &rpc):
		return res, err
	case errors.As(err, &refused):
		return nil, refusal(refused.Err)
	case ctx.Err() != nil:
		return nil, withCode(err, jsonrpc.CodeInternalError)
	default:
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
	}
}

// Validate reports what t lacks — a Client, a Secret of 32 bytes or more, Call, Result —
// naming each missing field, or nil. A Tool that lacks any fails every call with this error
// (internal error, -32603) before anything is sent; call Validate before adding the tool to a
// server to refuse the configuration at start instead.
func (t *Tool) Validate() error {
	return mcpcore.Incomplete("hitlmcp", t.Client != nil, t.Call != nil, t.Result != nil, len(t.Secret))
}

func (t *Tool) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := t.Validate(); err != nil {
		return nil, withCode(err, jsonrpc.CodeInternalError)
	}
	if req == nil || req.Params == nil {
		return nil, refusal(errors.New("hitlmcp: tool call without params"))
	}
	c := &mcpcore.Call{Name: req.Params.Name, Bind: t.binding(req), State: req.Params.RequestState,
		MultiRoundTrip: multiRoundTrip(req), URLElicitation: urlElicitation(req)}
	if a, ok := req.Params.InputResponses[reviewInput].(*mcp.ElicitResult); ok {
		c.Answer = a.Action
	}
	if req.Session != nil {
		if token := req.Params.GetProgressToken(); token != nil {
			c.Notify = func(ctx context.Context, n float64, msg string) {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: n, Message: msg})
			}
		}
		c.Complete = func(ctx context.Context, id string) {
			_ = req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: id})
		}
	}
	s, err := mcpcore.Handle(ctx, t.engine(), c,
		func(ctx context.Context) (*http.Request, error) { return t.Call(ctx, req) },
		func(ctx context.Context, resp *http.Response) (*mcp.CallToolResult, error) {
			return t.Result(ctx, resp, nil)
		})
	switch {
	case err != nil:
		return nil, err
	case s.HasDirect:
		return s.Direct, nil
	case s.Text != "":
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: s.Text}}}, nil
	case s.Ask != nil:
		in := &mcp.ElicitParams{Mode: "url", Message: s.Ask.Message, URL: s.Ask.URL, ElicitationID: s.Ask.ElicitationID}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{reviewInput: in}, RequestState: s.Ask.State}, nil
	}
	return mcpcore.Decided(ctx, req.Params.Name, s.Result,
		func(ctx context.Context, r *transport.Result) (*mcp.CallToolResult, error) {
			return t.Result(ctx, nil, r)
		},
		func(res *mcp.CallToolResult, texts ...string) *mcp.CallToolResult {
			if res == nil {
				res = &mcp.CallToolResult{}
			}
			first := make([]mcp.Content, 0, len(texts)+len(res.Content))
			for _, text := range texts {
				first = append(first, &mcp.TextContent{Text: text})
			}
			res.Content, res.IsError = append(first, res.Content...), true
			return res
		})
}

// engine is the Tool's shared state between calls, made at the first call.
func (t *Tool) engine() *mcpcore.Engine {
	t.engineOnce.Do(func() {
		t.eng = &mcpcore.Engine{Client: t.Client, Secret: t.Secret, Check: t.Check,
			Ledger: func() mcpcore.Ledger { return t.ledger() }}
	})
	return t.eng
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
	return mcpcore.Bind(req.Params.Name, caller, []byte(req.Params.Arguments))
}
