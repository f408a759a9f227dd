// Package memhttp serves an http.Handler through an in-memory http.RoundTripper: no sockets,
// so it works inside a testing/synctest bubble, and responses stream, so a handler that keeps
// writing (Server-Sent Events) is read as it writes.
package memhttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// ErrConnectionReset is what reading a response body returns after its handler panicked
// with http.ErrAbortHandler, as a connection reset mid-body reads over a real network.
var ErrConnectionReset = errors.New("memhttp: connection reset by the handler")

// Transport runs Handler once per request, in its own goroutine, and returns the response as
// soon as the handler writes its header (or its first byte, or returns). The handler's request
// context ends when the caller's does or when the caller closes the response body. Safe for
// concurrent use.
type Transport struct {
	Handler http.Handler
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	in := req.Clone(ctx)
	if req.Body != nil {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			cancel()
			return nil, err
		}
		in.Body = io.NopCloser(bytes.NewReader(body))
		in.ContentLength = int64(len(body))
	} else {
		// A server's request always has a body (net/http: "always non-nil").
		in.Body = http.NoBody
	}
	in.RemoteAddr = "192.0.2.1:1234"
	in.RequestURI = req.URL.RequestURI()
	if in.Host == "" {
		in.Host = req.URL.Host
	}

	pr, pw := io.Pipe()
	w := &writer{header: make(http.Header), pw: pw, ready: make(chan struct{})}
	go func() {
		defer func() {
			// A body cut short by the caller's cancel must read as an error, not as a
			// complete body.
			err := ctx.Err()
			if r := recover(); r != nil {
				if r != http.ErrAbortHandler {
					panic(r)
				}
				// As net/http's server does, an aborting handler resets the connection.
				err = ErrConnectionReset
			}
			w.writeHeader(http.StatusOK)
			_ = pw.CloseWithError(err)
		}()
		t.Handler.ServeHTTP(w, in)
	}()

	select {
	case <-w.ready:
	case <-req.Context().Done():
		cancel()
		_ = pr.CloseWithError(req.Context().Err())
		return nil, req.Context().Err()
	}
	resp := &http.Response{
		Status:        strconv.Itoa(w.status) + " " + http.StatusText(w.status),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.sent,
		Body:          &body{PipeReader: pr, cancel: cancel},
		ContentLength: -1,
		Request:       req,
	}
	if cl, err := strconv.ParseInt(w.sent.Get("Content-Length"), 10, 64); err == nil {
		resp.ContentLength = cl
	}
	return resp, nil
}

type body struct {
	*io.PipeReader
	cancel context.CancelFunc
}

func (b *body) Close() error {
	b.cancel()
	return b.PipeReader.Close()
}

type writer struct {
	header http.Header
	sent   http.Header
	status int
	pw     *io.PipeWriter
	once   sync.Once
	ready  chan struct{}
}

func (w *writer) Header() http.Header { return w.header }

func (w *writer) WriteHeader(code int) { w.writeHeader(code) }

func (w *writer) writeHeader(code int) {
	w.once.Do(func() {
		w.status = code
		w.sent = w.header.Clone()
		close(w.ready)
	})
}

func (w *writer) Write(p []byte) (int, error) {
	w.writeHeader(http.StatusOK)
	return w.pw.Write(p)
}

// Flush satisfies http.Flusher; writes already reach the reader without buffering.
func (w *writer) Flush() { w.writeHeader(http.StatusOK) }

// Slow wraps Handler (as a server) or Next (as a client's transport), holding each request
// for Delay before it is served or sent, and counts the requests in flight (see Most). Safe
// for concurrent use.
type Slow struct {
	Handler http.Handler
	Next    http.RoundTripper
	Delay   time.Duration

	mu             sync.Mutex
	inFlight, most int
}

// ServeHTTP implements http.Handler.
func (s *Slow) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer s.enter()()
	select {
	case <-time.After(s.Delay):
		s.Handler.ServeHTTP(w, r)
	case <-r.Context().Done():
	}
}

// RoundTrip implements http.RoundTripper; the request counts as in flight until Next has
// answered, its body aside.
func (s *Slow) RoundTrip(r *http.Request) (*http.Response, error) {
	defer s.enter()()
	select {
	case <-time.After(s.Delay):
		return s.Next.RoundTrip(r)
	case <-r.Context().Done():
		return nil, context.Cause(r.Context())
	}
}

// enter counts a request in flight and returns what counts it out.
func (s *Slow) enter() (leave func()) {
	s.mu.Lock()
	s.inFlight++
	s.most = max(s.most, s.inFlight)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}
}

// Most is the largest number of requests that were in flight at once.
func (s *Slow) Most() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.most
}
