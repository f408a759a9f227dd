// Package mcpcore is the protocol-neutral part of a tool whose backend may need a person,
// shared by the MCP adapters (hitl/hitlmcp on the official go-sdk, hitl/hitlmcpgo on
// mark3labs/mcp-go): the sealed, caller- and argument-bound requestState, the open cases a
// repeat joins, the single use of a person's result, the wait with progress, and the words
// the model reads. Each adapter turns its library's request into a [Call] and a [Step] into
// its library's result.
package mcpcore

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/internal/b64"
	"github.com/hitlkit/hitlkit/internal/telemetry"
	"github.com/hitlkit/hitlkit/transport"
)

// DefaultCheck is how long a tool call waits for the human's decision before it answers
// "not done".
const DefaultCheck = 5 * time.Second

// DefaultStateTTL is how long a requestState stays valid when the case gives no expiry.
const DefaultStateTTL = 24 * time.Hour

// Protocol revisions: from Rev20260728 a tool asks with an input-required result; URL-mode
// elicitation exists from Rev20251125.
const (
	Rev20260728 = "2026-07-28"
	Rev20251125 = "2025-11-25"
)

// ReviewInput is the key of the input request a paused tool returns.
const ReviewInput = "review"

var (
	// ErrBadState: the requestState was not sealed by this tool for this call, or expired.
	ErrBadState = errors.New("hitlmcp: requestState is not one this tool sealed for this call")
	// ErrReplayed: the requestState's call has already returned the person's result.
	ErrReplayed = errors.New("hitlmcp: requestState has already returned the person's result")
)

// RefusedError is a request refused before anything is polled (a bad or replayed
// requestState, a call without params): the adapters send it as a JSON-RPC error.
type RefusedError struct{ Err error }

// Error is the refused request's reason.
func (e *RefusedError) Error() string { return e.Err.Error() }

// Unwrap is the reason, for errors.Is (ErrBadState, ErrReplayed).
func (e *RefusedError) Unwrap() error { return e.Err }

// Refuse wraps err as a [RefusedError].
func Refuse(err error) error { return &RefusedError{Err: err} }

// Ledger records which paused calls have returned the person's result (see hitlmcp.Ledger).
type Ledger interface {
	// Spent reports whether the call id has returned its result.
	Spent(ctx context.Context, id string) (bool, error)
	// Spend records that the call id returns its result now, and reports whether this is
	// the first time.
	Spend(ctx context.Context, id string, until time.Time) (bool, error)
}

// Paused is what a requestState holds: the paused call's random id (the same in every state
// of the call, the key in the Ledger), when the state stops being valid (Unix seconds), when
// the case opened, and the case.
type Paused struct {
	Call      string          `json:"call"`
	Expires   int64           `json:"exp"`
	Opened    int64           `json:"opened,omitempty"` // Unix milliseconds
	Interrupt *hitl.Interrupt `json:"it"`
	// Asks counts the input-required results of this chain of retries, the one that
	// carries this state included; a call without requestState starts a chain.
	Asks int `json:"asks,omitempty"`
}

// MaxAsks is how many input-required results a chain of retries gets: the call after them
// (the 10th of the chain, the last that go-sdk's and mcp-go's automatic loops make; the
// TypeScript client's makes 11) gets a [StillPending] text instead, so that the client
// hears "not decided yet, call again" rather than its SDK's "exceeded maximum retries".
const MaxAsks = 9

// StatePrefix names the seal's version; a state without it does not open.
const StatePrefix = "v1."

// MaxState bounds the requestState a retry may carry; a sealed case is a few kilobytes.
const MaxState = 64 << 10

// aead is AES-256-GCM under a key derived from secret for sealing requestState alone.
func aead(secret []byte) (cipher.AEAD, error) {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("hitlmcp requestState v1"))
	block, err := aes.NewCipher(m.Sum(nil))
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// Seal is "v1." base64url(nonce ‖ AES-256-GCM(p, additional data: bind)).
func Seal(secret, bind []byte, p *Paused) (string, error) {
	plain, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	g, err := aead(secret)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, g.NonceSize(), g.NonceSize()+len(plain)+g.Overhead())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails
	return StatePrefix + base64.RawURLEncoding.EncodeToString(g.Seal(nonce, nonce, plain, bind)), nil
}

