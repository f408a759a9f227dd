package hitl

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/internal/clientcfg"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/pace"
	"github.com/hitlkit/hitlkit/internal/sse"
	"github.com/hitlkit/hitlkit/transport"
)

// DefaultGrace is how long Wait keeps polling past a case's expires_at for the service to
// report the expiry, before giving up with ErrPastExpiry.
const DefaultGrace = time.Minute

// Client detects HITL interrupts in responses, forwards them to the human and waits for the
// decision. Create it with [NewClient]. A Client is safe for concurrent use; it holds no
// per-wait state. The methods of a nil *Client return an error saying to call NewClient.
type Client struct {
	http           *http.Client
	service        *http.Client // http, dialling public addresses only unless allowed
	logger         *slog.Logger
	forward        Forwarder
	callbacks      *Callbacks
	authorization  func(ctx context.Context) (string, error)
	trustedOrigins map[string]bool
	detect         DetectOptions
	minInterval    time.Duration
	maxInterval    time.Duration
	discovery      discoveryCache
	autoDiscover   bool
	requestTimeout time.Duration
	pollInterval   time.Duration
	store          Store
	waiters        []transport.Waiter[*Interrupt]        // WithWaiter's
	kinds          map[Kind]transport.Waiter[*Interrupt] // WithKindWaiter's
	defaultWays    []transport.Waiter[*Interrupt]        // the stream, callbacks and waiters: see Client.ways
	polls          *transport.Slots                      // bound on polls in flight per service origin
	deviations     deviations                            // what services did beside the spec, each logged once
	cfg            *clientcfg.Config
}

// NewClient returns a Client configured by opts: the common options of package transport
// (WithHTTPClient, WithAuthorization, WithAllowPrivateAddresses, …) and this package's With
// functions. Defaults: http.DefaultClient, no logging, no forwarder (see [WithForwarder]),
// no credentials on polls, HTTPS-only URLs at public addresses, polls paced by the server
// within [1 s, 5 min] (30 s without a Retry-After), bodies up to 1 MiB. A nil option is
// skipped; a bad value, or an option of another client, is an error matching [transport.ErrInvalidOption].
func NewClient(opts ...transport.Option) (*Client, error) {
	c := &Client{minInterval: pace.MinInterval, maxInterval: pace.MaxInterval}
	cfg, err := clientcfg.New("hitl", c, clientcfg.Defaults{RequestTimeout: pace.RequestTimeout}, opts)
	if err != nil {
		return nil, err
	}
	if c.minInterval > c.maxInterval {
		return nil, errors.New("hitl: NewClient: minimum poll interval is above the maximum")
	}
	c.cfg = cfg
	c.http, c.service, c.logger, c.polls = cfg.HTTP, cfg.Service, cfg.Logger, cfg.Polls
	c.authorization = cfg.Credential
	c.detect.MaxBody = cfg.MaxBody
	c.detect.AllowPrivateAddresses = cfg.AllowPrivateAddresses
	c.requestTimeout, c.pollInterval = cfg.RequestTimeout, cfg.PollInterval
	c.defaultWays = append([]transport.Waiter[*Interrupt]{streamWay{c}, callbackWay{c}}, c.waiters...)
	return c, nil
}

// option is an option of hitl clients.
func option(name string, set func(*Client) error) transport.Option {
	return clientcfg.Own("hitl", name, set)
}

// WithForwarder sets how the client puts a question in front of the human. Default: none:
// [Client.Do] and [Client.Transport] pass every response that needs no human through, and
// return one that asks for a human with its Interrupt and [ErrNoForwarder], unless the call
// brings its own forwarder. A nil f is refused.
func WithForwarder(f Forwarder) transport.Option {
	return option("WithForwarder", func(c *Client) error {
		if f == nil {
			return errors.New("nil forwarder")
		}
		c.forward = f
		return nil
	})
}

// WithCallbacks makes Wait listen to cb as well: a verified callback for the case wakes the
// wait, which confirms the outcome with a poll at once. Mount cb at the URL the calls give
// as hitl_callback_url (see [CallOptions].CallbackURL and [SetCallbackURL]). Default: no
// callbacks are heard. A nil cb is refused.
func WithCallbacks(cb *Callbacks) transport.Option {
	return option("WithCallbacks", func(c *Client) error {
		if cb == nil {
			return errors.New("nil receiver")
		}
		c.callbacks = cb
		return nil
	})
}

// WithTrustedOrigins allows the credential of [transport.WithAuthorization] (or the one
// [Client.Do] reuses) to be sent to poll URLs on these origins as well
// ("https://api.example.com"), for services whose poll endpoint lives on another host.
// Default: only the origin of the request that produced the interrupt.
func WithTrustedOrigins(origins ...string) transport.Option {
	return option("WithTrustedOrigins", func(c *Client) error {
		if c.trustedOrigins == nil {
			c.trustedOrigins = make(map[string]bool)
		}
		for i, o := range origins {
			norm := httpx.OriginOf(o)
			if norm == "" {
				return fmt.Errorf("origin %d of %d is not one (scheme://host[:port])", i+1, len(origins))
			}
			c.trustedOrigins[norm] = true
		}
		return nil
	})
}

