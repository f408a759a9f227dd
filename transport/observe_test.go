package transport_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/transport"
	"github.com/hitlkit/hitlkit/transport/transporttest"
)

// A client of one's own observes its waits as the module's clients do: listed while they
// run, one audit record per Result, none for an error, and a forwarded question marked.
func TestObserveOutsideProtocol(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var decided atomic.Bool
		fake := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			if decided.Load() {
				_, _ = w.Write([]byte(`{"state":"denied","reason":"too risky"}`))
				return
			}
			_, _ = w.Write([]byte(`{"state":"pending"}`))
		})
		var records []transport.Record
		cfg, err := transport.NewConfig("acme", nil,
			transport.WithHTTPClient(&http.Client{Transport: &transporttest.Transport{Handler: fake}}),
			transport.WithAudit(func(_ context.Context, r transport.Record) { records = append(records, r) }))
		if err != nil {
			t.Fatal(err)
		}
		w := &transport.Wait[*transport.Result]{URL: "https://acme.example/approvals/a1", Client: cfg.Service, Interval: 10 * time.Second,
			Decode: func(b []byte) (*transport.Result, bool, error) {
				var st struct{ State, Reason string }
				if err := json.Unmarshal(b, &st); err != nil {
					return nil, false, err
				}
				if st.State == "pending" {
					return nil, false, nil
				}
				return &transport.Result{Status: transport.StatusCompleted, CaseID: "a1", Decision: transport.DecisionReject,
					Action: "deny", Reason: st.Reason}, true, nil
			}}
		q := transport.Question{Protocol: "acme", Kind: "acme/approval", ID: "a1", Prompt: "Refund order 42?", Arguments: []byte(`{"order":42}`)}
		var during []transport.Pending
		time.AfterFunc(25*time.Second, func() { during = cfg.Pending(); decided.Store(true) })
		res, err := cfg.Observe(t.Context(), q, func(ctx context.Context) (*transport.Result, error) {
			transport.Forwarded(ctx, nil) // the question went to the human
			return w.Run(ctx)
		})
		if err != nil || res.Decision != transport.DecisionReject {
			t.Fatalf("Observe = %+v, %v", res, err)
		}
		if len(during) != 1 || during[0].ID != "a1" || during[0].Prompt != q.Prompt || !during[0].Forwarded || !during[0].Waiting {
			t.Errorf("Pending during the wait = %+v", during)
		}
		if p := cfg.Pending(); len(p) != 0 {
			t.Errorf("Pending after = %+v", p)
		}
		if len(records) != 1 {
			t.Fatalf("%d records, want 1", len(records))
		}
		r := records[0]
		if r.Protocol != "acme" || r.ID != "a1" || r.Decision != transport.DecisionReject || r.LearnedBy != "poll" || !r.Confirmed ||
			len(r.PromptSHA256) != 64 || len(r.ArgumentsSHA256) != 64 || r.DecidedAt.Sub(r.AskedAt) != 30*time.Second {
			t.Errorf("record %+v", r)
		}
		if b, _ := json.Marshal(r); strings.Contains(string(b), "Refund") || strings.Contains(string(b), "order") {
			t.Errorf("the record holds the prompt or the arguments: %s", b)
		}

		// A wait that ends in an error makes no record and leaves the list.
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		decided.Store(false)
		if _, err := cfg.Observe(ctx, q, func(ctx context.Context) (*transport.Result, error) { return w.Run(ctx) }); err == nil {
			t.Fatal("a wait past its deadline returned no error")
		}
		if len(records) != 1 || len(cfg.Pending()) != 0 {
			t.Errorf("after an error: %d records, pending %+v", len(records), cfg.Pending())
		}
	})
}

// AuditLog writes one JSON line per record and passes a write error on.
func TestAuditLog(t *testing.T) {
	var b strings.Builder
	hook := transport.AuditLog(&b, func(err error) { t.Error(err) })
	hook(context.Background(), transport.Record{Protocol: "hitl", ID: "c1", Status: transport.StatusExpired, DefaultApplied: true, DefaultAction: "approve"})
	hook(context.Background(), transport.Record{Protocol: "a2a", ID: "t1", Status: transport.StatusCompleted})
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"default_applied":true`) || !strings.Contains(lines[1], `"id":"t1"`) {
		t.Errorf("AuditLog wrote %q", b.String())
	}
	var failed error
	transport.AuditLog(failingWriter{}, func(err error) { failed = err })(context.Background(), transport.Record{})
	if failed == nil {
		t.Error("a failing writer's error was not passed on")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errTimeout }
