package dial_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/internal/dial"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/transport"
)

// names is a Resolver that answers from a table.
type names map[string][]netip.Addr

func (n names) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := n[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func addrs(s ...string) []netip.Addr {
	out := make([]netip.Addr, len(s))
	for i, a := range s {
		out[i] = netip.MustParseAddr(a)
	}
	return out
}

// TestPublicDialerRefusesWhatNamesResolveTo: a host name that resolves to a loopback,
// private, link-local, unspecified or IPv4-mapped address is refused where it is dialled,
// before any connection; a poll through such a client ends at once with ErrRefusedAddress.
func TestPublicDialerRefusesWhatNamesResolveTo(t *testing.T) {
	var reached int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached++
		_, _ = w.Write([]byte(`{"done":true}`))
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	table := names{
		"rebind.example":  addrs("127.0.0.1"),
		"mapped.example":  addrs("::ffff:127.0.0.1"),
		"private.example": addrs("10.1.2.3"),
		"meta.example":    addrs("169.254.169.254"),
		"zero.example":    addrs("0.0.0.0"),
		"mixed.example":   addrs("93.184.215.14", "127.0.0.1"),
		"v6local.example": addrs("fd00::1"),
		"nat64.example":   addrs("64:ff9b::a00:1"),
		"siit.example":    addrs("::ffff:0:7f00:1"),
	}
	for name := range table {
		t.Run(name, func(t *testing.T) {
			hc := dial.PublicOnly(&http.Client{Transport: &http.Transport{}}, &dial.PublicDialer{Resolver: table})
			calls := 0
			w := &transport.Wait[bool]{URL: "http://" + name + ":" + port + "/status", Client: hc, Decode: func([]byte) (bool, bool, error) {
				calls++
				return true, true, nil
			}}
			_, err := w.Run(t.Context())
			if !errors.Is(err, transport.ErrRefusedAddress) || !strings.Contains(err.Error(), "private address") {
				t.Fatalf("Poll = %v, want a refusal of a private address", err)
			}
			if calls != 0 {
				t.Errorf("decoded %d answers", calls)
			}
		})
	}
	if reached != 0 {
		t.Errorf("the loopback server was reached %d times", reached)
	}
	// The same resolver with loopback allowed does reach the server: the refusal above was
	// the dialer's, not a failed lookup.
	hc := dial.PublicOnly(&http.Client{}, &dial.PublicDialer{Resolver: table, AllowLoopback: true})
	resp, err := hc.Get("http://rebind.example:" + port + "/status")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if reached != 1 {
		t.Errorf("reached %d times with loopback allowed, want 1", reached)
	}
}

// TestPublicAddr: the address classes the dialer refuses.
func TestPublicAddr(t *testing.T) {
	for a, want := range map[string]bool{
		"93.184.215.14": true, "2606:4700::1111": true, "8.8.8.8": true,
		"127.0.0.1": false, "127.9.9.9": false, "::1": false, "10.0.0.1": false, "172.16.0.1": false,
		"192.168.0.1": false, "169.254.169.254": false, "fe80::1": false, "fd12::1": false, "0.0.0.0": false,
		"::": false, "::ffff:10.0.0.1": false, "100.64.0.1": false, "224.0.0.1": false, "0.1.2.3": false,
		// NAT64 and IPv4-translated forms carry the IPv4 address they reach.
		"64:ff9b::a00:1": false, "64:ff9b::7f00:1": false, "64:ff9b::a9fe:a9fe": false, "64:ff9b::808:808": true,
		"64:ff9b:1::a00:1": false, "64:ff9b:1:a00:1::": false, "64:ff9b:1:a:0:100::": false, "64:ff9b:1::808:808": true,
		"64:ff9b:1:808:8:800::": true, "64:ff9b:1:ffff::808:808": true, "64:ff9b:1:ffff::a00:1": false,
		"::ffff:0:a00:1": false, "::ffff:0:808:808": true, "::a00:1": false,
	} {
		if got := httpx.PublicAddr(netip.MustParseAddr(a)); got != want {
			t.Errorf("PublicAddr(%s) = %v, want %v", a, got, want)
		}
	}
}
