// Package httpx holds the HTTP helpers every waiter shares: bounded body reads, Retry-After
// parsing, origin checks and URL redaction for logs and errors.
package httpx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// DefaultBodyLimit is the largest response body read when the caller sets no limit.
const DefaultBodyLimit = 1 << 20

// ErrBodyTooLarge reports a response body longer than the configured limit.
var ErrBodyTooLarge = errors.New("response body exceeds the size limit")

// ReadLimited reads all of r, failing with ErrBodyTooLarge when it holds more than limit bytes.
// A limit ≤ 0 means DefaultBodyLimit.
func ReadLimited(r io.Reader, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultBodyLimit
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return b, err
	}
	if int64(len(b)) > limit {
		return b[:limit], fmt.Errorf("%w (%d bytes)", ErrBodyTooLarge, limit)
	}
	return b, nil
}

// DrainClose discards at most 4 KiB of body, so the connection can be reused, and closes it.
func DrainClose(body io.ReadCloser) {
	if body == nil {
		return
	}
	_, _ = io.CopyN(io.Discard, body, 4<<10)
	_ = body.Close()
}

// RetryAfter parses a Retry-After header (RFC 9110 §10.2.3) given as delay-seconds or an
// HTTP-date. It reports false when the header is absent or unparsable. A date in the past
// is a zero delay; either form is capped at a year.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	const maxDelay = 365 * 24 * time.Hour
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(min(secs, int64(maxDelay/time.Second))) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return min(max(t.Sub(now), 0), maxDelay), true
}

// Origin returns scheme://host[:port] of u, lower-cased, with default ports made explicit,
// or "" when u has no scheme or host.
func Origin(u *url.URL) string {
	if u == nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host + ":" + port
}

// CalledOrigin returns the Origin of the request the caller made for resp: the first request of
// the redirect chain Go's client followed, not the last hop. Credentials belong to that origin
// only: a redirect to another host must not let the host it points at receive them. It
// returns "" when resp carries no request.
func CalledOrigin(resp *http.Response) string {
	if resp == nil || resp.Request == nil {
		return ""
	}
	req := resp.Request
	for req.Response != nil && req.Response.Request != nil {
		req = req.Response.Request
	}
	return Origin(req.URL)
}

// OriginOf parses raw and returns its Origin, or "" when raw is not an absolute URL.
func OriginOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return Origin(u)
}

// Redact returns raw without userinfo, query and fragment: safe for logs and error strings.
// Review URLs carry their token in the query, so nothing after the path is ever shown.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "[unparsable url]"
	}
	out := u.Scheme + "://" + u.Host + u.EscapedPath()
	if u.RawQuery != "" {
		out += "?[redacted]"
	}
	return out
}

// StripURL drops net/http's *url.Error wrapper, whose message repeats the request URL with its
// query string (and so any token in it), and returns the cause.
func StripURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// Defaults of an [Intake]'s zero fields: what a handler anyone can reach reads before it
// knows who sent the body.
const (
	DefaultIntakeLimit    = 64 << 10
	DefaultIntakeTimeout  = 10 * time.Second
	DefaultIntakeReadsCap = 64
)

// Intake reads the bodies of notifications POSTed to a public receiver (callbacks, push
// notifications), which anyone can reach and which cannot authenticate a body before reading
// it. Each body is bounded in size (Limit) and in time (Timeout: the connection's read
// deadline, so a slow or stalled body is cut), and at most MaxReads bodies are read at once;
// past that a request is answered 503 at once, without reading.
//
// Zero fields mean the defaults. Set the fields before first use; an Intake must not be
// copied after. It is safe for concurrent use.
type Intake struct {
	Limit    int64
	Timeout  time.Duration
	MaxReads int

	once  sync.Once
	slots chan struct{}
}

