package hxp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

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
}

// Result is the outcome of a wait; see [transport.Result].
type Result = transport.Result

// ErrNoReceipt: the server reported a completed request without a receipt.
var ErrNoReceipt = errors.New("hxp: completed request without a receipt")

// Wait waits for the receipt of a created request and returns it as the shared Result:
// completed (Action is the DECIDE option or the APPROVE "approved"/"rejected", "provide" for a
// PROVIDE; Data is the raw result; RespondedBy the completed_by), expired (a default option
// the server applied on timeout is DefaultApplied, never a human decision), failed or
// cancelled.
//
// It polls once; then, when the server gave a ws_url, listens on the WebSocket (either URL
// shape, §5.2), taking a completed event's receipt as is and confirming any other terminal
// event with a poll; when the WebSocket fails or is not offered, it polls every interval,
// using the HXP-Status header to skip the bodies of waiting answers. Nothing is lost in the
// switch: the poll reads the current state.
//
// An error means the outcome is unknown: a permanent failure (401, 404, …), a malformed
// answer, or context.Cause(ctx). Wait returns only after every goroutine it started ended.
func (c *Client) Wait(ctx context.Context, cr *Created, o *WaitOptions) (*Result, error) {
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
	var (
		mu   sync.Mutex
		last Update
	)
	report := func(u Update) {
		mu.Lock()
		defer mu.Unlock()
		if u != last {
			last = u
			if o.OnUpdate != nil {
				o.OnUpdate(u)
			}
		}
	}
	decode := func(body []byte) (*Result, bool, error) {
		var st State
		if err := json.Unmarshal(body, &st); err != nil {
			return nil, false, transport.Temporary(fmt.Errorf("hxp: poll answer is not JSON: %w", err))
		}
		r, u, err := stateResult(cr, &st)
		if u != nil {
			report(*u)
		}
		return r, r != nil, err
	}
	p := &transport.Poller{
		Client:      c.http,
		Interval:    c.interval,
		MinInterval: time.Second,
		Logger:      c.logger,
		Authorize: func(ctx context.Context, req *http.Request) error {
			return c.authorize(ctx, req, asAgent)
		},
		Waiting: func(h http.Header) bool {
			s := h.Get("HXP-Status")
			return s == statusPending || s == statusAssigned
		},
	}

	// One poll first: a request may have ended before the wait began, and not every server
	// replays the receipt on the WebSocket.
	first, done, err := c.pollOnce(ctx, pollURL, decode)
	if err != nil || done {
		return first, err
	}
	if wsURL := c.resolve(cr.WSURL, true); wsURL != "" && !o.PollOnly {
		res, err := c.listen(ctx, cr, wsURL, report)
		switch {
		case res != nil:
			return res, nil
		case ctx.Err() != nil:
			return nil, context.Cause(ctx)
		case errors.Is(err, errConfirm):
			// A terminal event without a receipt: the poll tells the outcome at once.
		default:
			c.logger.LogAttrs(ctx, slog.LevelDebug, "hxp: websocket failed; polling",
				slog.String("request_id", cr.RequestID), slog.String("err", err.Error()))
		}
	}
	res, err := transport.Poll(ctx, p, pollURL, decode)
	if err != nil {
		return nil, fmt.Errorf("hxp: wait for %s: %w", cr.RequestID, err)
	}
	return res, nil
}

// pollOnce makes the first poll through the same decoder, with the unary error mapping.
func (c *Client) pollOnce(ctx context.Context, pollURL string, decode transport.Decoder[*Result]) (*Result, bool, error) {
	var raw json.RawMessage
	if _, err := c.call(ctx, "poll", http.MethodGet, pollURL, asAgent, nil, &raw); err != nil {
		var ae *APIError
		if errors.As(err, &ae) && (ae.StatusCode == http.StatusUnauthorized || ae.StatusCode == http.StatusNotFound ||
			ae.StatusCode == http.StatusForbidden || ae.StatusCode == http.StatusGone) {
			return nil, false, err
		}
		return nil, false, nil // transient: the poll loop retries with backoff
	}
	r, done, err := decode(raw)
	if transport.IsTemporary(err) {
		err = nil
	}
	return r, done, err
}

