package transport_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/transport"
)

var webhookSecret = []byte("whsec-test")

func sign(body []byte, secret []byte) []byte {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return mac.Sum(nil)
}

// acmeParse reads {"id","event","sent_at"}.
func acmeParse(body []byte) (string, string, error) {
	var n struct{ ID, Event string }
	if err := json.Unmarshal(body, &n); err != nil || n.ID == "" || n.Event == "" {
		return "", "", errors.New("not a notification")
	}
	return n.ID, n.Event, nil
}

func newWebhook(t testing.TB, o transport.WebhookOptions) *transport.Webhook {
	t.Helper()
	if o.Secret == nil {
		o.Secret = webhookSecret
	}
	if o.Header == "" && o.Verify == nil {
		o.Header, o.Prefix = "X-Acme-Signature", "sha256="
	}
	if o.Parse == nil {
		o.Parse = acmeParse
	}
	wh, err := transport.NewWebhook(o)
	if err != nil {
		t.Fatal(err)
	}
	return wh
}

func post(wh http.Handler, body []byte, header, value string) int {
	req := httptest.NewRequest(http.MethodPost, "/hooks/acme", bytes.NewReader(body))
	if header != "" {
		req.Header.Set(header, value)
	}
	rec := httptest.NewRecorder()
	wh.ServeHTTP(rec, req)
	return rec.Code
}

// TestWebhookVerifiesAndWakes: a body signed under the secret wakes the waits on its id,
// once per (id, event); one arriving before its wait began wakes it when it begins; a body
// signed otherwise, unsigned, or altered wakes nothing and is answered 401.
func TestWebhookVerifiesAndWakes(t *testing.T) {
	wh := newWebhook(t, transport.WebhookOptions{})
	var woke atomic.Int32
	stop := wh.Watch("ap_1", func() { woke.Add(1) })
	defer stop()
	body := []byte(`{"id":"ap_1","event":"decided"}`)
	good := "sha256=" + hex.EncodeToString(sign(body, webhookSecret))
	for _, tc := range []struct {
		name, header, value string
		body                []byte
		code                int
		woke                int32
	}{
		{"unsigned", "", "", body, 401, 0},
		{"other secret", "X-Acme-Signature", "sha256=" + hex.EncodeToString(sign(body, []byte("other"))), body, 401, 0},
		{"no prefix", "X-Acme-Signature", hex.EncodeToString(sign(body, webhookSecret)), body, 401, 0},
		{"altered body", "X-Acme-Signature", good, []byte(`{"id":"ap_2","event":"decided"}`), 401, 0},
		{"other header", "X-Signature", good, body, 401, 0},
		{"signed", "X-Acme-Signature", good, body, 200, 1},
		{"prefix in another case", "X-Acme-Signature", strings.ToUpper(good[:7]) + strings.ToUpper(good[7:]), body, 401, 1},
		{"duplicate, same", "X-Acme-Signature", good, body, 200, 1},
		{"signed, not a notification", "X-Acme-Signature", "sha256=" + hex.EncodeToString(sign([]byte(`{}`), webhookSecret)), []byte(`{}`), 400, 1},
	} {
		if code := post(wh, tc.body, tc.header, tc.value); code != tc.code || woke.Load() != tc.woke {
			t.Errorf("%s: %d, woke %d; want %d, %d", tc.name, code, woke.Load(), tc.code, tc.woke)
		}
	}
	// Before its wait: kept, and wakes the wait when it begins.
	early := []byte(`{"id":"ap_3","event":"decided"}`)
	if code := post(wh, early, "X-Acme-Signature", "sha256="+hex.EncodeToString(sign(early, webhookSecret))); code != 200 {
		t.Fatalf("early: %d", code)
	}
	var late atomic.Int32
	defer wh.Watch("ap_3", func() { late.Add(1) })()
	if late.Load() != 1 {
		t.Errorf("a notification kept before its wait woke it %d times; want 1", late.Load())
	}
}

