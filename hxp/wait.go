package hxp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hitlkit/hitlkit/internal/decision"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/ws"
	"github.com/hitlkit/hitlkit/transport"
)

// pingEvery and pingTimeout check a WebSocket that has gone quiet: a half-open connection
// never reports itself.
const (
	pingEvery   = 30 * time.Second
	pingTimeout = 10 * time.Second
)

// Update is a waiting state of a request, reported to [WaitOptions.OnUpdate].
type Update struct {
	RequestID string
	// Status is pending or assigned (or a status the spec does not list).
	Status string
	// AssignedTo is the human the server routed the request to, when it says.
	AssignedTo string
}

// WaitOptions tunes one [Client.Wait]; nil means the defaults.
type WaitOptions struct {
	// OnUpdate, when set, is called with each new waiting state; calls never overlap.
	OnUpdate func(Update)
	// PollOnly ignores the ws_url.
	PollOnly bool
	// CheckReceipt runs [Receipt.Check] against the request before returning a completed
	// Result: a result that does not fit (not an option, a rejection without the reason
	// the request requires, a value outside the PROVIDE's validation) is an error matching
	// ErrReceiptMismatch. It needs the request (Created.Request, which Create fills in).
	CheckReceipt bool
}

// ErrNoReceipt: the server reported a completed request without a receipt.
var ErrNoReceipt = errors.New("hxp: completed request without a receipt")

// Waiter returns the client's [Client.Wait] with o as a [transport.Waiter], to be held beside
// the other protocols' waits (a framework's own scheduler, a workflow engine's activity).
// o is read at each Wait and must not change meanwhile.
func (c *Client) Waiter(o *WaitOptions) transport.Waiter[*Created] {
	return waiter{c, o}
}

// waiter is a Client's Wait as a transport.Waiter.
type waiter struct {
	c *Client
	o *WaitOptions
}

func (w waiter) Wait(ctx context.Context, cr *Created) (*transport.Result, error) {
	return w.c.Wait(ctx, cr, w.o)
}

// Wait waits for the receipt of a created request and returns it as the shared Result:
// completed (Action is the DECIDE option or the APPROVE "approved"/"rejected"; a PROVIDE's
// value is Data only, never the Action; RespondedBy the completed_by), expired (a default
// option the server applied on timeout is DefaultApplied, never a human decision), failed or
// cancelled. The receipt itself, byte for byte, is Result.Receipt: read it with [ReceiptOf]
// and verify its evidence without another request.
//
// The poll URL is the source of truth and is polled for the whole wait, paced by the poll
// interval (HXP defines no Retry-After), skipping the bodies of waiting answers by their
// HXP-Status header. When the server gives a ws_url, Wait first subscribes (either URL
// shape, §5.2; the handshake bounded by the request timeout) and then polls, so no change
// falls between the two: a completed event's receipt for this request from the server's own
// origin is the outcome at once, any other terminal event makes it poll at once, and a
// WebSocket that fails, never answers or never sends the completion changes nothing — the
// polls carry the wait to its end.
//
// An error means the outcome is unknown: a permanent failure (an [*APIError] matching
// transport.ErrUnauthorized, transport.ErrNotFound, … the same whichever poll met it), an answer about another
// request ([transport.ErrMismatch]), a malformed answer (ErrMalformed), a receipt that
// does not fit the request when WaitOptions.CheckReceipt asks (ErrReceiptMismatch), or
// context.Cause(ctx). Wait returns only after every goroutine it started ended.
func (c *Client) Wait(ctx context.Context, cr *Created, o *WaitOptions) (*transport.Result, error) {
	if c == nil {
		return nil, errNilClient
	}
	if cr == nil || !validID(cr.RequestID) {
		return nil, errors.New("hxp: Wait needs a created request")
	}
	q := transport.Question{Protocol: "hxp", Kind: "hxp", ID: cr.RequestID, CheckReceipt: o != nil && o.CheckReceipt}
	if cr.Request != nil {
		q.Kind, q.Prompt = "hxp/"+strings.ToLower(string(cr.Request.Action())), promptOf(cr.Request)
	}
	return c.cfg.Observe(ctx, q, func(ctx context.Context) (*transport.Result, error) { return c.wait(ctx, cr, o) })
}

