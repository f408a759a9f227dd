// Package httpx holds the HTTP helpers every waiter shares: bounded body reads, Retry-After
// parsing, origin checks and URL redaction for logs and errors.
package httpx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
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

// ErrRefusedAddress is transport.ErrRefusedAddress: a request the address rules refused.
var ErrRefusedAddress = errors.New("address refused")

// ErrInBubble: a request that would reach the real network from inside a testing/synctest
// bubble, where it would block outside the bubble's clock and hang the test.
var ErrInBubble = errors.New("a request to the real network inside a testing/synctest bubble, where it would hang: " +
	"serve the fake through transporttest.Transport (a fake's NewMemoryServer)")

// bubbleEpoch is where a testing/synctest bubble's clock starts (midnight UTC 2000-01-01).
var bubbleEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// InBubble reports whether the caller runs inside a testing/synctest bubble, by its clock:
// a bubble's starts at midnight UTC 2000-01-01, and no machine that runs hitlkit's requests
// reads a time in the ten years after.
func InBubble() bool {
	now := time.Now()
	return !now.Before(bubbleEpoch) && now.Before(bubbleEpoch.AddDate(10, 0, 0))
}

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

// NoRedirect is the redirect policy of every request hitlkit makes itself (polls, event
// streams, task queries, submits, the WebSocket handshake): none is followed, and the 3xx is
// the answer. No protocol here defines a redirect, and following one would carry the
// request's credentials to wherever it points.
func NoRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

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

// PublicAddr reports whether a may belong to a public service: not loopback, private
// (RFC 1918, RFC 4193), link-local, multicast, unspecified, CGNAT shared space (RFC 6598),
// nor an IPv6 address that carries one of those IPv4 addresses: mapped (::ffff:0:0/96),
// translated (::ffff:0:0:0/96, RFC 2765), compatible (::/96, RFC 4291 §2.5.5.1), or behind
// NAT64 (64:ff9b::/96, RFC 6052 §2.1; and 64:ff9b:1::/48, RFC 8215, whose prefix length is
// the network's choice: judged at every place an RFC 6052 §2.2 prefix of /48, /56, /64 or
// /96 would put the IPv4 address, where the bits after it are zero) — on an IPv6-only host
// behind NAT64, 64:ff9b::a00:1 reaches 10.0.0.1.
func PublicAddr(a netip.Addr) bool {
	a = a.Unmap()
	switch {
	case !a.IsValid(), a.IsLoopback(), a.IsPrivate(), a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast(),
		a.IsInterfaceLocalMulticast(), a.IsMulticast(), a.IsUnspecified():
		return false
	case a.Is4() && a.As4()[0] == 100 && a.As4()[1]&0xc0 == 64: // 100.64.0.0/10
		return false
	case a.Is4() && a.As4()[0] == 0: // 0.0.0.0/8, "this network"
		return false
	}
	for _, v4 := range embeddedIPv4(a) {
		if !PublicAddr(v4) {
			return false
		}
	}
	return true
}

var (
	nat64       = netip.MustParsePrefix("64:ff9b::/96")    // RFC 6052 §2.1
	nat64Local  = netip.MustParsePrefix("64:ff9b:1::/48")  // RFC 8215
	translated  = netip.MustParsePrefix("::ffff:0:0:0/96") // RFC 2765 §2.1
	compatible  = netip.MustParsePrefix("::/96")           // RFC 4291 §2.5.5.1
	v4Positions = [][4]int{                                // RFC 6052 §2.2: the bytes holding the IPv4 address for prefixes of /48, /56, /64, /96 (byte 8 is always zero)
		{6, 7, 9, 10}, {7, 9, 10, 11}, {9, 10, 11, 12}, {12, 13, 14, 15},
	}
)

// embeddedIPv4 returns the IPv4 addresses an IPv6 address carries for a translator.
func embeddedIPv4(a netip.Addr) []netip.Addr {
	if !a.Is6() {
		return nil
	}
	b := a.As16()
	at := func(p [4]int) netip.Addr { return netip.AddrFrom4([4]byte{b[p[0]], b[p[1]], b[p[2]], b[p[3]]}) }
	switch {
	case nat64.Contains(a), translated.Contains(a), compatible.Contains(a):
		return []netip.Addr{at(v4Positions[3])}
	case nat64Local.Contains(a):
		var out []netip.Addr
		for _, p := range v4Positions {
			last := p[3]
			if last < 15 && (b[8] != 0 || !zero(b[last+1:])) {
				continue // not this layout: its u-octet or suffix is set
			}
			if v4 := at(p); len(out) == 0 || v4 != netip.IPv4Unspecified() { // /96 after a shorter layout: the zero suffix
				out = append(out, v4)
			}
		}
		return out
	}
	return nil
}

func zero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// temporaryError marks an error as worth another try.
type temporaryError struct{ err error }

func (e temporaryError) Error() string { return e.err.Error() }
func (e temporaryError) Unwrap() error { return e.err }

// Temporary marks err, returned by a wait's Decode, as transient: the wait backs off and
// polls again instead of ending. Temporary(nil) is nil.
func Temporary(err error) error {
	if err == nil {
		return nil
	}
	return temporaryError{err}
}

// IsTemporary reports whether err was marked with Temporary.
func IsTemporary(err error) bool {
	var t temporaryError
	return errors.As(err, &t)
}

// Authorize sets req's Authorization header from cred (a transport.Credential): nothing when
// cred is nil or gives "". An error from cred is returned as it is; it never holds the value.
func Authorize(ctx context.Context, req *http.Request, cred func(context.Context) (string, error)) error {
	if cred == nil {
		return nil
	}
	v, err := cred(ctx)
	if err != nil {
		return err
	}
	if v != "" {
		req.Header.Set("Authorization", v)
	}
	return nil
}

// StatusWriter is an http.ResponseWriter that notes the status its answer began with: the
// first WriteHeader's code, or 200 when the handler wrote without one. Flush and Unwrap reach
// the writer beneath, so event streams and WebSocket upgrades pass through it. The fakes use
// it to log each request's status.
type StatusWriter struct {
	http.ResponseWriter
	Status int
}

// WriteHeader notes code when it is the first status and passes it on.
func (w *StatusWriter) WriteHeader(code int) {
	if w.Status == 0 {
		w.Status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write notes 200 when nothing set a status before and passes b on.
func (w *StatusWriter) Write(b []byte) (int, error) {
	if w.Status == 0 {
		w.Status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush flushes the writer beneath when it can.
func (w *StatusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap returns the writer beneath, for http.ResponseController.
func (w *StatusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// ErrStreamUnavailable: the server offers no push source of this kind for this wait — no
// event stream at the URL (204, 401, 403, 404, 410, another 4xx, a response that is not an
// event stream, an event over the size limit, or too many failed connections in a row), an
// agent that will not stream the task. The wait carries on polling. A push source returns an
// error wrapping it to say it will not be run again.
var ErrStreamUnavailable = errors.New("event stream unavailable")