// TestWebhookFormats: the header's format is configurable — a base64 HMAC without a
// prefix, a format of one's own through Verify.
func TestWebhookFormats(t *testing.T) {
	body := []byte(`{"id":"ap_1","event":"decided"}`)
	b64 := newWebhook(t, transport.WebhookOptions{Header: "Webhook-Signature", Encoding: base64.StdEncoding})
	if code := post(b64, body, "Webhook-Signature", base64.StdEncoding.EncodeToString(sign(body, webhookSecret))); code != 200 {
		t.Errorf("base64: %d", code)
	}
	if code := post(b64, body, "Webhook-Signature", hex.EncodeToString(sign(body, webhookSecret))); code != 401 {
		t.Errorf("hex to a base64 receiver: %d", code)
	}
	own := newWebhook(t, transport.WebhookOptions{Verify: func(secret []byte, h http.Header, b []byte) bool {
		return hmac.Equal([]byte(h.Get("X-Sig")), []byte("v1,"+base64.RawURLEncoding.EncodeToString(sign(b, secret))))
	}})
	if code := post(own, body, "X-Sig", "v1,"+base64.RawURLEncoding.EncodeToString(sign(body, webhookSecret))); code != 200 {
		t.Errorf("own format: %d", code)
	}
	for _, o := range []transport.WebhookOptions{{Header: "X"}, {Secret: webhookSecret, Parse: acmeParse}, {Secret: webhookSecret, Header: "X"}} {
		if _, err := transport.NewWebhook(o); err == nil {
			t.Errorf("NewWebhook(%+v) accepted", o)
		}
	}
}

// TestWebhookBase64OneSpelling: a base64 HMAC verifies in its canonical spelling only, with
// one optional padding '=': a value whose last character differs in the bits base64 leaves
// unused, or with extra padding, is another string carrying the same bytes to a lenient
// decoder, and is refused, as hitl's callbacks refuse it — one MAC, one spelling.
func TestWebhookBase64OneSpelling(t *testing.T) {
	body := []byte(`{"id":"ap_1","event":"decided"}`)
	mac := sign(body, webhookSecret)
	for name, enc := range map[string]*base64.Encoding{"std": base64.StdEncoding, "url": base64.URLEncoding,
		"raw std": base64.RawStdEncoding, "raw url": base64.RawURLEncoding} {
		wh := newWebhook(t, transport.WebhookOptions{Header: "Webhook-Signature", Prefix: "v1=", Encoding: enc})
		raw := strings.TrimSuffix(enc.EncodeToString(mac), "=")
		restyled := restyle(t, raw)
		for _, tc := range []struct {
			value string
			code  int // a verified duplicate is 200 too; a refused signature is 401 first
		}{
			{raw, 200}, {raw + "=", 200},
			{restyled, 401}, {restyled + "=", 401}, {raw + "==", 401}, {raw + "===", 401},
			{raw[:10] + "\r\r" + raw[10:], 401}, {raw[:10] + "\n" + raw[10:] + "=", 401}, // skipped by encoding/base64
		} {
			if code := post(wh, body, "Webhook-Signature", "v1="+tc.value); code != tc.code {
				t.Errorf("%s: %q: %d; want %d", name, tc.value, code, tc.code)
			}
		}
	}
}

// restyle returns the unpadded base64 value v with its last character's lowest bit — one
// the encoding leaves unused after 32 bytes — flipped: the same bytes to a lenient decoder,
// another string to anyone else. v's last character must be a letter or a digit.
func restyle(tb testing.TB, v string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	last := strings.IndexByte(alphabet, v[len(v)-1])
	if last < 0 {
		tb.Fatalf("last character %q is not a letter or digit", v[len(v)-1])
	}
	return v[:len(v)-1] + string(alphabet[last^1])
}

// TestWebhookReplayWindow: with Time set, a signed notification sent outside the window —
// a recording replayed later, or one from the future — is refused, as is one without a time.
func TestWebhookReplayWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wh := newWebhook(t, transport.WebhookOptions{ReplayWindow: time.Minute, Time: func(_ http.Header, body []byte) (time.Time, bool) {
			var n struct {
				SentAt time.Time `json:"sent_at"`
			}
			return n.SentAt, json.Unmarshal(body, &n) == nil && !n.SentAt.IsZero()
		}})
		now := time.Now()
		for _, tc := range []struct {
			at   time.Time
			code int
		}{{now, 200}, {now.Add(-2 * time.Minute), 401}, {now.Add(2 * time.Minute), 401}, {time.Time{}, 401}} {
			body, _ := json.Marshal(map[string]any{"id": "ap_1", "event": tc.at.String(), "sent_at": tc.at})
			if code := post(wh, body, "X-Acme-Signature", "sha256="+hex.EncodeToString(sign(body, webhookSecret))); code != tc.code {
				t.Errorf("sent at %v (now %v): %d; want %d", tc.at, now, code, tc.code)
			}
		}
	})
}