// WithA2A reads every 2xx (a 201 included) as a possible A2A answer (see
// [DetectOptions].A2A): for relays and A2A 0.3 calls that carry no A2A marker Detect
// recognises. Default: only answers marked as A2A or answering a recognised A2A call.
func WithA2A() transport.Option {
	return option("WithA2A", func(c *Client) error {
		c.detect.A2A = true
		return nil
	})
}

// WithStrict rejects what the spec only recommends against (a prompt over 500 characters).
// Default: such a hitl object is valid, with a warning.
func WithStrict() transport.Option {
	return option("WithStrict", func(c *Client) error {
		c.detect.Strict = true
		return nil
	})
}

// WithReadTimeout bounds reading the body of a call's 202 or A2A answer (see
// [DetectOptions].ReadTimeout). Default 30 s. The caller's context still bounds the call as a
// whole; this deadline holds even when that context has none. d must be positive.
func WithReadTimeout(d time.Duration) transport.Option {
	return option("WithReadTimeout", func(c *Client) error {
		if d <= 0 {
			return errors.New("not positive")
		}
		c.detect.ReadTimeout = d
		return nil
	})
}

// WithPollIntervals clamps every delay between two polls of a case, the server's Retry-After
// included, to [lo, hi]. lo may not be under 1 s: HITL Protocol §13.5 allows 60 requests per
// minute per case. Default [1 s, 5 min].
func WithPollIntervals(lo, hi time.Duration) transport.Option {
	return option("WithPollIntervals", func(c *Client) error {
		if lo < pace.MinInterval {
			return errors.New("minimum under 1 s would exceed 60 polls per minute")
		}
		if hi < lo {
			return errors.New("maximum below minimum")
		}
		c.minInterval, c.maxInterval = lo, hi
		return nil
	})
}

// WithAutoDiscovery makes Wait fetch the service's discovery document on first contact with
// its origin (once, then cached; see [Client.Discover]) so that it paces polls by it and
// follows the event stream it advertises when a case has no events_url. Default: only a
// document already fetched with Discover is used.
func WithAutoDiscovery() transport.Option {
	return option("WithAutoDiscovery", func(c *Client) error {
		c.autoDiscover = true
		return nil
	})
}

// timeout is the bound of one request to a service URL.
func (c *Client) timeout() time.Duration {
	return c.requestTimeout
}

// Detect is [Detect] with the client's detection options.
func (c *Client) Detect(resp *http.Response) (*Interrupt, error) {
	if c == nil {
		return nil, errNilClient
	}
	return c.recognise(resp, true)
}

// recognise is Detect; rpc says whether the answer to an unmarked A2A JSON-RPC call is read.
func (c *Client) recognise(resp *http.Response, rpc bool) (*Interrupt, error) {
	it, err := detect(resp, &c.detect, rpc)
	if it != nil && resp.Request != nil {
		for _, w := range it.Warnings {
			c.deviation(resp.Request.Context(), "hitl: "+w)
		}
	}
	return it, err
}

// CallOptions tunes one [Client.Do], or every call through a [Client.Transport]. A nil
// *CallOptions means the defaults.
type CallOptions struct {
	// DetectOnly returns the Interrupt without forwarding or waiting.
	DetectOnly bool
	// Forwarder overrides the client's forwarder for this call.
	Forwarder Forwarder
	// CallbackURL, when set, is added to the request's JSON body as hitl_callback_url, so
	// the service calls the agent back when the case ends (§9). The body must be a JSON
	// object or empty, and readable again (http.NewRequest sets GetBody for the usual
	// bodies).
	CallbackURL string
	// Wait tunes the wait.
	Wait *WaitOptions
	// Labels are copied onto the Interrupt the call returns, before it is forwarded and kept
	// (see [Interrupt].Labels).
	Labels map[string]string
	// EveryDecisionOK returns every decision the wait learns as a success, for a caller that
	// reads the Result itself ([Response].Result, or [ResultOf] for a [Client.Transport]):
	// a rejection, an expiry, a cancellation, an answer that is not a yes are then no error,
	// and a Transport answers each with a 200. Default false: only [transport.Result.Approved]
	// is a success, anything else is a [*NotApprovedError].
	EveryDecisionOK bool
}

// Response is what [Client.Do] returns: the service's response, and, when it asked for a
// human, the Interrupt and (unless DetectOnly) the Result.
type Response struct {
	*http.Response
	Interrupt *Interrupt
	Result    *transport.Result
}

