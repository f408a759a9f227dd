package transport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/telemetry"
)

func stopped(ctx context.Context, last error) error {
	cause := context.Cause(ctx)
	if last == nil {
		return cause
	}
	return fmt.Errorf("%w (last poll failed: %w)", cause, last)
}

func errAttr(err error) slog.Attr {
	if err == nil {
		return slog.Attr{}
	}
	return slog.String("err", err.Error())
}

// outcome is what one poll taught the loop. hint is the server's Retry-After, -1 when absent.
type outcome[T any] struct {
	value     T
	done      bool
	err       error
	temporary bool
	hint      time.Duration
	status    int
}

// class is the outcome's class for telemetry.
func (o *outcome[T]) class() string {
	switch {
	case o.done:
		return telemetry.PollDecided
	case o.err != nil && o.temporary:
		return telemetry.PollRetry
	case o.err != nil:
		return telemetry.PollFailed
	case o.status == http.StatusNotModified:
		return telemetry.PollUnchanged
	}
	return telemetry.PollWaiting
}

func (w *Wait[T]) pollOnce(ctx context.Context, etag *string) (o outcome[T]) {
	o.hint = -1
	rctx, cancel := context.WithTimeout(ctx, w.RequestTimeout)
	defer cancel()
	req, err := w.Request(rctx)
	if err != nil {
		o.err = fmt.Errorf("poll: %w", httpx.StripURL(err))
		return o
	}
	url := req.URL.String()
	req.Header.Set("Accept", "application/json")
	if *etag != "" {
		req.Header.Set("If-None-Match", *etag)
	}
	if w.Authorize != nil {
		if err := w.Authorize(ctx, req); err != nil {
			o.err = fmt.Errorf("poll %s: credentials: %w", httpx.Redact(url), err)
			return o
		}
	}
	resp, err := w.Client.Do(req)
	if err != nil {
		// net/http puts the full URL, query included, in *url.Error; keep only its cause.
		// A refused address stays refused: no retry changes the URL or where its name points.
		o.err = fmt.Errorf("poll %s: %w", httpx.Redact(url), httpx.StripURL(err))
		o.temporary = !errors.Is(err, ErrRefusedAddress) && !errors.Is(err, httpx.ErrInBubble)
		return o
	}
	defer httpx.DrainClose(resp.Body)
	o.status = resp.StatusCode
	if d, ok := httpx.RetryAfter(resp.Header, time.Now()); ok {
		o.hint = d
	}

	switch code := resp.StatusCode; {
	case code == http.StatusOK && w.Waiting != nil && w.Waiting(resp.Header):
	case code == http.StatusOK:
		body, err := httpx.ReadLimited(resp.Body, w.MaxBody)
		if errors.Is(err, httpx.ErrBodyTooLarge) {
			o.err = fmt.Errorf("poll %s: %w", httpx.Redact(url), err)
			return o
		}
		if err != nil {
			o.err, o.temporary = fmt.Errorf("poll %s: read body: %w", httpx.Redact(url), httpx.StripURL(err)), true
			return o
		}
		// RFC 9110 §8.8.3: an entity tag is quoted; "*" is only meaningful in requests.
		if tag := resp.Header.Get("ETag"); tag != "" && tag != "*" && tag != *etag {
			*etag = tag
			if w.OnETag != nil {
				w.OnETag(tag)
			}
		}
		o.value, o.done, o.err = w.Decode(body)
		o.temporary = httpx.IsTemporary(o.err)
	case code == http.StatusNotModified:
		if *etag == "" {
			w.Logger.LogAttrs(ctx, slog.LevelDebug, "poll: 304 without a validator sent",
				slog.String("url", httpx.Redact(url)))
		}
	case code == http.StatusTooManyRequests, code == http.StatusRequestTimeout, code >= 500:
		o.err = fmt.Errorf("poll %s: %w", httpx.Redact(url), statusError(resp, req))
		o.temporary = true
		if code != http.StatusTooManyRequests && code != http.StatusServiceUnavailable {
			o.hint = -1
		}
	default:
		o.err = fmt.Errorf("poll: %w", statusError(resp, req))
	}
	return o
}

// statusError keeps the first 512 bytes of the body as evidence, without the secrets req
// carried.
func statusError(resp *http.Response, req *http.Request) *StatusError {
	b, _ := httpx.ReadLimited(resp.Body, 512)
	return &StatusError{StatusCode: resp.StatusCode, URL: httpx.Redact(req.URL.String()), Body: httpx.ScrubBytes(b, 512, httpx.Secrets(req)...)}
}