// Open returns what state holds if it was sealed with secret for bind and has not
// expired; anything else is ErrBadState.
func Open(secret, bind []byte, state string) (*Paused, error) {
	body, ok := strings.CutPrefix(state, StatePrefix)
	if !ok || len(state) > MaxState {
		return nil, ErrBadState
	}
	sealed, err := b64.Canonical(base64.RawURLEncoding, body)
	if err != nil {
		return nil, ErrBadState
	}
	g, err := aead(secret)
	if err != nil {
		return nil, err
	}
	if len(sealed) < g.NonceSize()+g.Overhead() {
		return nil, ErrBadState
	}
	plain, err := g.Open(nil, sealed[:g.NonceSize()], sealed[g.NonceSize():], bind)
	if err != nil {
		return nil, ErrBadState
	}
	var p Paused
	if err := json.Unmarshal(plain, &p); err != nil || p.Call == "" || p.Interrupt == nil || p.Interrupt.Case == nil || p.Interrupt.Case.ReviewURL == "" {
		return nil, ErrBadState
	}
	if !time.Now().Before(time.Unix(p.Expires, 0)) {
		return nil, fmt.Errorf("%w: expired", ErrBadState)
	}
	return &p, nil
}

// Bind is what a requestState is sealed for: the tool, the caller and the arguments
// (decoded and encoded again, so that a client re-encoding them keeps them the same).
func Bind(name, caller string, args []byte) []byte {
	var v any
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	if d.Decode(&v) == nil {
		if b, err := json.Marshal(v); err == nil {
			args = b
		}
	}
	b, _ := json.Marshal([]string{name, caller, string(args)}) // strings always encode
	return b
}

// Call is one tool call as the engine sees it.
type Call struct {
	Name string
	// Bind is [Bind] of the call.
	Bind []byte
	// State is the requestState the call carries ("" on a first call).
	State string
	// Answer is the client's action on the review input request ("accept", "decline",
	// "cancel"), "" when it sent none.
	Answer string
	// MultiRoundTrip: the call's revision has input-required results (2026-07-28 on).
	MultiRoundTrip bool
	// URLElicitation: the client declared URL-mode elicitation for this call.
	URLElicitation bool
	// Notify sends one notifications/progress; nil when the client gave no progress token.
	Notify func(ctx context.Context, progress float64, message string)
	// Complete sends notifications/elicitation/complete for a 2025-11-25 URL elicitation.
	Complete func(ctx context.Context, elicitationID string)
}

// Ask is a URL input request of the review link, with the call sealed in State.
type Ask struct {
	Message, URL string
	// ElicitationID is set on 2025-11-25 only (2026-07-28 URL input requests carry none).
	ElicitationID string
	State         string
}

// Step is what a call comes to: exactly one of Direct (the backend needed no person: set
// when HasDirect), Result (the person decided; this call returns it), Text (an isError
// text: not done yet, or done by an identical call) or Ask.
type Step[R any] struct {
	Direct    R
	HasDirect bool
	Result    *transport.Result
	Text      string
	Ask       *Ask
}

// Engine is the state a tool keeps between calls: the open cases repeats join.
type Engine struct {
	Client *hitl.Client
	Secret []byte
	Check  time.Duration
	// Ledger returns the ledger of spent calls.
	Ledger func() Ledger

	mu    sync.Mutex
	calls map[string]*openCall // the open cases by call, keyed by bindKey
	prune int                  // the size at which expired calls are dropped next
}

// openCall is a tool call whose case is open, for the repeats that join it.
type openCall struct {
	ready chan struct{} // closed once the first call knows its case (p), or that it has none
	p     *Paused
}