// Do sends req and, when the response asks for a human, forwards the question, waits for the
// decision and returns it with the response. When no human is needed it returns the response
// untouched, whether or not the client has a forwarder. The response body is always the
// caller's to read and close; a 202 body that was inspected is restored first.
//
// After a wait the Response is still the service's own answer to req — a 202 whose body is
// the hitl object, review link and token included (keep it out of logs) — with the decision
// in Response.Result and what the person gave in Result.Data ([ApprovalOf], [InputOf], …).
// [Client.Transport], for libraries that read only the body, answers an approval with a 200
// whose body is Result.Data instead.
//
// Only a human's approval is a success: when the decision is anything else — a rejection,
// an expiry (even with default_action "approve"), a cancellation, a failure, an answer that
// is not a yes — Do returns the Response (with its Interrupt and Result) and a
// [*NotApprovedError] matching [ErrNotApproved], so code that only checks err never goes
// ahead on a "no". Set [CallOptions].EveryDecisionOK to read every decision from
// Response.Result with a nil error. [Client.Transport] keeps the same rule.
//
// A request whose URL the address rules refuse (plain http, localhost, a private address,
// without [transport.WithAllowPrivateAddresses]) is not sent: the error matches
// transport.ErrRefusedAddress. When the response asks for a human and the client has no
// forwarder, Do returns the Response with its Interrupt, neither forwarded nor waited on, and
// a [*WaitError] matching [ErrNoForwarder] — but for an A2A task that asks for input with
// [WaitOptions].Ask set: the Asker puts that question, so no forwarder is needed. Without
// WaitOptions.Ask such a task is returned the same way, with [ErrNoAsker], before any
// forwarder is told: nobody could send the person's answer back. With a store
// ([WithStore]) the interrupt is stored before it is forwarded: a store that fails ends Do
// before anyone is asked, and a forward that fails deletes it again. A nil req or ctx is an
// error. On an invalid hitl object it returns the response and an [*InvalidError]. On a wait
// that ends without a decision it returns the response, the interrupt and the error; save
// the interrupt to wait again later. Cancelling ctx stops the wait and returns
// context.Cause(ctx).
func (c *Client) Do(ctx context.Context, req *http.Request, o *CallOptions) (*Response, error) {
	switch {
	case c == nil:
		return nil, errNilClient
	case req == nil:
		return nil, errors.New("hitl: Do needs a request: build one with http.NewRequestWithContext")
	case ctx == nil:
		return nil, errors.New("hitl: Do needs a context: pass context.Background() when there is none")
	}
	resp, it, r, err := c.exchange(ctx, req.WithContext(ctx), o, clientSender{c.http}, true)
	if resp == nil {
		return nil, err
	}
	return &Response{Response: resp, Interrupt: it, Result: r}, err
}

// clientSender sends through an *http.Client, naming the request in its errors.
type clientSender struct{ hc *http.Client }

func (s clientSender) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("hitl: %s %s: %w", req.Method, httpx.Redact(req.URL.String()), httpx.StripURL(err))
	}
	return resp, nil
}

// exchange is the one call both [Client.Do] and [Client.Transport] make: it sends req (whose
// context is ctx) through send and, when the response asks for a human, forwards the question,
// keeps the interrupt in the store, waits for the decision and forgets it again. It returns
// the response (nil when nothing came back), the interrupt and the result as far as it got.
// rpc says whether the answer to an unmarked A2A JSON-RPC call is read (Do) or passed through
// (Transport). It allocates nothing for a response that asks for no human, but for a JSON
// answer to a JSON POST when rpc is set, whose request body it looks at again (see
// [DetectOptions].A2A).
func (c *Client) exchange(ctx context.Context, req *http.Request, o *CallOptions, send http.RoundTripper, rpc bool) (*http.Response, *Interrupt, *transport.Result, error) {
	if c == nil {
		closeBody(req)
		return nil, nil, nil, errNilClient
	}
	if o == nil {
		o = &noCallOptions
	}
	forward := o.Forwarder
	if forward == nil {
		forward = c.forward
	}
	if err := c.checkTarget(req); err != nil {
		closeBody(req)
		return nil, nil, nil, err
	}
	if o.CallbackURL != "" {
		req = req.Clone(ctx)
		if err := withCallbackURL(req, o.CallbackURL); err != nil {
			return nil, nil, nil, err
		}
	}
	resp, err := send.RoundTrip(req)
	if err != nil {
		return nil, nil, nil, err
	}
	it, err := c.recognise(resp, rpc)
	if it != nil && len(o.Labels) > 0 {
		it.Labels = maps.Clone(o.Labels)
	}
	if err != nil || it == nil || o.DetectOnly {
		return resp, it, nil, err
	}
	if forward == nil && !askedByWait(it, o.Wait) {
		return resp, it, nil, &WaitError{Interrupt: it, Err: ErrNoForwarder}
	}
	if it.Kind == KindA2AInput && (o.Wait == nil || o.Wait.Ask == nil) {
		// Nobody could send the person's answer back: ask nobody.
		return resp, it, nil, &WaitError{Interrupt: it, Err: ErrNoAsker}
	}
	c.logger.LogAttrs(ctx, slog.LevelDebug, "hitl: human input required", slog.Any("interrupt", *it))
	// One observed wait from here: forwarding the question is part of it.
	r, err := c.cfg.Observe(ctx, questionOf(it), func(ctx context.Context) (*transport.Result, error) {
		// Stored before anyone is asked, so that an answer given to a question that was
		// shown is never one the store does not hold.
		if err := c.keep(ctx, it); err != nil {
			return nil, fmt.Errorf("%w; nobody was asked", err)
		}
		if forward != nil {
			labels := maps.Clone(it.Labels)
			if err := observedForward(forward)(ctx, it); err != nil {
				c.forget(ctx, it)
				return nil, fmt.Errorf("hitl: forward case %s: %w", it.ID(), err)
			}
			if !maps.Equal(labels, it.Labels) {
				c.relabel(ctx, it) // where the forwarder put the question (a chat message)
			}
		}
		auth := c.authorization
		if auth == nil {
			if h := req.Header.Get("Authorization"); h != "" {
				auth = func(context.Context) (string, error) { return h, nil }
			}
		}
		r, err := c.wait(ctx, it, o.Wait, auth, forward)
		if err == nil {
			c.forget(ctx, it)
		}
		return r, err
	})
	if err != nil {
		return resp, it, r, err
	}
	if !r.Approved() && !o.EveryDecisionOK {
		return resp, it, r, &NotApprovedError{Interrupt: it, Result: r}
	}
	return resp, it, r, nil
}