// ReadPost reads the body of r. It answers the request itself and reports false when the
// method is not POST (405), MaxReads bodies are being read already (503 with Retry-After),
// the body is over Limit (413), or unreadable or not read within Timeout (400). The unread
// rest of the body is drained, up to 4 KiB, so the connection can be reused.
func (in *Intake) ReadPost(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		Refuse(w, http.StatusMethodNotAllowed, "method not allowed")
		return nil, false
	}
	in.once.Do(func() {
		n := in.MaxReads
		if n <= 0 {
			n = DefaultIntakeReadsCap
		}
		in.slots = make(chan struct{}, n)
	})
	select {
	case in.slots <- struct{}{}:
		defer func() { <-in.slots }()
	default:
		w.Header().Set("Retry-After", "5")
		Refuse(w, http.StatusServiceUnavailable, "busy")
		return nil, false
	}
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultIntakeLimit
	}
	timeout := in.Timeout
	if timeout <= 0 {
		timeout = DefaultIntakeTimeout
	}
	deadline := time.Now().Add(timeout)
	var body io.Reader = r.Body
	if http.NewResponseController(w).SetReadDeadline(deadline) != nil {
		// A server without read deadlines (an in-memory one): the deadline is checked
		// between reads, which cuts a trickle but not a read that never returns.
		body = &deadlineReader{r: r.Body, deadline: deadline}
	}
	b, err := ReadLimited(body, limit)
	if err == nil || errors.Is(err, ErrBodyTooLarge) {
		_, _ = io.Copy(io.Discard, io.LimitReader(body, 4<<10))
	}
	switch {
	case errors.Is(err, ErrBodyTooLarge):
		Refuse(w, http.StatusRequestEntityTooLarge, "body too large")
		return nil, false
	case err != nil:
		Refuse(w, http.StatusBadRequest, "could not read body")
		return nil, false
	}
	return b, true
}

// Refuse answers a request whose body was not (wholly) read, and closes the connection
// after the answer: otherwise net/http's server would try to read the rest of the body
// before answering, and a client that stalls would hold the connection with no deadline.
func Refuse(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Connection", "close")
	http.Error(w, msg, code)
}

// errDeadline: a body read past its deadline.
var errDeadline = errors.New("read deadline passed")

type deadlineReader struct {
	r        io.Reader
	deadline time.Time
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	if !time.Now().Before(d.deadline) {
		return 0, errDeadline
	}
	return d.r.Read(p)
}

// minSecret is the shortest value Scrub treats as a secret: shorter values (a query's "1",
// a scheme name) would blank out ordinary words.
const minSecret = 6

// Scrub prepares text a server sent back for an error string: every secret in secrets (at
// least 6 bytes long; shorter ones are ignored) is replaced by "[redacted]", control
// characters become spaces, and the result is cut to at most n bytes on a rune boundary,
// "…" marking a cut. n ≤ 0 means 200.
func Scrub(text string, n int, secrets ...string) string {
	if n <= 0 {
		n = 200
	}
	for _, s := range secrets {
		if len(s) >= minSecret {
			text = strings.ReplaceAll(text, s, "[redacted]")
		}
	}
	text = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, text)
	if len(text) <= n {
		return text
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + "…"
}

// ScrubBytes is [Scrub] for raw evidence kept on an error: the secrets are replaced and the
// bytes cut to n, without other changes.
func ScrubBytes(b []byte, n int, secrets ...string) []byte {
	for _, s := range secrets {
		if len(s) >= minSecret {
			b = bytes.ReplaceAll(b, []byte(s), []byte("[redacted]"))
		}
	}
	if len(b) > n {
		b = b[:n]
	}
	return b
}

// Secrets lists the secret values req carries: the Authorization header whole and its
// credential after the scheme, the password of the URL's userinfo, and every query value
// (review and submit URLs carry their token in the query). A server that echoes one of them
// back must not get it into an error string; see [Scrub].
func Secrets(req *http.Request) []string {
	if req == nil {
		return nil
	}
	var out []string
	for _, v := range req.Header.Values("Authorization") {
		out = append(out, v)
		if _, cred, ok := strings.Cut(v, " "); ok {
			out = append(out, strings.TrimSpace(cred))
		}
	}
	if req.URL != nil {
		if p, ok := req.URL.User.Password(); ok {
			out = append(out, p)
		}
		for _, vs := range req.URL.Query() {
			out = append(out, vs...)
		}
	}
	return out
}
