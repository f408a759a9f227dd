// Package transporttest helps test a protocol of one's own built on package transport,
// time and all, inside a testing/synctest bubble.
//
// [Transport] serves an http.Handler — a fake service — through an in-memory
// http.RoundTripper: no socket, so a wait's polls, event streams and pushes run inside a
// bubble, where time is virtual and a wait of hours takes no time. Give it as the Transport
// of the http.Client a client takes (transport.WithHTTPClient, or a Wait's Client):
//
//	synctest.Test(t, func(t *testing.T) {
//		hc := &http.Client{Transport: &transporttest.Transport{Handler: fake}} // fake: your service
//		cfg, err := transport.NewConfig("acme", nil, transport.WithHTTPClient(hc))
//		if err != nil {
//			t.Fatal(err)
//		}
//		w := &transport.Wait[*transport.Result]{URL: "https://acme.example/approvals/1", Client: cfg.Service, Decode: decode}
//		res, err := w.Run(t.Context()) // hours of Retry-After pass in no time
//		if err != nil || !res.Approved() {
//			t.Fatalf("Run = %v, %v", res, err)
//		}
//	})
//
// A request a client of this module would send to the real network from inside a bubble —
// through an *http.Transport, where it would block outside the bubble's clock and hang the
// test — fails at once instead, with an error saying so; the fakes' NewServer (hitltest,
// hxptest, a2atest), which listen on loopback, fail the test at once when called inside a
// bubble: use their NewMemoryServer (NewMemoryAgent). A bubble is recognised by its clock,
// which starts at midnight UTC 2000-01-01.
//
// Leak checks: goleak.VerifyTestMain in TestMain needs nothing more. A per-test
// goleak.VerifyNone must run after a fake is closed: register it with t.Cleanup before the
// fake's NewServer (cleanups run last-in, first-out), not with defer, which runs before the
// fake's own cleanup closes it and so reports its goroutines.
package transporttest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// ErrConnectionReset is what reading a response body returns after its handler panicked
// with http.ErrAbortHandler, as a connection reset mid-body reads over a real network.
var ErrConnectionReset = errors.New("transporttest: connection reset by the handler")

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