// errNilClient is what a method of a nil *Client returns, where it would otherwise panic.
var errNilClient = errors.New("hitl: nil *Client: build one with hitl.NewClient")

// askedByWait reports whether the wait itself puts its question to a person, so that no
// forwarder is needed: an A2A task that asks for input, with [WaitOptions].Ask.
func askedByWait(it *Interrupt, o *WaitOptions) bool {
	return it.Kind == KindA2AInput && o != nil && o.Ask != nil
}

// checkTarget refuses, before anything is sent, a call whose URL the address rules refuse
// (see [transport.WithAllowPrivateAddresses]): the error names the call (its URL redacted) and
// the option, and matches transport.ErrRefusedAddress.
func (c *Client) checkTarget(req *http.Request) error {
	if req.URL == nil {
		return errors.New("hitl: the request has no URL")
	}
	err := clientcfg.CheckURL(req.URL, c.detect.AllowPrivateAddresses)
	if err == nil {
		return nil
	}
	return fmt.Errorf("hitl: %s %s refused before sending: %w", req.Method, httpx.Redact(req.URL.String()), err)
}

// noCallOptions is the defaults, shared read-only.
var noCallOptions CallOptions

// closeBody closes the body of a request that will not be sent, as a RoundTripper must.
func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// withCallbackURL rewrites req's JSON body to carry hitl_callback_url.
func withCallbackURL(req *http.Request, callbackURL string) error {
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		orig := req.Body
		defer orig.Close() // replaced below, or not sent at all
		rc := orig
		if req.GetBody != nil {
			var err error
			if rc, err = req.GetBody(); err != nil {
				return fmt.Errorf("hitl: CallbackURL: %w", err)
			}
			defer rc.Close()
		}
		var err error
		if body, err = httpx.ReadLimited(rc, httpx.DefaultBodyLimit); err != nil {
			return fmt.Errorf("hitl: CallbackURL: read the request body: %w", err)
		}
	}
	body, err := SetCallbackURL(body, callbackURL)
	if err != nil {
		return err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	req.ContentLength = int64(len(body))
	req.Header = req.Header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	if req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return nil
}

