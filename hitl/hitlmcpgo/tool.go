package hitlmcpgo

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
	"github.com/hitlkit/hitlkit/internal/mcpcore"
	"github.com/hitlkit/hitlkit/transport"
)

// Tool is the server side on mcp-go: a tool whose backend may answer with a HITL 202 (a
// person must decide first). Register [Tool.Handle] with server.MCPServer.AddTool. It
// behaves as [hitlmcp.Tool] does, with the same code for all but mcp-go's types:
//
//   - 2026-07-28, the client declared URL elicitation (in the request's _meta): an
//     input_required result, a URL-mode input request "review" with the case's review URL
//     (no elicitationId) and the case sealed in requestState; the retry with requestState
//     waits up to Check and returns Result's tool result, or asks again — 9 times at most
//     in a chain: the 10th call in a row (the last of mcp-go's and go-sdk's automatic
//     loops) gets an isError result saying the decision is still pending and to call again
//     later, without the review link.
//   - 2025-11-25, the client declared URL elicitation (in initialize): mcp-go's server
//     sends the same request as a URL-mode elicitation/create (its elicitationId a random
//     id) and calls Handle again within the same call; Handle waits up to Check and returns
//     Result's tool result after notifications/elicitation/complete, or an isError result
//     naming the review link.
//   - every other call — a client with a form handler only or none, on any revision, and
//     revisions before 2025-11-25: the link is never sent as an elicitation; Handle waits up
//     to Check and returns Result's tool result or an isError result naming the link — a
//     credential (its token lets whoever holds it decide the case), there for the model to
//     show its user, and so in the model's context (see [hitlmcp.Tool]).
//
// Only an approval ([transport.Result.Approved]) is a success: a rejection, an expiry (with
// default_action "approve" too), a cancellation and any answer that is not an approval
// reach the client with isError set and, as the first content, a text naming the outcome in
// plain words ("Not done: the person rejected delete_file.") without the review link or
// anything the person gave, whatever Result returned; Result's content follows it. A repeat of a call — the
// same tool, arguments and caller — while its case is open joins that case (an approval
// given after a first "not done" runs the action once); the open cases are kept in the
// Tool's memory until their state expires. While a call waits, a client that gave a
// progress token gets notifications/progress without the review link.
//
// requestState is sealed (AES-256-GCM under a key derived from Secret) over the tool's
// name, its arguments, the caller and an expiry; a state that does not open is
// [hitlmcp.ErrBadState], a state whose call has returned the person's result is
// [hitlmcp.ErrReplayed], refused before any poll. mcp-go sends every error of a tool handler
// as JSON-RPC internal error (-32603), these two as well. Any other failure (the backend
// unreachable, an error from Call or Result) is an isError result with the error's text.
//
// Client, Secret (32 bytes or more), Call and Result are required. A Tool is safe for
// concurrent use once built; do not change its fields after the first call. A call ends
// when its context does.
type Tool struct {
	// Client sends the backend request and polls its case.
	Client *hitl.Client
	// Secret keys the seal on requestState.
	Secret []byte
	// Call builds the backend request for one tool call.
	Call func(ctx context.Context, req mcp.CallToolRequest) (*http.Request, error)
	// Result is the tool's result: from the backend's response when it needed no person
	// (r is nil; Result must not close resp.Body), or from the person's Result (resp is
	// nil). Act only when r.Approved(). On an approval its result goes to the client as it
	// is (an error it returns: an isError result with the error's text). Any other r keeps
	// its verdict, whatever Result made of it: the client gets isError set and, first, a
	// text naming the outcome in plain words (without the review link or anything the
	// person gave), then Result's content, or the text of the error it returned.
	Result func(ctx context.Context, resp *http.Response, r *transport.Result) (*mcp.CallToolResult, error)
	// Check is how long a call waits for the decision before it answers "not done"; 0
	// means [hitlmcp.DefaultCheck].
	Check time.Duration
	// Caller names who calls: a requestState only opens for the same caller, and a repeat
	// only joins the same caller's open case. nil means nobody in particular (mcp-go gives a
	// handler no authenticated user): set it, say to the user your HTTP middleware put in
	// ctx, to keep callers apart.
	Caller func(ctx context.Context, req mcp.CallToolRequest) string
	// Ledger records the paused calls that have returned the person's result. nil means
	// one in memory for this Tool; replicas share one.
	Ledger hitlmcp.Ledger

	once sync.Once
	eng  *mcpcore.Engine
}