// slowBody yields one byte a second, forever.
type slowBody struct{}

func (slowBody) Read(p []byte) (int, error) {
	<-time.After(time.Second)
	p[0] = '{'
	return 1, nil
}

// TestWebhookHostile: a body over the bound is 413, a body trickled past the read timeout
// 400 (cut off in time), a method other than POST 405, and bodies past the bound on
// concurrent reads 503 at once, without being read.
func TestWebhookHostile(t *testing.T) {
	wh := newWebhook(t, transport.WebhookOptions{MaxBody: 64, MaxConcurrentReads: 2, ReadTimeout: 5 * time.Second})
	if code := post(wh, bytes.Repeat([]byte("x"), 65), "X-Acme-Signature", "sha256=00"); code != 413 {
		t.Errorf("body over the bound: %d", code)
	}
	rec := httptest.NewRecorder()
	wh.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/hooks/acme", nil))
	if rec.Code != 405 {
		t.Errorf("GET: %d", rec.Code)
	}
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		rec := httptest.NewRecorder()
		wh.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/hooks/acme", io.NopCloser(slowBody{})))
		if rec.Code != 400 || time.Since(start) > 6*time.Second {
			t.Errorf("trickled body: %d after %v; want 400 within the read timeout", rec.Code, time.Since(start))
		}
	})
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var wg sync.WaitGroup
		for range 2 {
			pr, pw := io.Pipe()
			wg.Go(func() {
				rec := httptest.NewRecorder()
				wh.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/hooks/acme", pr))
			})
			wg.Go(func() {
				<-release
				_ = pw.Close()
			})
		}
		synctest.Wait() // both reads in progress
		if code := post(wh, []byte(`{}`), "X-Acme-Signature", "sha256=00"); code != 503 {
			t.Errorf("third concurrent read: %d; want 503", code)
		}
		close(release)
		wg.Wait()
	})
}

// FuzzWebhook: whatever the body and signature, the receivers — hex, and base64 — answer
// without panicking, and wake a wait only for a body signed under the secret, in the one
// spelling of its MAC (hex in either case; base64 canonical, one '=' optional), as an
// oracle independent of the receiver's code says.
func FuzzWebhook(f *testing.F) {
	body := []byte(`{"id":"ap_1","event":"decided"}`)
	mac := sign(body, webhookSecret)
	b64 := base64.StdEncoding.EncodeToString(mac)
	f.Add(body, "sha256="+hex.EncodeToString(mac))
	f.Add(body, "sha256="+strings.ToUpper(hex.EncodeToString(mac)))
	f.Add(body, b64)
	f.Add(body, strings.TrimSuffix(b64, "="))
	f.Add(body, strings.TrimSuffix(b64, "=")+"==")
	f.Add(body, restyle(f, strings.TrimSuffix(b64, "="))+"=")
	f.Add(body, "sha256=")
	f.Add([]byte(`{"id":"ap_1","event":"decided","id":"ap_2"}`), "sha256=zz")
	f.Add([]byte("\xff\xfe"), "")
	f.Fuzz(func(t *testing.T, body []byte, sig string) {
		mac := sign(body, webhookSecret)
		canonical := base64.StdEncoding.EncodeToString(mac)
		for name, r := range map[string]struct {
			o      transport.WebhookOptions
			signed bool
		}{
			"hex": {transport.WebhookOptions{}, strings.HasPrefix(sig, "sha256=") && strings.EqualFold(sig[len("sha256="):], hex.EncodeToString(mac))},
			"base64": {transport.WebhookOptions{Header: "X-Acme-Signature", Encoding: base64.StdEncoding},
				sig == canonical || sig == strings.TrimSuffix(canonical, "=")},
		} {
			wh := newWebhook(t, r.o)
			var woke atomic.Bool
			stop := wh.Watch("ap_1", func() { woke.Store(true) })
			code := post(wh, body, "X-Acme-Signature", sig)
			stop()
			if woke.Load() && !r.signed {
				t.Fatalf("%s: woke on a body not signed in the MAC's spelling (%d)", name, code)
			}
			if !r.signed && code == 200 {
				t.Fatalf("%s: 200 for a body not signed in the MAC's spelling", name)
			}
			if r.signed && code == 401 {
				t.Fatalf("%s: 401 for a signed body", name)
			}
		}
	})
}
