package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/hitlkit/hitlkit/internal/httpx"
)

// ErrPrivateAddress: a connection was refused because the host resolves to an address no
// public service has (loopback, private, link-local, unspecified, or such an address mapped
// into IPv6). It ends a wait at once: retrying would not change where the name points.
var ErrPrivateAddress = errors.New("host resolves to a private address")

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
// Use it as an [http.Transport]'s DialContext, or through the clients,
// which put it in their own HTTP client. The zero value is ready to use and is safe for
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
// that answers. A refusal matches ErrPrivateAddress and names no address.
func (d *PublicDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
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
			return nil, fmt.Errorf("dial %s: %w", host, ErrPrivateAddress)
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