// WaitOptions tunes one [Client.Wait]. A nil *WaitOptions means the defaults.
type WaitOptions struct {
	// Grace is how long to keep polling past the case's expires_at for the service to report
	// the expiry. 0 means DefaultGrace.
	Grace time.Duration
	// OnUpdate, when set, is called with each new waiting state (pending, opened,
	// in_progress and its progress, reminders), whether a poll or the event stream reported
	// it; calls never overlap. It must not block for long.
	OnUpdate func(Update)
	// PollOnly ignores the case's events_url and the client's callbacks: the wait polls,
	// beside any WithWaiter. Ways, when set, takes precedence.
	PollOnly bool
	// Ways, when non-nil, are the ways of learning a HITL case's outcome beside polling for
	// this wait, in place of the client's (its event stream, its callbacks and every
	// WithWaiter): for instance []Waiter{c.CallbackWaiter(), button}. An empty slice polls
	// only. Polling always runs: the service is the source of truth. A2A tasks run the ways
	// that are not the client's own (see WithWaiter).
	Ways []transport.Waiter[*Interrupt]
	// Ask collects the human's answer when an A2A task asks a question (KindA2AInput, and
	// later questions of the same task); see [a2a.Client.Run]. Nil: such a wait fails with
	// ErrNoAsker. HITL Protocol cases ignore it. With Ask set, [Client.Do] and
	// [Client.Transport] wait on such a task without a forwarder (the Asker puts the
	// question); with a forwarder too, the forwarder is told of the pause first and then the
	// Asker asks, so a forwarder that also asks shows the person the question twice.
	Ask a2a.Asker
	// A2A tunes the run of an A2A task: the most questions answered (MaxTurns), the pace of
	// task queries (Wait.Interval), a stream or push receiver as wake-ups (Wait.Stream,
	// Wait.Push). Its Notify is called besides the client's forwarder. Nil: the defaults of
	// [a2a.Client.Run]. HITL Protocol cases ignore it.
	A2A *a2a.RunOptions
	// ChangeWindow is how long the service lets the human change a submitted answer, as its
	// documentation says (a live HITL service allows five minutes, then answers 409; the
	// protocol has no field for it): a completed Result's FinalAt is then its completion plus
	// the window (from when the answer was first seen when the service sends no completion
	// time), see [Client.Final]. 0: answers are final when completed.
	ChangeWindow time.Duration
	// NoReminders turns reminders off: by default, at each of the case's reminder_at times
	// and on each review.reminder event, the forwarder is called again with the same
	// interrupt (its Reminder counting up) while the case is pending or opened.
	NoReminders bool
	// Waiter, when set, replaces the whole wait, polling included: its Result is returned as
	// it is (a workflow engine that owns the wait, say). Nil: the client's own composition —
	// polling and the Ways.
	Waiter transport.Waiter[*Interrupt]
	// From carries on a wait that another process began: its entity tag goes with the first
	// poll (If-None-Match) and its event id with the first stream connection
	// (Last-Event-ID), so the service answers 304 while nothing changed and the stream
	// replays no event already handled. Nil starts afresh. A2A tasks ignore it.
	From *Checkpoint
	// OnCheckpoint, when set, is called each time the wait's Checkpoint moves (a new entity
	// tag, a new event id), never concurrently; keep the last one to carry the wait on
	// elsewhere (the Temporal watcher heartbeats it). It must not block for long.
	OnCheckpoint func(Checkpoint)
}

// Checkpoint is how far a wait on a HITL case has come: the entity tag of the service's
// last poll answer (§8, ETag) and the id of the last event of the case's stream (§8.5).
// It holds no secret. See [WaitOptions].From.
type Checkpoint struct {
	ETag        string `json:"etag,omitempty"`
	LastEventID string `json:"last_event_id,omitempty"`
}

// Wait waits for the case to reach a terminal state and returns the Result: completed (a
// human answered; the answer may be "reject" or "cancel"), expired (DefaultApplied set) or
// cancelled.
//
// For an A2A interrupt it runs the task to its end with [a2a.Client.Run] through the
// client's HTTP client, logger and credentials (sent to the interrupt's origin only): a
// question goes to WaitOptions.Ask, a later hold is forwarded, and a relay's or agent's
// outcome is the Result.
//
// It waits the best way available, composing [transport.Waiter] values. It always polls poll_url, paced
// by the service (the first poll waits for the 202's Retry-After), as the source of truth
// ([Client.PollWaiter]). Beside it, by default: when the case has an events_url (or the
// service's discovery document advertises a stream for it) it follows that event stream from
// the start ([Client.StreamWaiter]: §8.5, reconnecting with Last-Event-ID); when the client
// has [WithCallbacks] it listens for the case's callback ([Client.CallbackWaiter]: §9); and
// every [WithWaiter] runs. [WaitOptions].Ways chooses these for one wait. A terminal event
// from the service's own stream that carries the complete outcome of this case is the Result
// at once, as is a verified callback that does when [CallbacksOptions].Decide is set; any
// other terminal event, callback or waiter's outcome makes it poll at once (never more than
// once a second) to confirm. Whichever way learns the outcome first ends the wait and the
// others stop. An event stream the service refuses or keeps failing is dropped and polling
// carries on. At most [transport.WithMaxPollsInFlight] polls of one service are in flight at once.
//
// An error means the outcome is unknown: a permanent failure ([*transport.StatusError],
// [*InvalidError]), ErrPastExpiry when expires_at plus the grace passed without a terminal
// status, or context.Cause(ctx) when ctx ended. Transient failures (network errors, 5xx, 429)
// are retried with backoff for as long as the wait lasts.
//
// it may come from [Detect] or from JSON saved by another process. Wait returns only after
// every goroutine it started has ended, and may be called concurrently for any number of
// interrupts.
func (c *Client) Wait(ctx context.Context, it *Interrupt, o *WaitOptions) (*transport.Result, error) {
	if c == nil {
		return nil, errNilClient
	}
	if it == nil {
		return nil, errors.New("hitl: Wait needs an interrupt")
	}
	if err := c.keep(ctx, it); err != nil {
		return nil, err
	}
	r, err := c.wait(ctx, it, o, c.authorization, c.forward)
	if err == nil {
		c.forget(ctx, it)
	}
	return r, err
}

