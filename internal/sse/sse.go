// Package sse reads Server-Sent Events: one call is one connection to one event stream,
// read and handed to the caller on the caller's goroutine. It has no retry loop (the caller
// runs its own), closes every refused response body, reads only 200 text/event-stream,
// never delivers an event cut off by a dropped connection, cancels idle connections, and
// reports why a cancelled connection ended.
package sse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/hitlkit/hitlkit/internal/httpx"
)

// Event is one server-sent event. Retry is the event's retry: field, -1 when it has none.
type Event struct {
	ID    string
	Name  string
	Data  []byte
	Retry time.Duration
}

// Config is the setting of one connection. Client must not be nil and its Timeout should be 0.
type Config struct {
	Client *http.Client
	// Authorize adds credentials to the request; nil adds none.
	Authorize func(ctx context.Context, req *http.Request) error
	// MaxEventSize bounds one event, all its fields together.
	MaxEventSize int
	// IdleTimeout ends a connection that has sent no byte, heartbeat comments included, for
	// that long. 0 disables the watchdog.
	IdleTimeout time.Duration
}

// Errors of one connection.
var (
	// ErrEventTooLarge: an event exceeded Config.MaxEventSize.
	ErrEventTooLarge = errors.New("event exceeds the size limit")
	// ErrIdle: no byte arrived for Config.IdleTimeout.
	ErrIdle = errors.New("event stream idle")
)

// RefusedError is a response that is not an event stream. Permanent is set for the statuses
// that mean "no stream here" (204, 3xx, 401, 403, 404, 405, 406, 410, other 4xx, a 200 of
// another content type); RetryAfter is the server's hint, -1 when it gave none.
type RefusedError struct {
	StatusCode  int
	ContentType string
	Body        []byte
	RetryAfter  time.Duration
	Permanent   bool
}

func (e *RefusedError) Error() string {
	if e.StatusCode == http.StatusOK {
		return fmt.Sprintf("answered 200 with content type %q, not an event stream", e.ContentType)
	}
	return fmt.Sprintf("answered %d %s", e.StatusCode, http.StatusText(e.StatusCode))
}

// Stats is what one connection did.
type Stats struct {
	// Connected is set once the server accepted the stream.
	Connected bool
	// Events counts the events with data that were handed to the handler.
	Events int
	// LastID is the last event id received, the one to resume from.
	LastID string
	// Retry is the last retry: value received, -1 when none.
	Retry time.Duration
}

