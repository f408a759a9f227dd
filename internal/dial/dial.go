// Package dial gives an HTTP client a dialer that connects to public addresses only, so that
// a URL a server hands the agent cannot make it reach the agent's own network.
package dial

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/hitlkit/hitlkit/internal/httpx"
)

// PublicOnly returns a copy of hc whose connections go to public addresses only (see
// [PublicDialer]; d nil means the zero PublicDialer). It applies when hc's transport is nil
// (http.DefaultTransport is cloned) or an *http.Transport (cloned, its own DialContext kept as
// the dial of checked addresses); any other RoundTripper is returned unchanged, and is then
// responsible for where it connects (wrap its dialer with a PublicDialer). A proxy's address
// is checked like any other: with a proxy on a private network, allow private addresses.
func PublicOnly(hc *http.Client, d *PublicDialer) *http.Client {
	if hc == nil {
		hc = &http.Client{}
	}
	var t *http.Transport
	switch rt := hc.Transport.(type) {
	case nil:
		dt, ok := http.DefaultTransport.(*http.Transport)
		if !ok {
			return hc
		}
		t = dt.Clone()
	case *http.Transport:
		t = rt.Clone()
	default:
		return hc
	}
	pd := PublicDialer{}
	if d != nil {
		pd = *d
	}
	if pd.Dial == nil && t.DialContext != nil {
		pd.Dial = t.DialContext
	}
	t.DialContext = pd.DialContext
	cp := *hc
	cp.Transport = t
	return &cp
}

// Resolver looks up a host's IP addresses; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// PublicDialer connects only to public addresses. It resolves the host itself, refuses the
// connection when any address it resolves to is not public, and dials the checked address,
// so a name that resolves to a public address when checked and to a loopback one when dialled
// (DNS rebinding) cannot slip through. Numeric hosts in every spelling a resolver accepts
// (2130706433, 0x7f.1, 127.1) are resolved first and so checked as the address they are.
//
// [PublicOnly] puts it in a client's HTTP client. The zero value is ready to use and is safe for
// concurrent use.
type PublicDialer struct {
	// Resolver looks host names up. Nil means net.DefaultResolver.
	Resolver Resolver
	// Dial connects to a checked IP address and port. Nil means a net.Dialer with a 30 s
	// timeout and 30 s keep-alives.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// AllowLoopback admits loopback addresses (127.0.0.0/8, ::1) and nothing else private:
	// for services on the developer's own machine.
	AllowLoopback bool
}

// DialContext resolves address's host, checks every address and dials the first public one
// that answers. A refusal matches transport.ErrRefusedAddress and names no address.
func (d *PublicDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	if httpx.InBubble() {
		return nil, httpx.ErrInBubble
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else {
		var r Resolver = net.DefaultResolver
		if d.Resolver != nil {
			r = d.Resolver
		}
		lookup := "ip"
		switch network {
		case "tcp4", "udp4":
			lookup = "ip4"
		case "tcp6", "udp6":
			lookup = "ip6"
		}
		if addrs, err = r.LookupNetIP(ctx, lookup, host); err != nil {
			return nil, err
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("%s: no address", host)
		}
	}
	for _, a := range addrs {
		if !d.allowed(a) {
			return nil, fmt.Errorf("dial %s: resolves to a private address: %w", host, httpx.ErrRefusedAddress)
		}
	}
	dial := d.Dial
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	var first error
	for _, a := range addrs {
		c, err := dial(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, first
}

func (d *PublicDialer) allowed(a netip.Addr) bool {
	a = a.Unmap()
	if a.IsLoopback() {
		return d.AllowLoopback
	}
	return httpx.PublicAddr(a)
}