// wait is one observed wait on it (see [Client.observe]); the reminders and questions it
// forwards count as forwarded.
func (c *Client) wait(ctx context.Context, it *Interrupt, o *WaitOptions, auth func(context.Context) (string, error), forward Forwarder) (*transport.Result, error) {
	return c.cfg.Observe(ctx, questionOf(it), func(ctx context.Context) (*transport.Result, error) {
		return c.waitOn(ctx, it, o, auth, observedForward(forward))
	})
}

// questionOf is what it asks, for the wait's span, audit record and the open waits.
func questionOf(it *Interrupt) transport.Question {
	if it == nil {
		return transport.Question{Protocol: "hitl"}
	}
	q := transport.Question{Protocol: "hitl", Kind: string(it.Kind), ID: it.ID(), Prompt: it.Prompt()}
	if it.Kind != KindHITL && it.Task == nil && it.Kind != "" {
		q.Protocol = string(it.Kind) // a kind of one's own is its own protocol
	}
	if it.Case != nil {
		q.ReviewType = string(it.Case.Type)
	}
	if it.Task != nil {
		q.Protocol, q.TaskID = "a2a", it.Task.TaskID
		if tc, ok := it.Task.ToolCall(); ok {
			q.Arguments = tc.Arguments
		}
	}
	return q
}

// observedForward records each question f puts to a human, and each failure, on the wait's
// telemetry.
func observedForward(f Forwarder) Forwarder {
	if f == nil {
		return nil
	}
	return func(ctx context.Context, it *Interrupt) error {
		err := f(ctx, it)
		transport.Forwarded(ctx, err)
		return err
	}
}

func (c *Client) waitOn(ctx context.Context, it *Interrupt, o *WaitOptions, auth func(context.Context) (string, error), forward Forwarder) (*transport.Result, error) {
	if o != nil && o.Waiter != nil && it != nil {
		return o.Waiter.Wait(ctx, it)
	}
	if it != nil && it.Custom != nil && !ownKind(it.Kind) {
		if w := c.kinds[it.Kind]; w != nil {
			return w.Wait(ctx, it)
		}
		return nil, fmt.Errorf("hitl: no Waiter for kind %q: give one with WithKindWaiter or WaitOptions.Waiter", it.Kind)
	}
	if o != nil && slices.Contains(o.Ways, nil) {
		return nil, errors.New("hitl: WaitOptions.Ways holds a nil transport.Waiter[*Interrupt]")
	}
	if it != nil && it.Task != nil {
		return c.waitA2A(ctx, it, o, auth, forward)
	}
	if it == nil || it.Kind != KindHITL || it.Case == nil {
		return nil, errors.New("hitl: Wait needs a HITL interrupt with a case")
	}
	cs := it.Case
	if cs.CaseID == "" || !validCaseID(cs.CaseID) {
		return nil, &InvalidError{Object: "hitl", Problems: []FieldError{{Field: "case_id", Problem: "missing or malformed"}}, Case: cs}
	}
	if problem := checkServiceURL(cs.PollURL, &c.detect); problem != "" {
		return nil, &InvalidError{Object: "hitl", Problems: []FieldError{{Field: "poll_url", Problem: problem}}, Case: cs, refused: true}
	}
	if o == nil {
		o = &WaitOptions{}
	}
	if !cs.ExpiresAt.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadlineCause(ctx, expiryDeadline(it).Add(cmp.Or(max(o.Grace, 0), DefaultGrace)), ErrPastExpiry)
		defer cancel()
	}
	if c.autoDiscover {
		if _, ok := c.discovery.get(httpx.OriginOf(cs.PollURL), time.Now()); !ok {
			_, _ = c.Discover(ctx, cs.PollURL) // advisory: a failure leaves the defaults
		}
	}
	interval, lo, hi := c.pacing(cs.PollURL)
	if interval == 0 && c.pollInterval > 0 {
		interval = min(max(c.pollInterval, lo), hi)
	}
	r := &run{c: c, it: it, o: o, auth: auth, started: time.Now(), reminders: make(chan struct{}, 1)}
	w := &transport.Wait[*transport.Result]{
		URL:            cs.PollURL,
		Decode:         r.decode,
		Client:         c.service,
		Authorize:      c.authorizer(it, cs.PollURL, auth),
		Interval:       interval,
		MinInterval:    lo,
		MaxInterval:    hi,
		MaxBody:        c.detect.MaxBody,
		Logger:         c.logger,
		FirstDelay:     time.Until(it.PollAfter),
		RequestTimeout: c.requestTimeout,
		Slots:          c.polls,
	}
	r.checkpoint(w)
	c.addWays(w, r)
	if forward != nil && !o.NoReminders && (len(cs.ReminderAt) > 0 || r.streams) {
		w.Push = append(w.Push, func(ctx context.Context, _ func(), _ func(*transport.Result)) error {
			c.remind(ctx, it, forward, r.reminders, r.remindable)
			return nil
		})
	}
	res, err := w.Run(ctx)
	if err != nil {
		return nil, fmt.Errorf("hitl: wait for case %s: %w", cs.CaseID, err)
	}
	c.logger.LogAttrs(ctx, slog.LevelDebug, "hitl: case ended", slog.String("case_id", cs.CaseID),
		slog.String("status", string(res.Status)))
	c.mayChange(ctx, res, o.ChangeWindow)
	return res, nil
}

