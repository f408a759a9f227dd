package clientcfg_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/hi"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/transport"
)

// client is one client of the module: how it is made, and one request it sends to target.
type client struct {
	name string
	make func(opts ...transport.Option) error
	send func(ctx context.Context, target string, opts ...transport.Option) error
}

var clients = []client{
	{"hitl",
		func(opts ...transport.Option) error { _, err := hitl.NewClient(opts...); return err },
		func(ctx context.Context, target string, opts ...transport.Option) error {
			c, err := hitl.NewClient(opts...)
			if err != nil {
				return err
			}
			it := &hitl.Interrupt{Kind: hitl.KindHITL, Case: &hitl.Case{CaseID: "case-1", PollURL: target + "/cases/case-1",
				ReviewURL: "https://review.example/r", Type: hitl.TypeApproval, ExpiresAt: time.Now().Add(time.Hour)}}
			_, err = c.Wait(ctx, it, nil)
			return err
		}},
	{"hitl (A2A task)",
		func(opts ...transport.Option) error { _, err := hitl.NewClient(opts...); return err },
		func(ctx context.Context, target string, opts ...transport.Option) error {
			c, err := hitl.NewClient(opts...)
			if err != nil {
				return err
			}
			it := &hitl.Interrupt{Kind: hitl.KindA2ARelay, Task: &a2a.Pause{Class: a2a.ClassRelay,
				Endpoint: a2a.Endpoint{URL: target + "/rpc", Binding: a2a.JSONRPC10}, TaskID: "task-1"}}
			_, err = c.Wait(ctx, it, nil)
			return err
		}},
	{"a2a",
		func(opts ...transport.Option) error { _, err := a2a.NewClient(opts...); return err },
		func(ctx context.Context, target string, opts ...transport.Option) error {
			c, err := a2a.NewClient(opts...)
			if err != nil {
				return err
			}
			_, err = c.GetTask(ctx, a2a.Endpoint{URL: target + "/rpc", Binding: a2a.JSONRPC10}, "task-1")
			return err
		}},
	{"hxp",
		func(opts ...transport.Option) error {
			_, err := hxp.NewClient("https://hxp.example", opts...)
			return err
		},
		func(ctx context.Context, target string, opts ...transport.Option) error {
			c, err := hxp.NewClient(target, opts...)
			if err != nil {
				return err
			}
			_, err = c.List(ctx, nil)
			return err
		}},
	{"hi",
		func(opts ...transport.Option) error {
			_, err := hi.NewClient("https://hi.example", opts...)
			return err
		},
		func(ctx context.Context, target string, opts ...transport.Option) error {
			c, err := hi.NewClient(target, opts...)
			if err != nil {
				return err
			}
			_, err = c.Get(ctx, "interaction-1")
			return err
		}},
}

// The two rules a refusal names.
const (
	insecure = "must use https|plain http to localhost or 127.0.0.1 needs transport.WithAllowPrivateAddresses() (anywhere else, https)"
	private  = "points at a private address; allowed only with transport.WithAllowPrivateAddresses()"
)

// refusedAs reports whether err is the address rules' refusal naming rule: an error matching
// transport.ErrRefusedAddress whose text (for a HITL case, the hitl object's field error)
// names it.
func refusedAs(err error, rule string) bool {
	if !errors.Is(err, transport.ErrRefusedAddress) {
		return false
	}
	var inv *hitl.InvalidError
	if errors.As(err, &inv) && len(inv.Problems) == 1 && inv.Problems[0].Field == "poll_url" {
		return slices.Contains(strings.Split(rule, "|"), inv.Problems[0].Problem)
	}
	for _, p := range strings.Split(rule, "|") {
		if strings.Contains(err.Error(), p) {
			return true
		}
	}
	return false
}

// TestAddressRules: every client keeps the same address and scheme rules. Plain http to a
// host other than localhost or 127.0.0.1 is refused with or without WithAllowPrivateAddresses;
// a loopback http server is refused unless WithAllowPrivateAddresses, then reached; an https
// URL on a private address is refused unless WithAllowPrivateAddresses. Refusals reach no
// server.
func TestAddressRules(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		http.Error(w, "no such thing", http.StatusNotFound)
	}))
	defer srv.Close()
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			allow := transport.WithAllowPrivateAddresses()
			for _, tc := range []struct {
				target string
				opts   []transport.Option
				rule   string
			}{
				{"http://agent.example", nil, insecure},
				{"http://agent.example", []transport.Option{allow}, insecure},
				{"http://10.0.0.1", []transport.Option{allow}, insecure},
				{"ftp://agent.example", []transport.Option{allow}, insecure},
				{srv.URL, nil, insecure},
				{"https://10.0.0.1", nil, private},
				{"https://127.0.0.1", nil, private},
			} {
				err := c.send(ctx, tc.target, tc.opts...)
				if !refusedAs(err, tc.rule) {
					t.Errorf("%s with %d options: %v; want a refusal: %s", tc.target, len(tc.opts), err, tc.rule)
				}
			}
			if n := hits.Load(); n != 0 {
				t.Fatalf("refused requests reached the server %d times", n)
			}
			err := c.send(ctx, srv.URL, allow)
			if errors.Is(err, transport.ErrRefusedAddress) || hits.Swap(0) == 0 {
				t.Errorf("loopback with WithAllowPrivateAddresses: %v, and the server was not reached", err)
			}
		})
	}
}

