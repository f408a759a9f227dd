package acme_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/examples/acme"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
	"github.com/hitlkit/hitlkit/transport/transporttest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var secret = []byte("acme-webhook-secret")

// setup builds the fake service and an acme client on it, in memory, with the webhook.
func setup(t *testing.T, opts ...transport.Option) (*fake, *acme.Client) {
	t.Helper()
	hooks, err := acme.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	svc := newFake(secret, hooks)
	hc := &http.Client{Transport: &transporttest.Transport{Handler: svc}}
	c, err := acme.NewClient("https://acme.example", append([]transport.Option{transport.WithHTTPClient(hc),
		transport.WithAuthorization(transport.StaticToken("sk-acme")), acme.WithWebhook(hooks)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return svc, c
}

// TestDecidedAndWoken: the human decides ten minutes in; the service asked for five
// minutes between polls, but its webhook wakes the wait, which confirms with a poll at once:
// the Result comes at ten minutes, after three polls, with the service's credential on every
// request.
func TestDecidedAndWoken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		svc, c := setup(t)
		it, err := c.Request(t.Context(), "Deploy v42?", "https://agent.example/hooks/acme")
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		human := time.AfterFunc(10*time.Minute, func() { svc.decide(it.ID(), "approved", "ana", "") }) // in virtual time
		defer human.Stop()
		r, err := c.Wait(t.Context(), it)
		if err != nil || !r.Approved() || r.RespondedBy.Name != "ana" || r.CaseID != it.ID() {
			t.Fatalf("Wait = %v, %v", r, err)
		}
		if took := time.Since(start); took != 10*time.Minute || svc.pollCount() != 3 {
			t.Errorf("decided after %v and %d polls; want 10m0s and 3 (at 1 min, 6 min, and on the webhook)", took, svc.pollCount())
		}
		for i, a := range svc.authorizations() {
			if a != "Bearer sk-acme" {
				t.Errorf("request %d carried %q", i, a)
			}
		}
	})
}

// TestDeniedReason: a person's no is completed with DecisionReject and its reason in Reason,
// as every protocol of the module reports it; a body cut short is polled again.
func TestDeniedReason(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		svc, c := setup(t)
		it, err := c.Request(t.Context(), "Deploy v42?", "")
		if err != nil {
			t.Fatal(err)
		}
		svc.decide(it.ID(), "denied", "ana", "not on a Friday")
		svc.cutNext = 1
		r, err := c.Wait(t.Context(), it)
		if err != nil || r.Approved() || r.Status != transport.StatusCompleted || r.Decision != transport.DecisionReject ||
			r.Reason != "not on a Friday" || r.Action != "denied" || svc.pollCount() != 2 {
			t.Errorf("Wait = %+v, %v after %d polls", r, err, svc.pollCount())
		}
	})
}

// TestObserved: a wait is observed as the module's clients observe theirs: one audit Record,
// of protocol acme, for its Result, to the hook WithAudit gave.
func TestObserved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var records []transport.Record
		svc, c := setup(t, transport.WithAudit(func(_ context.Context, r transport.Record) { records = append(records, r) }))
		it, err := c.Request(t.Context(), "Deploy v42?", "")
		if err != nil {
			t.Fatal(err)
		}
		svc.decide(it.ID(), "denied", "ana", "not on a Friday")
		if _, err := c.Wait(t.Context(), it); err != nil {
			t.Fatal(err)
		}
		if len(records) != 1 || records[0].Protocol != "acme" || records[0].Kind != string(acme.Kind) || records[0].ID != it.ID() ||
			records[0].Status != transport.StatusCompleted || records[0].Decision != transport.DecisionReject {
			t.Errorf("audit records %+v; want one acme rejection of %s", records, it.ID())
		}
	})
}

