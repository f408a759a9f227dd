package clientcfg

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/internal/dial"
	"github.com/hitlkit/hitlkit/transport"
)

// TestServiceURLsDialPublicOnly: the client that polls, follows events and submits dials
// through a PublicDialer unless private addresses are allowed; the caller's own client, used
// for the calls given to hitl's Do, is left as it was.
func TestServiceURLsDialPublicOnly(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    []transport.Option
		refused []string
	}{
		{"default", nil, []string{"127.0.0.1:443", "10.0.0.1:443", "[::ffff:127.0.0.1]:443", "169.254.169.254:80"}},
		{"with the caller's transport", []transport.Option{transport.WithHTTPClient(&http.Client{Transport: &http.Transport{}})}, []string{"127.0.0.1:443"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New("test", nil, Defaults{}, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			tr, ok := c.Service.Transport.(*dial.Guard).RT.(*http.Transport)
			if !ok || c.HTTP.Transport == tr {
				t.Fatalf("service transport %T is the caller's", c.Service.Transport.(*dial.Guard).RT)
			}
			for _, addr := range tc.refused {
				if _, err := tr.DialContext(t.Context(), "tcp", addr); !errors.Is(err, transport.ErrRefusedAddress) || !strings.Contains(err.Error(), "private address") {
					t.Errorf("dial %s = %v, want a refusal of a private address", addr, err)
				}
			}
		})
	}
	c, err := New("test", nil, Defaults{}, []transport.Option{transport.WithAllowPrivateAddresses()})
	if err != nil {
		t.Fatal(err)
	}
	if c.Service.Transport.(*dial.Guard).RT != c.HTTP.Transport {
		t.Error("WithAllowPrivateAddresses still wraps the dialer")
	}
}

// TestShare: a client made with Share uses the other client's HTTP clients, logger, address
// rules, poll bound and body bound, but not its credential or pacing.
func TestShare(t *testing.T) {
	base, err := New("hitl", nil, Defaults{}, []transport.Option{transport.WithAllowPrivateAddresses(), transport.WithMaxBody(10),
		transport.WithAuthorization(transport.StaticToken("sk")), transport.WithPollInterval(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New("a2a", nil, Defaults{PollInterval: 5 * time.Second}, []transport.Option{Share(base)})
	if err != nil {
		t.Fatal(err)
	}
	if c.Service != base.Service || c.HTTP != base.HTTP || c.Logger != base.Logger || c.Polls != base.Polls ||
		!c.AllowPrivateAddresses || c.MaxBody != 10 || c.Credential != nil || c.PollInterval != 5*time.Second {
		t.Errorf("shared config %+v from %+v", c, base)
	}
}
