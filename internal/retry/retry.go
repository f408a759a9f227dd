// Package retry runs idempotent unary requests (discovery documents, lookups) with bounded
// retries, over github.com/hashicorp/go-retryablehttp configured as it must be for us: no
// logging (the library would log URLs with their query), only GET and HEAD retried, only on
// transport errors, 429, 502, 503 and 504, Retry-After honoured but capped, the last response
// returned with its body intact, and the caller's connection pool left alone.
package retry

import (
	"context"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/hitlkit/hitlkit/internal/httpx"
)

// Policy bounds the retries. Zero fields take the defaults: 3 retries, waits from 1 s
// doubling to at most 30 s (a longer Retry-After is cut to 30 s).
type Policy struct {
	Retries int
	MinWait time.Duration
	MaxWait time.Duration
}

// Do sends req through hc, retrying as the package says. req must be a GET or HEAD without a
// body; others are sent once. It returns the last response, whatever its status, or the last
// transport error, or the context's error.
func Do(hc *http.Client, req *http.Request, p Policy) (*http.Response, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c := retryablehttp.NewClient()
	c.Logger = nil
	// The library closes its client's idle connections when it gives up; keep the caller's
	// pool out of that by hiding the transport's CloseIdleConnections.
	c.HTTPClient = &http.Client{Transport: roundTripOnly{rt}, CheckRedirect: hc.CheckRedirect, Jar: hc.Jar, Timeout: hc.Timeout}
	c.RetryMax = p.Retries
	if c.RetryMax <= 0 {
		c.RetryMax = 3
	}
	c.RetryWaitMin, c.RetryWaitMax = p.MinWait, p.MaxWait
	if c.RetryWaitMin <= 0 {
		c.RetryWaitMin = time.Second
	}
	if c.RetryWaitMax < c.RetryWaitMin {
		c.RetryWaitMax = max(30*time.Second, c.RetryWaitMin)
	}
	idempotent := req.Method == http.MethodGet || req.Method == http.MethodHead
	c.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if ctx.Err() != nil {
			return false, context.Cause(ctx)
		}
		if !idempotent {
			return false, nil
		}
		if err != nil {
			return true, nil
		}
		switch resp.StatusCode {
		case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true, nil
		}
		return false, nil
	}
	c.Backoff = func(lo, hi time.Duration, attempt int, resp *http.Response) time.Duration {
		if resp != nil {
			if d, ok := httpx.RetryAfter(resp.Header, time.Now()); ok {
				return min(max(d, lo), hi)
			}
		}
		d := lo << min(attempt, 16)
		d = min(d, hi)
		// Full jitter in the upper half, so that many clients do not retry in step.
		return d/2 + rand.N(d/2+1)
	}
	c.ErrorHandler = retryablehttp.PassthroughErrorHandler
	rreq, err := retryablehttp.FromRequest(req)
	if err != nil {
		return nil, err
	}
	return c.Do(rreq)
}

type roundTripOnly struct{ rt http.RoundTripper }

func (r roundTripOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	return r.rt.RoundTrip(req)
}