func (c *Client) wait(ctx context.Context, cr *Created, o *WaitOptions) (*transport.Result, error) {
	if cr == nil || !validID(cr.RequestID) {
		return nil, errors.New("hxp: Wait needs a created request")
	}
	if o == nil {
		o = &WaitOptions{}
	}
	pollURL := c.resolve(cr.PollURL, false)
	if pollURL == "" {
		pollURL = c.endpoint("/requests/"+url.PathEscape(cr.RequestID), nil)
	}
	r := &run{c: c, cr: cr, o: o}
	w := &transport.Wait[*transport.Result]{
		URL:     pollURL,
		Decode:  r.decode,
		Waiting: r.waiting,
		Client:  c.http,
		Authorize: func(ctx context.Context, req *http.Request) error {
			return c.authorize(ctx, req, asAgent)
		},
		Interval: c.interval,
		// HXP sets no rate limit: a wake-up's confirming poll goes out at once, a tenth of a
		// second after the previous poll at the soonest.
		MinInterval:    wakeGap,
		MaxInterval:    max(c.interval, time.Second),
		RequestTimeout: c.timeout,
		MaxBody:        c.maxBody,
		Logger:         c.logger,
		Slots:          c.polls,
	}
	if wsURL := c.wsURL(cr); wsURL != "" && !o.PollOnly {
		// Subscribe first, then poll, so that no change falls between the two.
		conn, err := c.dial(ctx, wsURL)
		if err != nil {
			c.logger.LogAttrs(ctx, slog.LevelDebug, "hxp: websocket unavailable; polling",
				slog.String("request_id", cr.RequestID), slog.String("err", err.Error()))
		}
		defer func() { // a wait its first poll decided never listened
			if conn != nil {
				_ = conn.Close()
			}
		}()
		trusted := c.sameOrigin(mustParse(wsURL))
		w.Push = append(w.Push, func(ctx context.Context, wake func(), settle func(*transport.Result)) error {
			if conn == nil {
				if conn, err = c.dial(ctx, wsURL); err != nil {
					return err
				}
			}
			defer func() { _ = conn.Close(); conn = nil }()
			return r.listen(ctx, conn, trusted, wake, settle)
		})
	}
	res, err := w.Run(ctx)
	if err != nil {
		return nil, fmt.Errorf("hxp: wait for %s: %w", cr.RequestID, c.typed(ctx, err))
	}
	if o.CheckReceipt {
		if err := checkReceipt(cr, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// promptOf is what r asks, for the client's list of open waits.
func promptOf(r *Request) string {
	switch {
	case r.Decide != nil:
		return r.Decide.Question
	case r.Approve != nil:
		return r.Approve.Item
	case r.Provide != nil:
		return r.Provide.Prompt
	}
	return ""
}

// wakeGap is the least time between two polls of a request, wake-ups included.
const wakeGap = 100 * time.Millisecond

// wsURL is the request's WebSocket URL, or "" when it has none the client may dial: a ws://
// URL is dialled only for a client whose own base URL is plain http (a local server).
func (c *Client) wsURL(cr *Created) string {
	u := c.resolve(cr.WSURL, true)
	if c.base.Scheme == "https" && strings.HasPrefix(u, "ws:") {
		return ""
	}
	return u
}

// run is one wait on a request: the state its polls and its WebSocket share.
type run struct {
	c  *Client
	cr *Created
	o  *WaitOptions

	mu   sync.Mutex
	last Update
}

// report passes a waiting state on to OnUpdate once per change.
func (r *run) report(u Update) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if u != r.last {
		r.last = u
		if r.o.OnUpdate != nil {
			r.o.OnUpdate(u)
		}
	}
}

func (r *run) decode(body []byte) (*transport.Result, bool, error) {
	var st State
	if err := json.Unmarshal(body, &st); err != nil {
		return nil, false, malformedAnswer("poll", err)
	}
	res, u, err := stateResult(r.cr, &st)
	if u != nil {
		r.report(*u)
	}
	return res, res != nil, err
}

// waiting reads a waiting state from the HXP-Status header alone.
func (r *run) waiting(h http.Header) bool {
	s := h.Get("HXP-Status")
	if s != statusPending && s != statusAssigned {
		return false
	}
	r.mu.Lock()
	changed := s != r.last.Status
	r.mu.Unlock()
	if changed {
		r.report(Update{RequestID: r.cr.RequestID, Status: s})
	}
	return true
}

func mustParse(raw string) *url.URL {
	u, err := url.Parse(raw)
	if err != nil {
		return &url.URL{}
	}
	return u
}

// typed gives a poll's error status the same [*APIError] a unary call gets, whichever poll
// met it.
func (c *Client) typed(ctx context.Context, err error) error {
	var se *transport.StatusError
	if !errors.As(err, &se) {
		return err
	}
	secrets := c.secrets(ctx, nil)
	return apiError("poll", se.StatusCode, se.Body, secrets)
}

// checkReceipt runs Receipt.Check against the request the wait knows.
func checkReceipt(cr *Created, res *transport.Result) error {
	rc, err := ReceiptOf(res)
	if err != nil {
		return err
	}
	return rc.Check(cr.Request)
}

// stateResult interprets one state: a Result when terminal, an Update when waiting. The
// status machine of §4.1 is this one switch.
func stateResult(cr *Created, st *State) (*transport.Result, *Update, error) {
	if st.RequestID != "" && st.RequestID != cr.RequestID {
		return nil, nil, decision.Mismatch("request", cr.RequestID, st.RequestID)
	}
	req := cr.Request
	if req == nil {
		req = st.Request
	}
	switch st.Status {
	case statusPending, statusAssigned:
		return nil, &Update{RequestID: cr.RequestID, Status: st.Status, AssignedTo: st.AssignedTo}, nil
	case statusCompleted:
		if st.Receipt == nil {
			return nil, nil, ErrNoReceipt
		}
		return receiptResult(cr, st.Receipt, req)
	case statusExpired, statusFailed, statusCancelled:
		rc := st.Receipt
		if rc == nil {
			// The reference server ends pause and fail timeouts as expired without a receipt.
			rc = &Receipt{RequestID: cr.RequestID, Status: st.Status}
		}
		rc.Status = st.Status
		return receiptResult(cr, rc, req)
	case "":
		return nil, nil, httpx.Temporary(errors.New("hxp: answer without a status"))
	}
	return nil, &Update{RequestID: cr.RequestID, Status: st.Status}, nil
}

func receiptResult(cr *Created, rc *Receipt, req *Request) (*transport.Result, *Update, error) {
	switch rc.RequestID {
	case "":
		rc.RequestID = cr.RequestID
	case cr.RequestID:
	default:
		return nil, nil, decision.Mismatch("receipt", cr.RequestID, rc.RequestID)
	}
	r := rc.result(req)
	if r == nil {
		return nil, nil, fmt.Errorf("hxp: receipt with status %q", clip(rc.Status, 32))
	}
	r.CreatedAt = cr.CreatedAt
	return r, nil, nil
}

// wsMessage is one message of §5.2.
type wsMessage struct {
	Event      string   `json:"event"`
	AssignedTo string   `json:"assigned_to"`
	Receipt    *Receipt `json:"receipt"`
}

// dial opens the request's WebSocket, the handshake bounded by the request timeout, with the
// agent's key when the URL is on the server's origin.
func (c *Client) dial(ctx context.Context, wsURL string) (*ws.Conn, error) {
	header := http.Header{}
	if c.sameOrigin(mustParse(wsURL)) {
		hreq := &http.Request{Header: header}
		if err := httpx.Authorize(ctx, hreq, c.agent); err != nil {
			return nil, fmt.Errorf("credentials: %w", err)
		}
	}
	dctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	conn, err := ws.Dial(dctx, wsURL, c.http, header, defaultMessageLimit)
	if err != nil {
		return nil, fmt.Errorf("dial: %w", httpx.StripURL(err))
	}
	return conn, nil
}

// listen reads the request's WebSocket until a receipt decides, the connection ends or ctx
// does. A completed event whose receipt is this request's, from the server's own origin
// (trusted), settles the wait; every other terminal event, and the end of the connection,
// make the polls look at once.
func (r *run) listen(ctx context.Context, conn *ws.Conn, trusted bool, wake func(), settle func(*transport.Result)) error {
	defer keepAlive(ctx, conn)()
	defer wake() // the end of the connection is news too
	cr := r.cr
	for {
		b, err := conn.Read(ctx)
		if err != nil {
			return fmt.Errorf("hxp: websocket ended: %w", err)
		}
		var m wsMessage
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		switch m.Event {
		case statusAssigned:
			r.report(Update{RequestID: cr.RequestID, Status: statusAssigned, AssignedTo: m.AssignedTo})
		case statusCompleted:
			if res := pushedResult(cr, m.Receipt, trusted); res != nil {
				settle(res)
				return nil
			}
			wake()
		case statusExpired, statusFailed, statusCancelled:
			wake()
		}
	}
}

// keepAlive pings conn every 30 s from a timer, closing it when a ping goes unanswered: a
// half-open connection never reports itself. No goroutine waits between two pings. The stop
// it returns waits for a ping in flight.
func keepAlive(ctx context.Context, conn *ws.Conn) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var (
		mu      sync.Mutex
		stopped bool
		pinging sync.WaitGroup
		t       *time.Timer
	)
	ping := func() {
		mu.Lock()
		if stopped {
			mu.Unlock()
			return
		}
		pinging.Add(1)
		mu.Unlock()
		defer pinging.Done()
		if conn.Ping(ctx, pingTimeout) != nil {
			_ = conn.Close()
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			t.Reset(pingEvery)
		}
	}
	mu.Lock()
	t = time.AfterFunc(pingEvery, ping)
	mu.Unlock()
	return func() {
		cancel()
		mu.Lock()
		stopped = true
		t.Stop()
		mu.Unlock()
		pinging.Wait()
	}
}

// pushedResult is the outcome a WebSocket receipt gives, or nil when it must be confirmed by
// a poll: a receipt from another origin, for another request, without the request to read a
// PROVIDE's value by, or that does not read as a terminal receipt.
func pushedResult(cr *Created, rc *Receipt, trusted bool) *transport.Result {
	if !trusted || rc == nil || rc.RequestID != cr.RequestID || cr.Request == nil {
		return nil
	}
	st := &State{RequestID: cr.RequestID, Status: statusCompleted, Receipt: rc}
	if rc.Status != "" {
		st.Status = rc.Status
	}
	r, _, err := stateResult(cr, st)
	if err != nil {
		return nil
	}
	return r
}

// Pending lists the requests this client is waiting on now, oldest first: one entry per
// running [Client.Wait], removed when it returns. Safe for concurrent use. The client keeps no
// store of its own; a request created and not being waited on is not listed.
func (c *Client) Pending() []transport.Pending {
	if c == nil {
		return nil
	}
	return c.cfg.Pending()
}