// Handle is the tool's server.ToolHandlerFunc.
func (t *Tool) Handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	res, err := t.handle(ctx, req)
	var refused *mcpcore.RefusedError
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &refused):
		return nil, refused.Err
	case ctx.Err() != nil:
		return nil, err
	default:
		return mcp.NewToolResultError(err.Error()), nil
	}
}

// Validate reports what t lacks — a Client, a Secret of 32 bytes or more, Call, Result —
// naming each missing field, or nil. A Tool that lacks any fails every call with this error
// before anything is sent; call Validate before adding the tool to a server to refuse the
// configuration at start instead.
func (t *Tool) Validate() error {
	return mcpcore.Incomplete("hitlmcpgo", t.Client != nil, t.Call != nil, t.Result != nil, len(t.Secret))
}

func (t *Tool) handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := t.Validate(); err != nil {
		return nil, &mcpcore.RefusedError{Err: err}
	}
	version := server.RequestProtocolVersion(ctx)
	c := &mcpcore.Call{Name: req.Params.Name, Bind: t.binding(ctx, req), State: req.Params.RequestState,
		MultiRoundTrip: mcp.IsModernProtocol(version), URLElicitation: urlElicitation(ctx, version)}
	if a := server.ElicitationResponse(req.Params.InputResponses, mcpcore.ReviewInput); a != nil {
		c.Answer = string(a.Action)
	}
	if srv := server.ServerFromContext(ctx); srv != nil {
		if m := req.Params.Meta; m != nil && m.ProgressToken != nil {
			token := m.ProgressToken
			c.Notify = func(ctx context.Context, n float64, msg string) {
				_ = srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress),
					map[string]any{"progressToken": token, "progress": n, "message": msg})
			}
		}
		c.Complete = func(ctx context.Context, id string) {
			_ = srv.SendElicitationComplete(ctx, server.ClientSessionFromContext(ctx), id)
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
		return mcp.NewToolResultError(s.Text), nil
	case s.Ask != nil:
		return server.NewInputRequestBuilder(s.Ask.State).Elicit(mcpcore.ReviewInput, mcp.ElicitationParams{
			Mode: mcp.ElicitationModeURL, Message: s.Ask.Message, URL: s.Ask.URL, ElicitationID: s.Ask.ElicitationID,
		}).ToolResult(), nil
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
				first = append(first, mcp.NewTextContent(text))
			}
			res.Content, res.IsError = append(first, res.Content...), true
			return res
		})
}

// engine is the Tool's state between calls, made at the first call.
func (t *Tool) engine() *mcpcore.Engine {
	t.once.Do(func() {
		var ledger mcpcore.Ledger = t.Ledger
		if t.Ledger == nil {
			ledger = &hitlmcp.MemoryLedger{}
		}
		t.eng = &mcpcore.Engine{Client: t.Client, Secret: t.Secret, Check: t.Check,
			Ledger: func() mcpcore.Ledger { return ledger }}
	})
	return t.eng
}

// binding is what a requestState is sealed for: the tool, the caller and the arguments.
func (t *Tool) binding(ctx context.Context, req mcp.CallToolRequest) []byte {
	caller := ""
	if t.Caller != nil {
		caller = t.Caller(ctx, req)
	}
	args := []byte(req.Params.RawArguments)
	if len(args) == 0 && req.Params.Arguments != nil {
		args, _ = json.Marshal(req.Params.Arguments) // arguments that came in as JSON encode
	}
	return mcpcore.Bind(req.Params.Name, caller, args)
}

// urlElicitation reports whether the client declared URL-mode elicitation for this call:
// in the request's _meta from 2026-07-28, in its initialize request before.
func urlElicitation(ctx context.Context, version string) bool {
	if version != "" && version < mcpcore.Rev20251125 {
		return false
	}
	var caps *mcp.ClientCapabilities
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		caps = info.ClientCapabilities
	} else if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		c := s.GetClientCapabilities()
		caps = &c
	}
	return caps != nil && caps.Elicitation != nil && caps.Elicitation.URL != nil
}