// TestStoredAndResumed: a process asks, keeps the approval in a Store and stops before the
// human decides; a new process — a new acme client, a new hitl client on the same Store —
// resumes it through the kind's Waiter, handles the decision once, and the Store is empty.
func TestStoredAndResumed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &hitl.MemoryStore{}
		svc, first := setup(t)
		h1, err := hitl.NewClient(hitl.WithStore(store), hitl.WithKindWaiter(acme.Kind, first))
		if err != nil {
			t.Fatal(err)
		}
		it, err := first.Request(t.Context(), "Deploy v42?", "https://agent.example/hooks/acme")
		if err != nil {
			t.Fatal(err)
		}
		it.Labels = map[string]string{"session": "s-7"}
		ctx, stop := context.WithTimeout(t.Context(), 3*time.Minute) // the process stops
		if _, err := h1.Wait(ctx, it, nil); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("first process: %v", err)
		}
		stop()

		// The restart: a new client on the same service, whose webhook the service calls.
		hooks, _ := acme.NewWebhook(secret)
		svc.hook = hooks
		second, err := acme.NewClient("https://acme.example", transport.WithHTTPClient(&http.Client{Transport: &transporttest.Transport{Handler: svc}}),
			transport.WithAuthorization(transport.StaticToken("sk-acme")), acme.WithWebhook(hooks))
		if err != nil {
			t.Fatal(err)
		}
		h2, err := hitl.NewClient(hitl.WithStore(store), hitl.WithKindWaiter(acme.Kind, second))
		if err != nil {
			t.Fatal(err)
		}
		human := time.AfterFunc(time.Hour, func() { svc.decide(it.ID(), "denied", "ana", "not on a Friday") })
		defer human.Stop()
		handled := 0
		err = h2.Resume(t.Context(), func(_ context.Context, got *hitl.Interrupt, r *transport.Result) error {
			handled++
			if got.ID() != it.ID() || got.Labels["session"] != "s-7" || r.Decision != transport.DecisionReject || r.Reason != "not on a Friday" {
				t.Errorf("resumed %v with %+v", got, r)
			}
			return nil
		}, nil)
		if open, _ := store.List(t.Context()); err != nil || handled != 1 || len(open) != 0 {
			t.Errorf("Resume = %v, handled %d, %d left in the store", err, handled, len(open))
		}
	})
}

// TestAddressRules: the client keeps the address rules of every hitlkit client: a base URL
// at a private address is refused, and so is a poll URL the service hands back that points
// into the agent's network — before anything is sent there — unless private addresses are
// allowed.
func TestAddressRules(t *testing.T) {
	for _, base := range []string{"http://acme.example", "https://10.0.0.7", "https://localhost:8443"} {
		if _, err := acme.NewClient(base); !errors.Is(err, transport.ErrRefusedAddress) {
			t.Errorf("NewClient(%s) = %v; want ErrRefusedAddress", base, err)
		}
	}
	synctest.Test(t, func(t *testing.T) {
		svc, c := setup(t)
		svc.pollURL = func(id string) string { return "https://169.254.169.254/latest/meta-data/" + id }
		if _, err := c.Request(t.Context(), "Deploy v42?", ""); !errors.Is(err, transport.ErrRefusedAddress) {
			t.Errorf("a poll URL at the metadata address: %v; want ErrRefusedAddress", err)
		}
	})
}

// TestOptions: the client refuses what every hitlkit client refuses, with the same errors,
// and another client's option as they do.
func TestOptions(t *testing.T) {
	for _, tc := range []struct {
		o    transport.Option
		want string
	}{
		{transport.WithMaxBody(0), "acme: NewClient: transport.WithMaxBody: size must be positive: invalid option"},
		{hitl.WithStrict(), "acme: NewClient: hitl.WithStrict: configures hitl clients only: invalid option"},
		{acme.WithWebhook(nil), "acme: NewClient: acme.WithWebhook: nil webhook: invalid option"},
	} {
		if _, err := acme.NewClient("https://acme.example", tc.o); !errors.Is(err, transport.ErrInvalidOption) || err.Error() != tc.want {
			t.Errorf("NewClient = %v; want %s", err, tc.want)
		}
	}
	if _, err := hitl.NewClient(acme.WithWebhook(nil)); err == nil || !strings.Contains(err.Error(), "configures acme clients only") {
		t.Errorf("hitl.NewClient given an acme option: %v", err)
	}
}