// run is one wait on a HITL case: the state its polls and push sources share.
type run struct {
	c    *Client
	it   *Interrupt
	o    *WaitOptions
	auth func(context.Context) (string, error)
	// started is when the wait began; reminders signals a review.reminder event.
	started   time.Time
	reminders chan struct{}
	// streams is set when a way follows the case's event stream (which sends reminders).
	streams bool

	mu    sync.Mutex
	last  Update // the last waiting state reported
	ended bool   // a terminal state was seen: no more reminders
	cp    Checkpoint
}

// decode interprets one poll answer; a waiting state is reported.
func (r *run) decode(body []byte) (*transport.Result, bool, error) {
	cs := r.it.Case
	res, u, err := decodePoll(cs, body)
	if res != nil {
		r.mu.Lock()
		r.ended = true
		r.mu.Unlock()
	}
	if err != nil || res != nil {
		return res, res != nil, err
	}
	if u.State != stateOpened && u.State != statePending && u.State != stateInProgress {
		r.c.logger.LogAttrs(context.Background(), slog.LevelWarn, "hitl: unknown case state; polling on",
			slog.String("case_id", cs.CaseID), slog.String("state", quoteShort(u.State)))
	}
	r.report(*u)
	return nil, false, nil
}

// report passes a waiting state on to OnUpdate once per change, whether a poll or the event
// stream learned it, and signals a reminder sent during this wait.
func (r *run) report(u Update) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// A reminder sent before this wait began is a replay (the stream starts from its
	// beginning after a restart): the human got that one already.
	if u.Reminder && (u.ReminderSentAt.IsZero() || !u.ReminderSentAt.Before(r.started)) {
		select {
		case r.reminders <- struct{}{}:
		default:
		}
	}
	if u.Reminder {
		u.State, u.Progress, u.OpenedAt = cmp.Or(r.last.State, statePending), r.last.Progress, r.last.OpenedAt
	}
	// A stream resumed from its start replays states the poll has already passed.
	if ru, rl := stateRank(u.State), stateRank(r.last.State); ru >= 0 && ru < rl {
		return
	}
	if !sameUpdate(r.last, u) {
		r.last = u
		if r.o.OnUpdate != nil {
			r.o.OnUpdate(u)
		}
	}
}

// remindable reports whether the case is known to wait for the human to start (pending or
// opened): only such a case is reminded.
func (r *run) remindable() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.ended && (r.last.State == "" || r.last.State == statePending || r.last.State == stateOpened)
}

// settled marks the wait ended by a pushed outcome.
func (r *run) settled(res *transport.Result, settle func(*transport.Result)) {
	r.mu.Lock()
	r.ended = true
	r.mu.Unlock()
	settle(res)
}

// remindGap is the least time between two reminders: a review.reminder event that the
// service sends at a reminder_at time does not make the human get the link twice.
const remindGap = time.Minute

// remind calls forward again at each reminder_at time still ahead and before expiry, and on
// each signal from the event stream, while remindable says the case waits for the human. A
// forwarder's error is logged and does not end the wait.
func (c *Client) remind(ctx context.Context, it *Interrupt, forward Forwarder, events <-chan struct{}, remindable func() bool) {
	cs := it.Case
	var times []time.Time
	for _, t := range cs.ReminderAt {
		if time.Now().Before(t) && (cs.ExpiresAt.IsZero() || t.Before(cs.ExpiresAt)) {
			times = append(times, t)
		}
	}
	slices.SortFunc(times, time.Time.Compare)
	var (
		n    int
		prev time.Time
	)
	for {
		var (
			timer *time.Timer
			due   <-chan time.Time
		)
		if len(times) > 0 {
			timer = time.NewTimer(time.Until(times[0]))
			due = timer.C
		}
		select {
		case <-ctx.Done():
		case <-due:
			times = times[1:]
		case <-events:
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			return
		}
		if !remindable() || (!prev.IsZero() && time.Since(prev) < remindGap) {
			continue
		}
		n++
		prev = time.Now()
		again := *it
		again.Reminder = n
		c.logger.LogAttrs(ctx, slog.LevelDebug, "hitl: reminding", slog.String("case_id", cs.CaseID), slog.Int("reminder", n))
		if err := forward(ctx, &again); err != nil && ctx.Err() == nil {
			c.logger.LogAttrs(ctx, slog.LevelDebug, "hitl: reminder not forwarded", slog.String("case_id", cs.CaseID), slog.String("err", err.Error()))
		}
	}
}

