package hxp_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
	"github.com/hitlkit/hitlkit/transport"
)

// TestBaseURLPath: a base URL's path is where a proxy mounts the server, and the endpoints
// are under it plus the API prefix; a base URL that already ends with the API prefix (which
// the client adds itself) is refused by NewClient saying what to give, unless WithAPIPrefix("")
// keeps it. A status error names the URL called, without its user info or query.
func TestBaseURLPath(t *testing.T) {
	s := hxptest.NewServer(t)
	common := []transport.Option{transport.WithHTTPClient(s.Client()), transport.WithAllowPrivateAddresses(),
		transport.WithPollInterval(time.Second), transport.WithAuthorization(key(hxptest.DefaultAgentKey))}

	for _, base := range []string{s.URL + "/hxp/v1", s.URL + "/hxp/v1/", "https://hxp.example/hxp/v1"} {
		_, err := hxp.NewClient(base, common...)
		if err == nil || !strings.Contains(err.Error(), "WithAPIPrefix") || !strings.Contains(err.Error(), "give "+strings.TrimSuffix(strings.TrimSuffix(base, "/"), "/hxp/v1")) {
			t.Errorf("NewClient(%q) = %v, want a refusal saying to give the scheme and host", base, err)
		}
	}
	kept, err := hxp.NewClient(s.URL+"/hxp/v1", append(common, hxp.WithAPIPrefix(""))...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kept.Create(t.Context(), decide()); err != nil {
		t.Errorf("base URL with the prefix and WithAPIPrefix(\"\"): %v", err)
	}

	// Mounted by a proxy under /gateway.
	target, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = s.Client().Transport
	proxy := httptest.NewServer(http.StripPrefix("/gateway", rp))
	defer proxy.Close()
	mounted, err := hxp.NewClient(proxy.URL+"/gateway", append(common, transport.WithHTTPClient(proxy.Client()))...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mounted.Create(t.Context(), decide()); err != nil {
		t.Errorf("base URL with a mount path: %v", err)
	}

	wrong, err := hxp.NewClient(strings.Replace(s.URL, "://", "://user:pw@", 1)+"/elsewhere?k=secret", common...)
	if err != nil {
		t.Fatal(err)
	}
	_, err = wrong.Create(t.Context(), decide())
	var ae *hxp.APIError
	if !errors.Is(err, transport.ErrNotFound) || !errors.As(err, &ae) {
		t.Fatalf("Create on a wrong path = %v, want the 404's *APIError", err)
	}
	want := s.URL + "/elsewhere/hxp/v1/requests"
	if !strings.Contains(err.Error(), want) || ae.URL != want {
		t.Errorf("Create's 404 = %v (URL %q), want it to name %s", err, ae.URL, want)
	}
	if strings.Contains(err.Error(), "pw") || strings.Contains(err.Error(), "secret") {
		t.Errorf("the error holds the base URL's user info or query: %v", err)
	}
}