// Handle runs one call: start builds the backend request; direct makes the tool's result
// from a response that needed no person (it must not close the body). An error is a
// [*RefusedError] or any other failure (the adapter's tool execution error, or internal
// error when ctx has ended).
func Handle[R any](ctx context.Context, e *Engine, c *Call, start func(context.Context) (*http.Request, error), direct func(context.Context, *http.Response) (R, error)) (Step[R], error) {
	var s Step[R]
	if c.State != "" {
		p, err := Open(e.Secret, c.Bind, c.State)
		if err != nil {
			return s, Refuse(err)
		}
		return check[R](ctx, e, c, p, false)
	}
	p, opened, err := e.join(ctx, c.Bind)
	if err != nil {
		return s, err
	}
	if p == nil {
		func() {
			defer func() { opened(p) }() // also if start or direct panics: no repeat waits for it
			p, s, err = begin(ctx, e, start, direct)
		}()
		if p == nil {
			return s, err
		}
	}
	// A repeat of the call while its case is open (joined) goes on with that case, as the
	// first call did: its outcome, never a second case.
	joined := opened == nil
	if !c.URLElicitation {
		// The client cannot be sent the link; the service may reach the person by its own
		// means, and the result names the link.
		return check[R](ctx, e, c, p, joined)
	}
	return ask[R](e, c, p)
}

