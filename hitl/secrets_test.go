package hitl_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/transport"
)

const agentSecret = "sk-agent-7f3a9c1e"

// TestNoSecretInLogsOrErrors runs waits over every transport, with faults, at debug level,
// and checks that no review token, agent credential or callback secret appears in any log
// record or error string.
func TestNoSecretInLogsOrErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs bytes.Buffer
		logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		cb, err := hitl.NewCallbacks([]byte(hitltest.DefaultCallbackSecret), &hitl.CallbacksOptions{Logger: logger})
		if err != nil {
			t.Fatal(err)
		}
		s := hitltest.NewMemoryServer(t, hitltest.WithRetryAfter(5*time.Second), hitltest.WithCallbackHandler(cb))
		c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()), transport.WithLogger(logger), hitl.WithCallbacks(cb),
			transport.WithAuthorization(func(context.Context) (string, error) { return "Bearer " + agentSecret, nil }))

		var (
			errs   []string
			tokens []string
		)
		run := func(typ string, script func(id string)) {
			it := open(t, s, c, typ, &hitl.CallOptions{CallbackURL: agentCallbackURL})
			u, _ := url.Parse(it.ReviewURL())
			tokens = append(tokens, u.Query().Get("token"))
			errs = append(errs, it.String(), it.Case.String())
			script(it.ID())
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			_, err := c.Wait(ctx, it, nil)
			if err != nil {
				errs = append(errs, err.Error())
			}
		}
		run("approval", func(id string) {
			s.FailNext(id, hitltest.Fault503, 2)
			s.FailStream(id, hitltest.StreamDropMidEvent, 1)
			after(t, 10*time.Second, func() error { return s.Respond(id, "approve", nil, nil) })
		})
		run("input", func(id string) {
			s.FailCallback(id, hitltest.CallbackForged, 1)
			after(t, 10*time.Second, func() error { return s.Respond(id, "submit", map[string]any{"salary_expectation": 91000}, nil) })
		})
		run("confirmation", func(id string) { s.FailNext(id, hitltest.FaultUnauthorized, 1) })
		run("escalation", func(id string) {
			s.FailStream(id, hitltest.StreamUnauthorized, 1)
			s.FailNext(id, hitltest.FaultTruncated, 1)
			after(t, 10*time.Second, func() error { return s.Cancel(id, "withdrawn") })
		})
		run("selection", func(id string) { s.FailNext(id, hitltest.FaultNotFound, 1) })

		if logs.Len() == 0 || len(errs) < 7 {
			t.Fatalf("nothing to check: %d bytes of logs, %d error strings", logs.Len(), len(errs))
		}
		haystack := logs.String() + "\n" + strings.Join(errs, "\n")
		for _, want := range []string{`"msg":"poll"`, `"msg":"notification refused: bad or missing signature"`, "401 Unauthorized", "404 Not Found", "?[redacted]"} {
			if !strings.Contains(haystack, want) {
				t.Errorf("the run did not exercise %q", want)
			}
		}
		secrets := append([]string{agentSecret, hitltest.DefaultCallbackSecret}, tokens...)
		for _, secret := range secrets {
			if secret == "" || strings.Contains(haystack, secret) {
				t.Errorf("secret %q found in logs or errors", secret)
			}
		}
	})
}

// TestStreamCredentialsStayOnOrigin: the agent's credential goes with polls and the event stream
// on the origin of the call that produced the case, and never to an events_url elsewhere.
func TestStreamCredentialsStayOnOrigin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var (
			mu   sync.Mutex
			auth = map[string]string{}
			n    int
		)
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			auth[r.Host+r.URL.Path] = r.Header.Get("Authorization")
			n++
			first := n == 1
			mu.Unlock()
			if strings.HasSuffix(r.URL.Path, "/events") {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, "id: 1\nevent: review.completed\ndata: {\"case_id\":\"c1\"}\n\n")
				return
			}
			w.Header().Set("Retry-After", "30")
			if first {
				_, _ = io.WriteString(w, `{"status":"pending","case_id":"c1"}`)
				return
			}
			_, _ = io.WriteString(w, `{"status":"completed","case_id":"c1","result":{"action":"approve"}}`)
		})
		c := newClient(t, &memhttp.Transport{Handler: h},
			transport.WithAuthorization(func(context.Context) (string, error) { return "Bearer " + agentSecret, nil }))
		it := interrupt("c1", time.Hour)
		it.Case.EventsURL = "https://elsewhere.example/reviews/c1/events"
		if _, err := c.Wait(t.Context(), it, nil); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if auth["svc.example/reviews/c1/status"] != "Bearer "+agentSecret {
			t.Errorf("poll on the call's origin without the credential: %q", auth["svc.example/reviews/c1/status"])
		}
		if got, ok := auth["elsewhere.example/reviews/c1/events"]; !ok || got != "" {
			t.Errorf("events on another origin: requested %v, Authorization %q", ok, got)
		}
	})
}
