package dial

import (
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/telemetry"
)

// Guard is a RoundTripper that refuses, before sending, every request whose URL breaks the
// address rules ([CheckURL]), and sends the others through RT (nil: http.DefaultTransport).
// Inside a testing/synctest bubble it refuses every request RT, an *http.Transport, would
// send to the real network, with httpx.ErrInBubble.
//
// With Tel set it also sends each request with the trace context of its wait's span and
// counts it as a request the wait sent (internal/telemetry).
type Guard struct {
	RT           http.RoundTripper
	AllowPrivate bool
	Tel          *telemetry.Telemetry
}

// RoundTrip implements http.RoundTripper.
func (g *Guard) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := CheckURL(req.URL, g.AllowPrivate); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	rt := g.RT
	if rt == nil {
		rt = http.DefaultTransport
	}
	if _, real := rt.(*http.Transport); real && httpx.InBubble() {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, httpx.ErrInBubble
	}
	if g.Tel != nil {
		ctx := req.Context()
		if trace.SpanContextFromContext(ctx).IsValid() {
			req = req.Clone(ctx)
			g.Tel.Inject(ctx, req.Header)
		}
		if w := telemetry.From(ctx); w != nil {
			w.Request(ctx)
		}
	}
	return rt.RoundTrip(req)
}

// CheckURL applies the address rules (HITL Protocol §13, HXP §7): https or wss only; a host
// that is localhost or a private IP literal is refused, and http and ws are allowed on
// localhost and 127.0.0.1, only when allowPrivate. Host names are not resolved: the dialer
// checks where they point. The error matches transport.ErrRefusedAddress, names the rule
// and never holds the URL.
func CheckURL(u *url.URL, allowPrivate bool) error {
	host := u.Hostname()
	switch strings.ToLower(u.Scheme) {
	case "https", "wss":
		if !allowPrivate && privateHost(host) {
			return errPrivate
		}
		return nil
	case "http", "ws":
		if host != "localhost" && host != "127.0.0.1" {
			return ErrNotHTTPS
		}
		if !allowPrivate {
			return errLocal
		}
		return nil
	}
	return ErrNotHTTPS
}

// urlError is a URL the address rules refuse; its text is the problem as a HITL field error
// names it.
type urlError struct {
	problem string
	kind    error
}

func (e *urlError) Error() string { return e.problem }
func (e *urlError) Unwrap() error { return e.kind }

// ErrNotHTTPS: a URL that is not https (or wss), nor http on localhost.
var ErrNotHTTPS error = &urlError{"must use https", httpx.ErrRefusedAddress}

var (
	errLocal   = &urlError{"plain http to localhost or 127.0.0.1 needs transport.WithAllowPrivateAddresses() (anywhere else, https)", httpx.ErrRefusedAddress}
	errPrivate = &urlError{"points at a private address; allowed only with transport.WithAllowPrivateAddresses()", httpx.ErrRefusedAddress}
)

// privateHost reports whether host is localhost (with or without the root's trailing dot,
// subdomains included) or an IP literal no public service has, in any spelling a resolver
// accepts: 127.1, 2130706433, 0x7f.1, 0177.0.0.1, ::ffff:127.0.0.1. It is the early, clear
// check; the dialer checks what a name resolves to.
func privateHost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	if host == "" || (!strings.Contains(host, ":") && (host[0] < '0' || host[0] > '9')) {
		return false // a name: the dialer checks where it points
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		var ok bool
		if ip, ok = looseIPv4(host); !ok {
			return false
		}
	}
	return !httpx.PublicAddr(ip)
}

// looseIPv4 parses the IPv4 spellings of inet_aton(3): one to four parts, each decimal, octal
// (leading 0) or hex (0x), the last part filling the remaining bytes.
func looseIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var out [4]byte
	for i, p := range parts {
		if p == "" || strings.ContainsAny(p, "_+-") {
			return netip.Addr{}, false
		}
		v, err := strconv.ParseUint(p, 0, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if v > 255 {
				return netip.Addr{}, false
			}
			out[i] = byte(v)
			continue
		}
		rest := 4 - i
		if v >= 1<<(8*rest) {
			return netip.Addr{}, false
		}
		for j := 3; j >= i; j-- {
			out[j] = byte(v)
			v >>= 8
		}
	}
	return netip.AddrFrom4(out), true
}
