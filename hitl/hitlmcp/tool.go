package hitlmcp

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl"
)

// DefaultCheck is how long a retried tool call waits for the human's decision before it
// asks the client again.
const DefaultCheck = 5 * time.Second

// ErrBadState: a retried tool call's requestState was not sealed by this tool with this
// secret (altered, truncated, or sealed for another tool); nothing is polled.
var ErrBadState = errors.New("hitlmcp: requestState is not one this tool sealed")

// Tool is the server side: an MCP tool whose backend may answer with a HITL 202 (a person
// must decide first). Its [Tool.Handle] calls the backend; when the backend asks for a
// human, the tool call returns MCP's "input required" (multi round-trip, protocol
// 2026-07-28): a URL-mode elicitation of the case's review URL, with the case sealed in
// requestState (HMAC-SHA256 with Secret, bound to the tool's name). The client forwards the
// link, and retries the call with requestState; the retry unseals the case, waits up to
// Check for the decision (polling the case, as [hitl.Client.Wait] does), and returns Result's
// tool result — or asks again while the human has not decided. The server keeps no state
// between the calls, so a retry may reach another replica or a restarted process.
//
// For older clients the go-sdk server turns the input request into an elicitation on the
// open call and calls Handle again with the client's answer and the same requestState.
//
// Client, Secret (32 bytes or more), Call and Result are required. A Tool is safe for
// concurrent use once built; a call ends when its context does.
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
	// (resp is nil) — completed, expired with the default applied, or cancelled.
	Result func(ctx context.Context, resp *http.Response, r *hitl.Result) (*mcp.CallToolResult, error)
	// Check is how long a retry waits for the decision; 0 means DefaultCheck.
	Check time.Duration
}

// reviewInput is the key of the input request the tool returns.
const reviewInput = "review"

// Handle is the tool's mcp.ToolHandler.
func (t *Tool) Handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if t.Client == nil || len(t.Secret) < 32 || t.Call == nil || t.Result == nil {
		return nil, errors.New("hitlmcp: Tool needs Client, a Secret of 32 bytes or more, Call and Result")
	}
	if req == nil || req.Params == nil {
		return nil, errors.New("hitlmcp: tool call without params")
	}
	name := req.Params.Name
	if state := req.Params.RequestState; state != "" {
		it, err := t.unseal(name, state)
		if err != nil {
			return nil, err
		}
		return t.check(ctx, name, it)
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
	return t.ask(name, resp.Interrupt)
}

// check waits up to Check for the decision on it; a case still open is asked again.
func (t *Tool) check(ctx context.Context, name string, it *hitl.Interrupt) (*mcp.CallToolResult, error) {
	wait := t.Check
	if wait <= 0 {
		wait = DefaultCheck
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	r, err := t.Client.Wait(wctx, it, &hitl.WaitOptions{PollOnly: true, NoReminders: true})
	switch {
	case err == nil:
		return t.Result(ctx, nil, r)
	case ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		return t.ask(name, it) // not decided yet
	default:
		return nil, err
	}
}

// ask is the "input required" result: the review URL as a URL-mode elicitation, the case
// sealed in requestState.
func (t *Tool) ask(name string, it *hitl.Interrupt) (*mcp.CallToolResult, error) {
	if it.Case == nil || it.Case.ReviewURL == "" {
		return nil, fmt.Errorf("hitlmcp: the backend asked for a person without a review URL (%s)", it.Kind)
	}
	state, err := t.seal(name, it)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{reviewInput: &mcp.ElicitParams{
			Mode: "url", Message: it.Case.Prompt, URL: it.Case.ReviewURL, ElicitationID: it.ID()}},
		RequestState: state,
	}, nil
}

// seal is base64url(interrupt JSON) "." base64url(HMAC-SHA256(secret, name "\n" payload)).
// It is integrity, not secrecy: the client already holds the review URL it carries.
func (t *Tool) seal(name string, it *hitl.Interrupt) (string, error) {
	b, err := json.Marshal(it)
	if err != nil {
		return "", err
	}
	payload := base64.RawURLEncoding.EncodeToString(b)
	return payload + "." + base64.RawURLEncoding.EncodeToString(t.mac(name, payload)), nil
}

// unseal checks state's seal for the tool name and returns the interrupt it holds.
func (t *Tool) unseal(name, state string) (*hitl.Interrupt, error) {
	payload, sig, ok := strings.Cut(state, ".")
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err != nil || !hmac.Equal(got, t.mac(name, payload)) {
		return nil, ErrBadState
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return nil, ErrBadState
	}
	var it hitl.Interrupt
	if err := json.Unmarshal(b, &it); err != nil || it.Case == nil {
		return nil, ErrBadState
	}
	return &it, nil
}

func (t *Tool) mac(name, payload string) []byte {
	m := hmac.New(sha256.New, t.Secret)
	m.Write([]byte(name + "\n" + payload))
	return m.Sum(nil)
}