// Connect opens one connection to url, resuming after lastID when it is not empty, and calls
// handle for each event that has data, in order, from the calling goroutine. It returns when
// handle returns false (nil error), the server closes the stream (nil error), the connection
// fails, or ctx ends (context.Cause(ctx)). It starts goroutines that all end before it returns.
func Connect(ctx context.Context, cfg *Config, url, lastID string, handle func(Event) bool) (Stats, error) {
	st := Stats{LastID: lastID, Retry: -1}
	connCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	hc := *cfg.Client
	hc.Timeout = 0
	// A redirect could carry the credentials elsewhere; a 3xx is refused instead.
	hc.CheckRedirect = httpx.NoRedirect
	req, err := http.NewRequestWithContext(connCtx, http.MethodGet, url, nil)
	if err != nil {
		return st, httpx.StripURL(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	if cfg.Authorize != nil {
		if err := cfg.Authorize(connCtx, req); err != nil {
			return st, fmt.Errorf("credentials: %w", err)
		}
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return st, context.Cause(ctx)
		}
		return st, httpx.StripURL(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if err := accept(resp); err != nil {
		httpx.DrainClose(resp.Body)
		return st, err
	}
	st.Connected = true
	var watchdog *time.Timer
	if cfg.IdleTimeout > 0 {
		watchdog = time.AfterFunc(cfg.IdleTimeout, func() { cancel(ErrIdle) })
		defer watchdog.Stop()
	}
	body := &framed{body: resp.Body, ctx: connCtx, limit: cfg.MaxEventSize, idle: cfg.IdleTimeout, watchdog: watchdog}
	// The events are read and handled on this goroutine: no hand-off between the socket
	// and the handler.
	stopped := false
	err = read(body, cfg.MaxEventSize+64, func(ev Event, dispatch bool) bool {
		if ev.Retry >= 0 {
			st.Retry = ev.Retry
		}
		if ev.ID != "" {
			st.LastID = ev.ID
		}
		if !dispatch {
			return true
		}
		st.Events++
		if !handle(ev) {
			stopped = true
			return false
		}
		return true
	})
	cause := context.Cause(connCtx)
	switch {
	case stopped:
		return st, nil
	case ctx.Err() != nil:
		return st, context.Cause(ctx)
	case cause != nil:
		return st, cause
	case err != nil:
		return st, httpx.StripURL(err)
	}
	return st, nil
}

// accept lets through 200 text/event-stream only.
func accept(resp *http.Response) error {
	ct := resp.Header.Get("Content-Type")
	if resp.StatusCode == http.StatusOK {
		if mt, _, err := mime.ParseMediaType(ct); err == nil && mt == "text/event-stream" {
			return nil
		}
	}
	e := &RefusedError{StatusCode: resp.StatusCode, ContentType: ct, RetryAfter: -1}
	e.Body, _ = httpx.ReadLimited(resp.Body, 512)
	if d, ok := httpx.RetryAfter(resp.Header, time.Now()); ok {
		e.RetryAfter = d
	}
	switch code := resp.StatusCode; {
	case code == http.StatusTooManyRequests, code == http.StatusRequestTimeout, code >= 500:
		e.Body = nil
	default:
		e.Permanent = true
	}
	return e
}

// framed passes on only whole events: bytes after the last blank line are held until the
// event they belong to is complete, and dropped if the stream ends first, so that a
// half-received event is never handled and a half-received id never becomes the one to
// resume from. framed also feeds the idle watchdog, bounds an event's size, and reports why a
// cancelled connection ended instead of a bare context.Canceled.
type framed struct {
	body     io.ReadCloser
	ctx      context.Context
	limit    int
	idle     time.Duration
	watchdog *time.Timer

	base    []byte // the buffer buf lives in
	buf     []byte // bytes read and not yet passed on
	ready   int    // buf[:ready] ends on an event boundary
	scanned int    // buf[:scanned] has been looked at
	lineLen int    // bytes on the current line
	afterCR bool   // the previous byte was \r
	err     error
}

func (f *framed) Read(p []byte) (int, error) {
	for f.ready == 0 {
		if f.err != nil {
			return 0, f.err
		}
		if len(f.buf)-f.ready > f.limit {
			f.err = ErrEventTooLarge
			return 0, f.err
		}
		if cap(f.buf)-len(f.buf) < 128 {
			nb := make([]byte, len(f.buf), max(2*cap(f.buf), 512))
			copy(nb, f.buf)
			f.base, f.buf = nb, nb
		}
		n, err := f.body.Read(f.buf[len(f.buf):cap(f.buf)])
		if n > 0 && f.watchdog != nil {
			f.watchdog.Reset(f.idle)
		}
		f.buf = f.buf[:len(f.buf)+n]
		if f.scan(); f.err != nil {
			return 0, f.err
		}
		if err != nil {
			if cause := context.Cause(f.ctx); cause != nil {
				err = cause
			} else if errors.Is(err, context.Canceled) {
				// A bare Canceled is not a clean end of stream.
				err = io.ErrUnexpectedEOF
			}
			f.err = err
		}
	}
	n := copy(p, f.buf[:f.ready])
	f.ready -= n
	f.scanned -= n
	f.buf = f.buf[n:]
	if len(f.buf) == 0 {
		f.buf = f.base[:0]
	}
	return n, nil
}

// scan moves ready past every blank line in the new bytes, and sets err when an event is
// over the limit. A line ends at \n, \r or \r\n; an empty line ends an event (the WHATWG
// event-stream grammar).
func (f *framed) scan() {
	for ; f.scanned < len(f.buf); f.scanned++ {
		switch b := f.buf[f.scanned]; {
		case b == '\n' && f.afterCR:
			// The \n of a \r\n: the line already ended at the \r.
			f.afterCR = false
			if f.ready == f.scanned {
				f.ready++
			}
		case b == '\n' || b == '\r':
			if f.lineLen == 0 {
				if f.scanned+1-f.ready > f.limit {
					f.err = ErrEventTooLarge
					return
				}
				f.ready = f.scanned + 1
			}
			f.lineLen = 0
			f.afterCR = b == '\r'
		default:
			f.lineLen++
			f.afterCR = false
		}
	}
}

func (f *framed) Close() error { return f.body.Close() }
