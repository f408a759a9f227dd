package hitlslack_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlslack"
	"github.com/hitlkit/hitlkit/hitl/hitlslack/hitlslacktest"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
)

// TestSignaturesRefused: a forged, tampered, unsigned, stale (either way) or replayed
// request is answered 401 and acts on nothing: no Slack call, no submission.
func TestSignaturesRefused(t *testing.T) {
	ctx := t.Context()
	svc := hitltest.NewServer(t)
	fake := hitlslacktest.NewServer(t)
	api := fake.API()
	a := newAgent(t, api, svc, &hitl.MemoryStore{}, "billing")
	done := a.call(ctx, svc, "approval", `{"prompt":"Deploy?","inline":true}`)
	posted := await(t, fake, "chat.postMessage", 1)[0]
	approve, _ := posted.Button("Approve")
	click := hitlslacktest.ClickBody("U0REVIEWER", posted.Channel, posted.TS, approve)
	now := time.Now()

	tampered := hitlslacktest.Sign(click, secret, now)
	tampered.Body = io.NopCloser(strings.NewReader(strings.Replace(string(click), "U0REVIEWER", "U0MALLORY0", 1)))
	unsigned := hitlslacktest.Sign(click, secret, now)
	unsigned.Header.Del("X-Slack-Signature")
	badScheme := hitlslacktest.Sign(click, secret, now)
	badScheme.Header.Set("X-Slack-Signature", strings.Replace(badScheme.Header.Get("X-Slack-Signature"), "v0=", "v1=", 1))
	for name, req := range map[string]*http.Request{
		"forged":          hitlslacktest.Sign(click, "not-the-secret", now),
		"tampered":        tampered,
		"unsigned":        unsigned,
		"another scheme":  badScheme,
		"stale":           hitlslacktest.Sign(click, secret, now.Add(-6*time.Minute)),
		"from the future": hitlslacktest.Sign(click, secret, now.Add(6*time.Minute)),
	} {
		if code := deliver(t, a.handler, req); code != http.StatusUnauthorized {
			t.Errorf("%s: answered %d, want 401", name, code)
		}
	}
	// Just inside the window: accepted, once.
	replayed := hitlslacktest.Sign(click, secret, now.Add(-4*time.Minute))
	again := replayed.Clone(ctx)
	again.Body = io.NopCloser(strings.NewReader(string(click)))
	if code := deliver(t, a.handler, replayed); code != http.StatusOK {
		t.Fatalf("a request 4 minutes old answered %d, want 200", code)
	}
	if code := deliver(t, a.handler, again); code != http.StatusUnauthorized {
		t.Errorf("replayed: answered %d, want 401", code)
	}
	// The same signature spelled in upper-case hex is the same signature, replayed.
	upper := replayed.Clone(ctx)
	upper.Body = io.NopCloser(strings.NewReader(string(click)))
	upper.Header.Set("X-Slack-Signature", "v0="+strings.ToUpper(strings.TrimPrefix(replayed.Header.Get("X-Slack-Signature"), "v0=")))
	if code := deliver(t, a.handler, upper); code != http.StatusUnauthorized {
		t.Errorf("replayed in upper-case hex: answered %d, want 401", code)
	}
	d := wait(t, done)
	if d.r.Action != "approve" {
		t.Fatalf("Result = %v", d.r)
	}
	await(t, fake, "chat.update", 1) // the submission answered
	if n := submissions(svc); n != 1 {
		t.Errorf("%d submissions, want 1 (the signed click only)", n)
	}
	if n := len(of(fake, "chat.postEphemeral")); n != 0 {
		t.Errorf("%d ephemeral messages: a refused request acted", n)
	}
}

// TestHandlerRefusesMethodsAndSize: only POST, and a body over the bound is refused unread.
func TestHandlerRefusesMethodsAndSize(t *testing.T) {
	api := hitlslacktest.NewServer(t).API()
	bot, err := hitlslack.New(api, secret, hitlslack.WithMaxBody(1024))
	if err != nil {
		t.Fatal(err)
	}
	defer bot.Close()
	h := bot.Handler(nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	if w.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET answered %d, want 405", w.Code)
	}
	big := []byte("payload=" + strings.Repeat("x", 4096))
	if code := deliver(t, h, hitlslacktest.Sign(big, secret, time.Now())); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a 4 KiB body over a 1 KiB bound answered %d, want 413", code)
	}
}
