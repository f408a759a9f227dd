package hitl

import (
	"bytes"
	"errors"
	"net/http"
	"strings"

	"github.com/hitlkit/hitlkit/transport"
)

// Transport returns an [http.RoundTripper] that gives HITL handling to any library that
// takes an *http.Client (an LLM provider's client, an MCP or A2A SDK, a generated API
// client):
//
//	hc := &http.Client{Transport: client.Transport(nil, nil)}
//
// Each request goes through base (nil means [http.DefaultTransport]) and is handled as
// [Client.Do] handles it, by the same code: when the response asks for a human, the question
// is forwarded, kept in the client's store ([WithStore]) and waited for, and RoundTrip
// returns once the human decided (or the case expired or was cancelled). o applies to every
// request (nil means the defaults); its CallbackURL rewrites every request's body, so give
// it only to a transport used for JSON calls. With DetectOnly set, responses pass through.
//
// Only an approval ([transport.Result.Approved]) is a 2xx. The approved response is a new
// 200 OK for the same request; its body is the data of the human's approval where the
// protocol gives one — the data of a HITL case's result, the final task of an A2A run — as
// application/json, and empty otherwise. It is not the answer the service would have given
// to a call that needed no human, and hitlkit sends no second request: the service learned
// the approval when the human gave it, and carrying out what was approved is the service's
// own (an A2A agent's final task says what it did). Any other decision — a rejection, an
// expiry (even with default_action "approve"), a cancellation, a failure, an answer that
// is not a yes (edits, a selection, form values) — is no response and a [*NotApprovedError]
// holding the Result and the Interrupt (errors.As; errors.Is matches [ErrNotApproved]), so
// a library that returns (*T, error) hands its caller an error, never the "no" as a T. A
// caller that reads every decision itself sets [CallOptions].EveryDecisionOK: every
// decision is then a 200 as above (empty for an expiry, a cancellation, an answer without
// data), and [ResultOf] reads the typed Result from it, to be checked before acting. The
// asking response's body is closed.
//
// Every response that asks for no human, a stream (text/event-stream) included, is returned
// untouched, without allocating, whether or not the client has a forwarder. So is the answer
// to an A2A JSON-RPC call marked as A2A no other way (no A2A-Version, no
// application/a2a+json, no WithA2A), which [Client.Do] and [Detect] do read: the A2A SDK
// client that sent the call reads the task itself, and could not read the decided body in
// its place. A marked A2A answer is waited for, and its decided body is the task the run
// ended with, spelled as the agent's answer to the call in the binding the caller spoke
// (see [a2a.Reply]): an A2A SDK client (a2a-go's) reads it as the agent's own answer.
//
// A request body is sent once; with a CallbackURL it is read through GetBody when set,
// otherwise buffered up to 1 MiB (a longer one fails with transport.ErrBodyTooLarge, nothing
// sent).
//
// RoundTrip returns an error and no response when the call was not made or no decision is
// known: an error matching transport.ErrRefusedAddress, nothing sent, for a URL the address
// rules refuse (plain http, localhost, a private address: allow them with
// [transport.WithAllowPrivateAddresses]); the base transport's error as it is; an
// [*InvalidError] or transport.ErrBodyTooLarge when a response may ask for a human but
// cannot be read as such; and a [*WaitError] holding the interrupt when no decision was
// learned — the client has no forwarder (ErrNoForwarder: the interrupt was neither
// forwarded nor waited on), the request's context was cancelled (its cause then matches
// with errors.Is), the case went past its expiry, the forwarder or the store failed. An
// interrupt the store took stays there for [Client.Resume]. [http.Client] wraps these
// errors in a *url.Error; errors.Is and errors.As see through it.
//
// The transport is safe for concurrent use; each RoundTrip waits under its request's
// context and leaves no goroutine behind when it returns. ExampleClient_Transport drives a
// library that only takes an *http.Client through it.
func (c *Client) Transport(base http.RoundTripper, o *CallOptions) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	if o == nil {
		o = &noCallOptions
	}
	return &roundTripper{c: c, base: base, o: o}
}

type roundTripper struct {
	c    *Client
	base http.RoundTripper
	o    *CallOptions
}

// RoundTrip implements http.RoundTripper; see [Client.Transport].
func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	// An unmarked JSON-RPC answer passes through: the A2A SDK client that sent the call
	// reads it, and could not read the decided body in its place.
	resp, it, r, err := t.c.exchange(req.Context(), req, t.o, t.base, false)
	switch {
	case err == nil && r == nil:
		return resp, nil // no human asked (or DetectOnly)
	case err != nil:
		if resp != nil {
			_ = resp.Body.Close()
		}
		var (
			we *WaitError
			na *NotApprovedError
		)
		if it != nil && !errors.As(err, &we) && !errors.As(err, &na) {
			return nil, &WaitError{Interrupt: it, Err: err}
		}
		return nil, err
	}
	_ = resp.Body.Close()
	data := r.Data
	if it != nil && it.Task != nil {
		data = a2aReply(req, it, r) // an A2A run: the agent's final task, in the binding spoken
	}
	body := &decidedBody{Reader: bytes.NewReader(data), result: r}
	header := http.Header{}
	if len(data) > 0 {
		header.Set("Content-Type", "application/json")
	}
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK,
		Proto: resp.Proto, ProtoMajor: resp.ProtoMajor, ProtoMinor: resp.ProtoMinor,
		Header: header, Body: body, ContentLength: int64(len(data)),
		Request: req, TLS: resp.TLS,
	}, nil
}

// decidedBody is the body of a response a Transport waited for: the answer, and the Result.
type decidedBody struct {
	*bytes.Reader
	result *transport.Result
}

func (*decidedBody) Close() error { return nil }

// ResultOf returns the Result a [Client.Transport] waited for before it returned resp, or
// nil when resp did not ask for a human (or did not come from a Transport). Without
// [CallOptions].EveryDecisionOK that Result is always an approval: other decisions come as
// a [*NotApprovedError] instead of a response. It still
// answers after the body was read and closed, as long as resp.Body is the one the transport
// returned.
func ResultOf(resp *http.Response) *transport.Result {
	if resp == nil {
		return nil
	}
	if b, ok := resp.Body.(*decidedBody); ok {
		return b.result
	}
	return nil
}

// WaitError is what a [Client.Transport] returns when a response asked for a human and no
// decision was learned, and what [Client.Do] returns when the client has no forwarder:
// Interrupt is the question (forward it and wait on it with [Client.Wait], or let
// [Client.Resume] find it in the store), Err why no decision came. errors.Is and errors.As
// see Err.
type WaitError struct {
	Interrupt *Interrupt
	Err       error
}

// Error names the case and the cause; it holds no secret.
func (e *WaitError) Error() string {
	return "hitl: no decision on " + e.Interrupt.ID() + ": " + strings.TrimPrefix(e.Err.Error(), "hitl: ")
}

// Unwrap returns Err.
func (e *WaitError) Unwrap() error { return e.Err }