// stateResult interprets one state: a Result when terminal, an Update when waiting. The
// status machine of §4.1 is this one switch.
func stateResult(cr *Created, st *State) (*Result, *Update, error) {
	if st.RequestID != "" && st.RequestID != cr.RequestID {
		return nil, nil, &transport.MismatchError{Object: "request", Want: cr.RequestID, Got: st.RequestID}
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
		return nil, nil, transport.Temporary(errors.New("hxp: answer without a status"))
	}
	return nil, &Update{RequestID: cr.RequestID, Status: st.Status}, nil
}

func receiptResult(cr *Created, rc *Receipt, req *Request) (*Result, *Update, error) {
	switch rc.RequestID {
	case "":
		rc.RequestID = cr.RequestID
	case cr.RequestID:
	default:
		return nil, nil, &transport.MismatchError{Object: "receipt", Want: cr.RequestID, Got: rc.RequestID}
	}
	r := rc.result(req)
	if r == nil {
		return nil, nil, fmt.Errorf("hxp: receipt with status %q", clip(rc.Status, 32))
	}
	r.CreatedAt = cr.CreatedAt
	return r, nil, nil
}

// errConfirm: the WebSocket reported a terminal event without a receipt.
var errConfirm = errors.New("terminal event without a receipt")

// wsMessage is one message of §5.2.
type wsMessage struct {
	Event      string   `json:"event"`
	AssignedTo string   `json:"assigned_to"`
	Receipt    *Receipt `json:"receipt"`
}

// listen reads the request's WebSocket until a receipt, a terminal event, a failure or the
// end of ctx. A ping every 30 s catches a half-open connection.
func (c *Client) listen(ctx context.Context, cr *Created, wsURL string, report func(Update)) (*Result, error) {
	header := http.Header{}
	u, _ := url.Parse(wsURL)
	if c.agentKey != nil && c.sameOrigin(u) {
		v, err := c.agentKey(ctx)
		if err != nil {
			return nil, fmt.Errorf("credentials: %w", err)
		}
		if v != "" {
			header.Set("Authorization", "Bearer "+v)
		}
	}
	conn, err := ws.Dial(ctx, wsURL, c.http, header, DefaultMessageLimit)
	if err != nil {
		return nil, fmt.Errorf("dial: %w", httpx.StripURL(err))
	}
	defer conn.Close()

	pingCtx, stopPing := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stopPing()
	wg.Go(func() {
		t := time.NewTicker(pingEvery)
		defer t.Stop()
		for {
			select {
			case <-pingCtx.Done():
				return
			case <-t.C:
				if conn.Ping(pingCtx, pingTimeout) != nil {
					_ = conn.Close()
					return
				}
			}
		}
	})

	for {
		b, err := conn.Read(ctx)
		if err != nil {
			return nil, err
		}
		var m wsMessage
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		switch m.Event {
		case statusAssigned:
			report(Update{RequestID: cr.RequestID, Status: statusAssigned, AssignedTo: m.AssignedTo})
		case statusCompleted:
			if m.Receipt == nil || (m.Receipt.RequestID != "" && m.Receipt.RequestID != cr.RequestID) {
				return nil, errConfirm
			}
			st := &State{RequestID: cr.RequestID, Status: statusCompleted, Receipt: m.Receipt}
			if m.Receipt.Status != "" {
				st.Status = m.Receipt.Status
			}
			if r, _, err := stateResult(cr, st); r != nil && err == nil {
				return r, nil
			}
			return nil, errConfirm
		case statusExpired, statusFailed, statusCancelled:
			return nil, errConfirm
		}
	}
}