// follow reads the case's event stream until a terminal event, or until the stream proves
// unavailable or ctx ends. A terminal event from the service's own origin (trusted) that
// carries the complete outcome of this case settles the wait; any other makes it poll at once.
// A terminal event about another case, or unreadable, ends the following: polling goes on.
func (r *run) follow(ctx context.Context, eventsURL string, s *sse.Subscriber, trusted bool, wake func(), settle func(*transport.Result)) error {
	cs := r.it.Case
	var end sse.Event
	err := sse.Subscribe(ctx, s, eventsURL, func(ev sse.Event) (bool, error) {
		switch ev.Name {
		case eventCompleted, eventExpired, eventCancelled:
			end = ev
			return true, nil
		case eventStatus:
			r.c.deviation(ctx, "hitl: the event stream sends review.status (not in §8.5); read as the poll's status")
		}
		u, _, terminal := decodeEvent(cs, ev)
		if terminal {
			end = ev
			return true, nil
		}
		defer r.mark(ev.ID) // once handled: a process that stops first sees the event again
		if u != nil {
			r.report(*u)
		}
		return false, nil
	})
	if end.Name == "" {
		if errors.Is(err, sse.ErrFailing) {
			// Not refused, only failing for now: the wait connects again later.
			return fmt.Errorf("hitl: event stream of case %s: %w", cs.CaseID, sse.ErrFailing)
		}
		return err
	}
	// The terminal event is decoded here, with the stream's reading frames off the stack:
	// decoding it inside the handler made the goroutine's stack grow (a copy) on the way
	// from the event to the Result.
	defer r.mark(end.ID)
	_, res, terminal := decodeEvent(cs, end)
	switch {
	case !terminal:
		r.c.logger.LogAttrs(ctx, slog.LevelDebug, "hitl: terminal event unreadable or about another case; polling only",
			slog.String("case_id", cs.CaseID))
	case trusted && res != nil:
		r.settled(res, settle)
	default:
		wake()
	}
	return nil
}

// checkpoint starts w from o.From and reports each move of the checkpoint (a new entity tag
// from the polls, see mark for event ids) to o.OnCheckpoint, one call at a time.
func (r *run) checkpoint(w *transport.Wait[*transport.Result]) {
	if r.o.From != nil {
		r.cp = *r.o.From
		w.ETag = r.cp.ETag
	}
	if r.o.OnCheckpoint != nil {
		w.OnETag = func(tag string) { r.moved(func() { r.cp.ETag = tag }) }
	}
}

// mark moves the checkpoint's event id.
func (r *run) mark(id string) {
	if id != "" && r.o.OnCheckpoint != nil {
		r.moved(func() { r.cp.LastEventID = id })
	}
}

func (r *run) moved(set func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	before := r.cp
	set()
	if r.cp != before {
		r.o.OnCheckpoint(r.cp)
	}
}

// expiryDeadline is when, by the agent's clock, the case's expires_at has surely passed: the
// later of expires_at and the moment the case was received plus its lifetime (expires_at −
// created_at), so that a service whose clock is behind the agent's does not see its cases
// given up early.
func expiryDeadline(it *Interrupt) time.Time {
	cs := it.Case
	d := cs.ExpiresAt
	if !it.ReceivedAt.IsZero() && !cs.CreatedAt.IsZero() && cs.ExpiresAt.After(cs.CreatedAt) {
		if local := it.ReceivedAt.Add(cs.ExpiresAt.Sub(cs.CreatedAt)); local.After(d) {
			d = local
		}
	}
	return d
}

// authorizer returns what adds the agent's credential to requests to target, or nil when
// there is no credential or target's origin may not receive it.
func (c *Client) authorizer(it *Interrupt, target string, auth func(context.Context) (string, error)) func(context.Context, *http.Request) error {
	if auth == nil || !c.mayReceiveCredentials(it, target) {
		return nil
	}
	return func(ctx context.Context, req *http.Request) error { return httpx.Authorize(ctx, req, auth) }
}

func (c *Client) mayReceiveCredentials(it *Interrupt, target string) bool {
	o := httpx.OriginOf(target)
	return o != "" && (o == it.Origin || c.trustedOrigins[o])
}

// stateRank orders the waiting states of §8: pending → opened → in_progress. A state the spec
// does not list has no rank (-1).
func stateRank(state string) int {
	switch state {
	case statePending:
		return 0
	case stateOpened:
		return 1
	case stateInProgress:
		return 2
	}
	return -1
}

// sameUpdate reports whether b tells nothing new after a. A reminder's message does not count:
// the poll reports the same reminder without it.
func sameUpdate(a, b Update) bool {
	if a.State != b.State || !a.ReminderSentAt.Equal(b.ReminderSentAt) {
		return false
	}
	if a.Progress == nil || b.Progress == nil {
		return a.Progress == b.Progress
	}
	return *a.Progress == *b.Progress
}
