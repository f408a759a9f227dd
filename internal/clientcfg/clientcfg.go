// Package clientcfg builds what every client of the module (hitl, a2a, hxp, hi) needs from
// its [transport.Option]s: one rule for nil options and options of another client, one
// redirect policy, one set of address and scheme rules, one set of defaults.
package clientcfg

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/internal/clientopt"
	"github.com/hitlkit/hitlkit/internal/dial"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/pace"
	"github.com/hitlkit/hitlkit/transport"
)

// Defaults are a protocol's defaults for what the common options set.
type Defaults struct {
	PollInterval   time.Duration
	RequestTimeout time.Duration
}

// Config is a client's configuration once its options are applied and its defaults filled in.
type Config struct {
	// HTTP is the caller's client (a copy), with its own redirect policy: for the calls the
	// caller hands over (hitl's Client.Do).
	HTTP *http.Client
	// Service is HTTP for every request the client makes itself: no redirect followed, every
	// URL held to the address rules, and, unless private addresses are allowed, a dialer that
	// connects to public addresses only.
	Service               *http.Client
	Logger                *slog.Logger
	Credential            transport.Credential
	MaxBody               int64
	PollInterval          time.Duration
	RequestTimeout        time.Duration
	Polls                 *pace.Slots
	AllowPrivateAddresses bool
}

// New applies opts for the client named client, whose own options find own in
// [clientopt.Settings].Own, and completes the result with d and the common defaults.
func New(client string, own any, d Defaults, opts []transport.Option) (*Config, error) {
	s := clientopt.Settings{Client: client, Own: own}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&s); err != nil {
			return nil, err
		}
	}
	c := &Config{Credential: s.Credential, MaxBody: s.MaxBody, PollInterval: s.PollInterval, RequestTimeout: s.RequestTimeout}
	sh, shared := s.Shared.(*Config)
	if c.MaxBody == 0 && shared {
		c.MaxBody = sh.MaxBody
	}
	if c.MaxBody == 0 {
		c.MaxBody = httpx.DefaultBodyLimit
	}
	if c.PollInterval == 0 {
		c.PollInterval = d.PollInterval
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = d.RequestTimeout
	}
	if shared {
		c.HTTP, c.Service, c.Logger, c.Polls = sh.HTTP, sh.Service, sh.Logger, sh.Polls
		c.AllowPrivateAddresses = sh.AllowPrivateAddresses
		return c, nil
	}
	c.AllowPrivateAddresses = s.AllowPrivateAddresses
	c.Logger = s.Logger
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	c.HTTP = s.HTTP
	if c.HTTP == nil {
		cp := *http.DefaultClient
		c.HTTP = &cp
	}
	c.Service = c.service()
	n := s.MaxPollsInFlight
	if n == 0 {
		n = pace.MaxPollsInFlight
	}
	c.Polls = pace.NewSlots(n)
	return c, nil
}

// service derives the client for the requests the client makes itself from HTTP.
func (c *Config) service() *http.Client {
	hc := c.HTTP
	if !c.AllowPrivateAddresses {
		hc = dial.PublicOnly(hc, &dial.PublicDialer{})
	}
	cp := *hc
	cp.Transport = &guard{rt: hc.Transport, allowPrivate: c.AllowPrivateAddresses}
	cp.CheckRedirect = httpx.NoRedirect
	return &cp
}

// Own returns an option of the client named client that applies set to that client's own
// settings (a *T in [clientopt.Settings].Own). Given to another client it is an
// error matching [transport.ErrInvalidOption] naming both; an error from set is one naming
// its problem.
func Own[T any](client, name string, set func(*T) error) transport.Option {
	return func(s *clientopt.Settings) error {
		t, ok := s.Own.(*T)
		if !ok {
			return clientopt.Refused(s.Client, client+"."+name, "configures "+client+" clients only")
		}
		if err := set(t); err != nil {
			return clientopt.Refused(s.Client, client+"."+name, err.Error())
		}
		return nil
	}
}

// Share is the option that makes a client use c's HTTP clients, logger, address rules and
// poll bound (and so its connections and slots) instead of building its own, and c's bound
// on bodies unless it sets its own. Its credential and pacing stay its own.
func Share(c *Config) transport.Option {
	return func(s *clientopt.Settings) error {
		s.Shared = c
		return nil
	}
}

// CheckBase checks the base URL a client is made for: an absolute http(s) URL that the
// address rules admit.
func (c *Config) CheckBase(client, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%s: NewClient: base URL must be an absolute http(s) URL", client)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		err = errNotHTTPS
	} else {
		err = CheckURL(u, c.AllowPrivateAddresses)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: NewClient: base URL: %w", client, err)
	}
	return u, nil
}

// guard refuses, before sending, every request whose URL breaks the address rules.
type guard struct {
	rt           http.RoundTripper
	allowPrivate bool
}

func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := CheckURL(req.URL, g.allowPrivate); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	rt := g.rt
	if rt == nil {
		rt = http.DefaultTransport
	}
	return rt.RoundTrip(req)
}

// CheckURL applies the address rules (HITL Protocol §13, HXP §7): https or wss only; a host
// that is localhost or a private IP literal is refused, and http and ws are allowed on
// localhost and 127.0.0.1, only when allowPrivate. Host names are not resolved: the dialer
// checks where they point. The error matches [transport.ErrRefusedAddress], names the rule
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
			return errNotHTTPS
		}
		if !allowPrivate {
			return errLocal
		}
		return nil
	}
	return errNotHTTPS
}

// urlError is a URL the address rules refuse; its text is the problem as a HITL field error
// names it.
type urlError struct {
	problem string
	kind    error
}

func (e *urlError) Error() string { return e.problem }
func (e *urlError) Unwrap() error { return e.kind }

var (
	errNotHTTPS = &urlError{"must use https", transport.ErrRefusedAddress}
	errLocal    = &urlError{"http is allowed only for localhost, with transport.WithAllowPrivateAddresses()", transport.ErrRefusedAddress}
	errPrivate  = &urlError{"points at a private address; allowed only with transport.WithAllowPrivateAddresses()", transport.ErrRefusedAddress}
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