// TestOptionRules: every client treats options alike. A nil option is skipped; a nil or bad
// value is an ErrInvalidOption naming the client and the option; an option of another client
// is one naming the client it configures, never ignored.
func TestOptionRules(t *testing.T) {
	own := map[string]transport.Option{
		"hitl": hitl.WithStrict(),
		"a2a":  a2a.WithMessageIDs(func() string { return "id" }),
		"hxp":  hxp.WithAPIPrefix("/v1"),
	}
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			if err := c.make(nil, transport.WithMaxBody(1<<10), nil); err != nil {
				t.Errorf("nil options: %v", err)
			}
			pkg := c.name[:len(c.name)-len(trimPkg(c.name))]
			for _, bad := range []struct {
				opt  transport.Option
				name string
			}{
				{transport.WithHTTPClient(nil), "transport.WithHTTPClient"},
				{transport.WithLogger(nil), "transport.WithLogger"},
				{transport.WithAuthorization(nil), "transport.WithAuthorization"},
				{transport.WithMaxBody(0), "transport.WithMaxBody"},
				{transport.WithMaxPollsInFlight(0), "transport.WithMaxPollsInFlight"},
				{transport.WithPollInterval(10 * time.Millisecond), "transport.WithPollInterval"},
				{transport.WithRequestTimeout(-time.Second), "transport.WithRequestTimeout"},
			} {
				err := c.make(bad.opt)
				if !refusedOption(err, pkg, bad.name, "") {
					t.Errorf("%s with a bad value: %v", bad.name, err)
				}
			}
			for of, opt := range own {
				err := c.make(opt)
				switch {
				case of == pkg && err != nil:
					t.Errorf("its own option of %s: %v", of, err)
				case of != pkg && !refusedOption(err, pkg, of+".", "configures "+of+" clients only"):
					t.Errorf("an option of %s: %v; want a refusal naming %s", of, err, of)
				}
			}
		})
	}
}

// refusedOption reports whether err is client's refusal of the option named option (or
// starting with it, when it ends in "."), for problem, or any problem when problem is "".
func refusedOption(err error, client, option, problem string) bool {
	if !errors.Is(err, transport.ErrInvalidOption) {
		return false
	}
	var named, why string
	rest, ok := strings.CutPrefix(err.Error(), client+": NewClient: ")
	if ok {
		named, why, ok = strings.Cut(rest, ": ")
	}
	why = strings.TrimSuffix(why, ": "+transport.ErrInvalidOption.Error())
	return ok && (named == option || strings.HasSuffix(option, ".") && strings.HasPrefix(named, option)) &&
		why != "" && (problem == "" || why == problem)
}

// trimPkg returns what follows the package name in a client's name ("hitl (A2A task)").
func trimPkg(name string) string {
	for i, r := range name {
		if r == ' ' {
			return name[i:]
		}
	}
	return ""
}

// TestOwnOptionBadValue: a protocol's own option given a bad value is an ErrInvalidOption
// with the problem, named by its package.
func TestOwnOptionBadValue(t *testing.T) {
	_, err := hitl.NewClient(hitl.WithForwarder(nil))
	if !refusedOption(err, "hitl", "hitl.WithForwarder", "") || strings.Contains(err.Error(), "clients only") {
		t.Errorf("hitl.WithForwarder(nil): %v", err)
	}
	// The value is never in the error: an origin mistyped around a secret stays secret.
	_, err = hitl.NewClient(hitl.WithTrustedOrigins("svc:sk-live-secret@"))
	if !refusedOption(err, "hitl", "hitl.WithTrustedOrigins", "") || strings.Contains(err.Error(), "sk-live") {
		t.Errorf("hitl.WithTrustedOrigins with a bad origin: %v", err)
	}
	_, err = hxp.NewClient("https://hxp.example", hxp.WithAPIPrefix("v1"))
	if !refusedOption(err, "hxp", "hxp.WithAPIPrefix", "") {
		t.Errorf("hxp.WithAPIPrefix(\"v1\"): %v", err)
	}
}

// TestNoRedirectFollowed: no client follows a redirect its service answers, so the agent's
// credential never reaches the origin the redirect names.
func TestNoRedirectFollowed(t *testing.T) {
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	cred := transport.WithAuthorization(transport.StaticToken("sk-agent"))
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			if err := c.send(ctx, srv.URL, transport.WithAllowPrivateAddresses(), cred); err == nil {
				t.Error("a redirect answered no error")
			}
			if asked.Swap(0) == 0 || elsewhere.Load() != 0 {
				t.Errorf("the service was not asked, or the redirect was followed (%d requests elsewhere)", elsewhere.Load())
			}
		})
	}
}
