package transport_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/transport"
)

// acme is a client of one's own, with an option of its own.
type acme struct{ tenant string }

func withTenant(s string) transport.Option {
	return transport.Own("acme", "WithTenant", func(a *acme) error {
		if s == "" {
			return errors.New("empty tenant")
		}
		a.tenant = s
		return nil
	})
}

// TestNewConfigRefusesAsClientsDo: a client of one's own built with NewConfig refuses what
// hitl.NewClient refuses, with the same error (the client's name aside); its own options
// are refused by the module's clients, and theirs by it, as one module client refuses
// another's.
func TestNewConfigRefusesAsClientsDo(t *testing.T) {
	for _, o := range []transport.Option{
		transport.WithHTTPClient(nil), transport.WithLogger(nil), transport.WithAuthorization(nil),
		transport.WithMaxBody(0), transport.WithMaxPollsInFlight(0), transport.WithPollInterval(time.Millisecond),
		transport.WithRequestTimeout(-1),
	} {
		_, mine := transport.NewConfig("acme", &acme{}, o)
		_, theirs := hitl.NewClient(o)
		if mine == nil || theirs == nil || !errors.Is(mine, transport.ErrInvalidOption) ||
			theirs.Error() != strings.Replace(mine.Error(), "acme:", "hitl:", 1) {
			t.Errorf("NewConfig: %v; hitl.NewClient: %v; want the same refusal", mine, theirs)
		}
	}
	if _, err := transport.NewConfig("acme", &acme{}, hitl.WithStrict()); !errors.Is(err, transport.ErrInvalidOption) ||
		err.Error() != "acme: NewClient: hitl.WithStrict: configures hitl clients only: invalid option" {
		t.Errorf("acme given a hitl option: %v", err)
	}
	a := &acme{}
	if _, err := transport.NewConfig("acme", a, withTenant("t-1"), nil); err != nil || a.tenant != "t-1" {
		t.Errorf("own option: %v, tenant %q", err, a.tenant)
	}
	if _, err := transport.NewConfig("acme", a, withTenant("")); !errors.Is(err, transport.ErrInvalidOption) ||
		err.Error() != "acme: NewClient: acme.WithTenant: empty tenant: invalid option" {
		t.Errorf("own option, bad value: %v", err)
	}
	if _, err := hitl.NewClient(withTenant("t-1")); !errors.Is(err, transport.ErrInvalidOption) ||
		err.Error() != "hitl: NewClient: acme.WithTenant: configures acme clients only: invalid option" {
		t.Errorf("hitl given an acme option: %v", err)
	}
}

// TestConfigDefaults: without options a Config has the defaults every client has; each
// option sets what it names.
func TestConfigDefaults(t *testing.T) {
	c, err := transport.NewConfig("acme", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP == nil || c.Service == nil || c.Logger == nil || c.Credential != nil || c.MaxBody != 1<<20 ||
		c.Polls == nil || c.AllowPrivateAddresses || c.PollInterval != 0 || c.RequestTimeout != 0 {
		t.Errorf("defaults: %+v", c)
	}
	hc := &http.Client{}
	c, err = transport.NewConfig("acme", nil, transport.WithHTTPClient(hc), transport.WithMaxBody(10),
		transport.WithPollInterval(time.Minute), transport.WithRequestTimeout(time.Second), transport.WithAllowPrivateAddresses())
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP == hc || c.MaxBody != 10 || c.PollInterval != time.Minute || c.RequestTimeout != time.Second || !c.AllowPrivateAddresses {
		t.Errorf("options: %+v", c)
	}
	d, err := transport.NewConfig("other", nil, c.Share())
	if err != nil || d.Service != c.Service || d.Polls != c.Polls || d.PollInterval != 0 {
		t.Errorf("shared: %+v, %v", d, err)
	}
}

// TestConfigAuthorizeOnlyItsOrigin: the credential goes to the origin given, and to no other
// host, scheme or port.
func TestConfigAuthorizeOnlyItsOrigin(t *testing.T) {
	c, err := transport.NewConfig("acme", nil, transport.WithAuthorization(transport.StaticToken("sk-1")))
	if err != nil {
		t.Fatal(err)
	}
	auth := c.Authorize("https://svc.example/approvals")
	for url, want := range map[string]string{
		"https://svc.example/approvals/1":     "Bearer sk-1",
		"https://SVC.example:443/x":           "Bearer sk-1",
		"https://evil.example/approvals/1":    "",
		"http://svc.example/approvals/1":      "",
		"https://svc.example:8443/approvals/": "",
	} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
		if err := auth(t.Context(), req); err != nil || req.Header.Get("Authorization") != want {
			t.Errorf("%s: Authorization %q, %v; want %q", url, req.Header.Get("Authorization"), err, want)
		}
	}
}

// TestAddressRules: a Wait without a Client, or with a Config's Service, refuses a URL the
// address rules forbid before anything is sent, and the wait ends at once with
// ErrRefusedAddress; WithAllowPrivateAddresses admits plain http on 127.0.0.1. CheckURL says
// the same before a wait begins.
func TestAddressRules(t *testing.T) {
	def, _ := transport.NewConfig("acme", nil)
	private, _ := transport.NewConfig("acme", nil, transport.WithAllowPrivateAddresses())
	decode := func([]byte) (int, bool, error) { return 1, true, nil }
	for _, u := range []string{"http://127.0.0.1:1/s", "https://10.0.0.1/s", "https://localhost/s", "https://2130706433/s", "http://svc.example/s"} {
		for name, hc := range map[string]*http.Client{"no client": nil, "Service": def.Service} {
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			_, err := (&transport.Wait[int]{URL: u, Client: hc, Decode: decode}).Run(ctx)
			cancel()
			if !errors.Is(err, transport.ErrRefusedAddress) {
				t.Errorf("%s, %s: %v; want ErrRefusedAddress", u, name, err)
			}
		}
		if err := def.CheckURL(u); !errors.Is(err, transport.ErrRefusedAddress) {
			t.Errorf("CheckURL(%s) = %v", u, err)
		}
	}
	if err := private.CheckURL("http://127.0.0.1:8080/s"); err != nil {
		t.Errorf("CheckURL with private addresses allowed: %v", err)
	}
	if err := def.CheckURL("/relative"); !errors.Is(err, transport.ErrRefusedAddress) {
		t.Errorf("CheckURL(relative) = %v", err)
	}
}

// TestTemporaryDecode: a Decode error marked Temporary — a body cut short — makes the wait
// back off and poll again, where an unmarked one ends it.
func TestTemporaryDecode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var polls int
		svc := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			polls++
			if polls == 1 {
				_, _ = io.WriteString(w, `{"state":`) // cut short
				return
			}
			_, _ = io.WriteString(w, `{"state":"done"}`)
		})
		hc := &http.Client{Transport: &memhttp.Transport{Handler: svc}}
		decode := func(body []byte) (string, bool, error) {
			if !strings.HasSuffix(string(body), "}") {
				return "", false, transport.Temporary(errors.New("unexpected end of JSON input"))
			}
			return "done", true, nil
		}
		got, err := (&transport.Wait[string]{URL: "https://svc.example/s", Client: hc, Decode: decode}).Run(t.Context())
		if err != nil || got != "done" || polls != 2 {
			t.Errorf("Run = %q, %v after %d polls; want done after 2", got, err, polls)
		}
		if transport.Temporary(nil) != nil {
			t.Error("Temporary(nil) is not nil")
		}
	})
}