// begin calls the backend for a call that joined no open case: its result when no person
// is needed (p nil), or the case the backend opened.
func begin[R any](ctx context.Context, e *Engine, start func(context.Context) (*http.Request, error), direct func(context.Context, *http.Response) (R, error)) (*Paused, Step[R], error) {
	var s Step[R]
	hreq, err := start(ctx)
	if err != nil {
		return nil, s, err
	}
	resp, err := e.Client.Do(ctx, hreq, &hitl.CallOptions{DetectOnly: true})
	if err != nil {
		if resp != nil && resp.Response != nil {
			_ = resp.Body.Close()
		}
		return nil, s, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.Interrupt == nil {
		s.Direct, err = direct(ctx, resp.Response)
		s.HasDirect = err == nil
		return nil, s, err
	}
	it := resp.Interrupt
	if it.Case == nil || it.Case.ReviewURL == "" {
		return nil, s, fmt.Errorf("hitlmcp: the backend asked for a person without a review URL (%s)", it.Kind)
	}
	// The state outlives the case by the time Wait gives the service to report its expiry,
	// so that a retry still gets the expired case's Result.
	expires := it.ExpiresAt().Add(hitl.DefaultGrace)
	if it.ExpiresAt().IsZero() {
		expires = time.Now().Add(DefaultStateTTL)
	}
	return &Paused{Call: rand.Text(), Expires: expires.Unix(), Opened: time.Now().UnixMilli(), Interrupt: it}, s, nil
}

// join returns the open case of the call bind when there is one (waiting, if an identical
// call is opening it, for the backend's answer). Otherwise the call is the first: opened
// must then be called with its case, or nil when it has none, before the call returns.
func (e *Engine) join(ctx context.Context, bind []byte) (p *Paused, opened func(*Paused), err error) {
	key := bindKey(bind)
	for {
		e.mu.Lock()
		oc := e.calls[key]
		if oc != nil && oc.p != nil && !time.Now().Before(time.Unix(oc.p.Expires, 0)) {
			delete(e.calls, key)
			oc = nil
		}
		if oc == nil {
			oc = &openCall{ready: make(chan struct{})}
			e.add(key, oc)
			e.mu.Unlock()
			return nil, func(p *Paused) {
				e.mu.Lock()
				defer e.mu.Unlock()
				oc.p = p
				if p == nil && e.calls[key] == oc {
					delete(e.calls, key)
				}
				close(oc.ready)
			}, nil
		}
		e.mu.Unlock()
		select {
		case <-oc.ready:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		e.mu.Lock()
		p = oc.p
		e.mu.Unlock()
		if p != nil {
			return p, nil, nil
		}
		// The first call needed no person, or failed: this one calls the backend itself.
	}
}

// add records oc under key, dropping the expired calls now and then; e.mu is held.
func (e *Engine) add(key string, oc *openCall) {
	if e.calls == nil {
		e.calls = map[string]*openCall{}
	}
	if len(e.calls) >= e.prune {
		now := time.Now()
		for k, c := range e.calls {
			if c.p != nil && !now.Before(time.Unix(c.p.Expires, 0)) {
				delete(e.calls, k)
			}
		}
		e.prune = max(2*len(e.calls), 64)
	}
	e.calls[key] = oc
}

// forget ends the joining of the call bind to the case of paused call id: a repeat now
// opens a new case.
func (e *Engine) forget(bind []byte, id string) {
	key := bindKey(bind)
	e.mu.Lock()
	defer e.mu.Unlock()
	if oc := e.calls[key]; oc != nil && oc.p != nil && oc.p.Call == id {
		delete(e.calls, key)
	}
}

// bindKey is the map key of a call's binding.
func bindKey(bind []byte) string {
	sum := sha256.Sum256(bind)
	return string(sum[:])
}

// check waits up to Check for the decision on p; a case still open is asked again. joined
// says the call is a repeat that joined p's case.
func check[R any](ctx context.Context, e *Engine, c *Call, p *Paused, joined bool) (Step[R], error) {
	var s Step[R]
	ledger := e.Ledger()
	if spent, err := ledger.Spent(ctx, p.Call); err != nil {
		return s, err
	} else if spent {
		if joined {
			s.Text = DoneElsewhere(c.Name)
			return s, nil
		}
		return s, Refuse(ErrReplayed)
	}
	if c.Answer == "decline" || c.Answer == "cancel" {
		s.Text = NotDone(c.Name, p.Interrupt, "the review link was "+c.Answer+"d")
		return s, nil
	}
	wait := e.Check
	if wait <= 0 {
		wait = DefaultCheck
	}
	wctx, cancel := context.WithTimeoutCause(ctx, wait, telemetry.Paused) // the check ends, the case stays open
	defer cancel()
	progress := startProgress(wctx, c.Notify, time.UnixMilli(p.Opened))
	r, err := e.Client.Wait(wctx, p.Interrupt, &hitl.WaitOptions{PollOnly: true, NoReminders: true, OnUpdate: progress.update})
	progress.stop()
	switch {
	case err == nil:
	case ctx.Err() == nil && wctx.Err() != nil:
		return ask[R](e, c, p) // not decided yet
	case ctx.Err() == nil:
		e.forget(c.Bind, p.Call) // the case cannot be read: a repeat opens a new one
		return s, err
	default:
		return s, err
	}
	if first, err := ledger.Spend(ctx, p.Call, time.Unix(p.Expires, 0)); err != nil {
		return s, err
	} else if !first {
		if joined {
			s.Text = DoneElsewhere(c.Name)
			return s, nil
		}
		return s, Refuse(ErrReplayed)
	}
	e.forget(c.Bind, p.Call)
	if !c.MultiRoundTrip && c.URLElicitation && c.Complete != nil {
		// 2025-11-25 "URL Elicitation": the server may say the out-of-band step is done.
		c.Complete(ctx, p.Call)
	}
	s.Result = r
	return s, nil
}

// ask is "not done" as the call's revision understands it: an input request of the review
// URL with p sealed in requestState where the client can echo it, an isError text
// elsewhere.
func ask[R any](e *Engine, c *Call, p *Paused) (Step[R], error) {
	var s Step[R]
	if !c.URLElicitation || (!c.MultiRoundTrip && c.State != "") {
		s.Text = NotDone(c.Name, p.Interrupt, "no decision yet")
		return s, nil
	}
	next := *p // p may be the open case that repeats share: it is not written
	next.Asks = 1
	if c.State != "" {
		next.Asks = p.Asks + 1
	}
	if c.MultiRoundTrip && next.Asks > MaxAsks {
		s.Text = StillPending(c.Name)
		return s, nil
	}
	state, err := Seal(e.Secret, c.Bind, &next)
	if err != nil {
		return s, err
	}
	s.Ask = &Ask{Message: p.Interrupt.Prompt(), URL: p.Interrupt.Case.ReviewURL, State: state}
	if !c.MultiRoundTrip {
		s.Ask.ElicitationID = p.Call // 2026-07-28 URL input requests carry none
	}
	return s, nil
}

// NotDone is the isError text for a call whose person has not decided: the service's prompt
// ends as a sentence before the review link.
func NotDone(tool string, it *hitl.Interrupt, why string) string {
	prompt := strings.TrimSpace(it.Prompt())
	if prompt != "" && !strings.ContainsAny(prompt[len(prompt)-1:], ".?!") {
		prompt += "."
	}
	if prompt != "" {
		prompt += " "
	}
	return fmt.Sprintf("Not done: %s waits for a person's decision (%s). %sReview: %s", tool, why, prompt, it.Case.ReviewURL)
}

// StillPending is the isError text of a retry whose chain has had [MaxAsks] input-required
// results while the person has not decided: it names no review link (the client has it
// already) and says how to go on.
func StillPending(tool string) string {
	return fmt.Sprintf("Not done: %s still waits for a person's decision; the review stays open. Call %s again later with the same arguments to get the decision.", tool, tool)
}

// DoneElsewhere is the isError text of a repeat whose case's outcome an identical call
// running at the same time returned.
func DoneElsewhere(tool string) string {
	return fmt.Sprintf("Not done by this call: the person's decision on %s was returned to an identical call made at the same time.", tool)
}

// Decided is the tool's result for the person's Result r, made by result (the Tool's Result
// callback, which is told r). An approval is result's result as it is. Any other outcome
// keeps the verdict, whatever result made of it: notApproved gets result's R (the zero R when
// result failed) and texts — first [Verdict], then result's error text when it failed — and
// returns the isError result with those texts before R's content.
func Decided[R any](ctx context.Context, tool string, r *transport.Result, result func(context.Context, *transport.Result) (R, error), notApproved func(res R, texts ...string) R) (R, error) {
	res, err := result(ctx, r)
	if r.Approved() {
		return res, err
	}
	if err != nil {
		var zero R
		return notApproved(zero, Verdict(tool, r), err.Error()), nil
	}
	return notApproved(res, Verdict(tool, r)), nil
}

// Verdict is the first text of a tool's result for a Result that is not an approval: the
// outcome in plain words, for the model to read before anything the tool's Result callback
// made of it. It names no review URL or token and nothing the person gave (no reason, no
// data): only the tool and how the case ended.
func Verdict(tool string, r *transport.Result) string {
	var why string
	switch {
	case r == nil:
		why = "the review of %s ended without the person's approval."
	case r.Status == transport.StatusCompleted && r.Decision == transport.DecisionReject:
		why = "the person rejected %s."
	case r.Status == transport.StatusCompleted && r.Decision == transport.DecisionAnswer:
		why = "the person did not approve %s as asked; they answered with changes or another choice instead."
	case r.Status == transport.StatusExpired && r.DefaultApplied:
		why = "the review of %s expired before the person decided; the default the service applied is not the person's approval."
	case r.Status == transport.StatusExpired:
		why = "the review of %s expired before the person decided."
	case r.Status == transport.StatusCancelled:
		why = "the review of %s was cancelled."
	case r.Status == transport.StatusRejected:
		why = "the service refused the review of %s."
	case r.Status == transport.StatusFailed:
		why = "the review of %s failed."
	default:
		why = "the review of %s ended without the person's approval."
	}
	return "Not done: " + fmt.Sprintf(why, tool)
}

// Incomplete is the error of a Tool (named pkg: "hitlmcp", "hitlmcpgo") that lacks what it
// needs, naming each field that is missing or too short; nil when it has everything.
func Incomplete(pkg string, client, call, result bool, secretLen int) error {
	var missing []string
	if !client {
		missing = append(missing, "Client is nil (a hitl.Client)")
	}
	if secretLen < 32 {
		missing = append(missing, fmt.Sprintf("Secret has %d bytes, needs 32 or more (random, kept by the server)", secretLen))
	}
	if !call {
		missing = append(missing, "Call is nil (it builds the request to the service)")
	}
	if !result {
		missing = append(missing, "Result is nil (it turns the outcome into the tool's result)")
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%s: Tool is incomplete: %s", pkg, strings.Join(missing, "; "))
}
