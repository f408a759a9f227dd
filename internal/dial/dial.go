// Package dial gives an HTTP client a dialer that connects to public addresses only, so that
// a URL a server hands the agent cannot make it reach the agent's own network.
package dial

import (
	"net/http"

	"github.com/hitlkit/hitlkit/transport"
)

// PublicOnly returns a copy of hc whose connections go to public addresses only (see
// [transport.PublicDialer]; d nil means the zero PublicDialer). It applies when hc's transport is nil
// (http.DefaultTransport is cloned) or an *http.Transport (cloned, its own DialContext kept as
// the dial of checked addresses); any other RoundTripper is returned unchanged, and is then
// responsible for where it connects (wrap its dialer with a PublicDialer). A proxy's address
// is checked like any other: with a proxy on a private network, allow private addresses.
func PublicOnly(hc *http.Client, d *transport.PublicDialer) *http.Client {
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
	pd := transport.PublicDialer{}
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
