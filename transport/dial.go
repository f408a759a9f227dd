package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"time"
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
// Use it as an [http.Transport]'s DialContext, or through [PublicOnly]. The zero value is
// ready to use and is safe for concurrent use.
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
	return PublicAddr(a)
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
