package a2a_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/transport"
)

const (
	pushToken = "push-token-7f3a"
	pushAuth  = "Bearer webhook-credential-91c2"
)

func post(t *testing.T, h http.Handler, method, body string, header map[string]string) int {
	t.Helper()
	req := httptest.NewRequestWithContext(t.Context(), method, "https://agent.example/a2a/push", strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}

// TestCase31PushReceiver: every body shape wakes the task's wait; a wrong or missing
// credential, an unknown task, a duplicate, a wrong method or body are answered as the
// receiver's doc says and wake nothing.
func TestCase31PushReceiver(t *testing.T) {
	const (
		bare03  = `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"input-required"}}`
		v2via03 = `{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_INPUT_REQUIRED"}}}`
		other   = `{"task":{"id":"t2","status":{"state":"TASK_STATE_COMPLETED"}}}`
	)
	good03 := map[string]string{"X-A2A-Notification-Token": pushToken, "Authorization": pushAuth}
	tests := []struct {
		name   string
		method string
		body   string
		header map[string]string
		status int
		wakes  int
	}{
		{"1.0 statusUpdate, A2A-Notification-Token", "POST", status10, good, 200, 1},
		{"0.3 bare task, X-A2A-Notification-Token", "POST", bare03, good03, 200, 1},
		{"a2a-go v2 StreamResponse through a 0.3 endpoint", "POST", v2via03, good, 200, 1},
		{"wrong token", "POST", status10, map[string]string{"A2A-Notification-Token": "nope", "Authorization": pushAuth}, 401, 0},
		{"missing token", "POST", status10, map[string]string{"Authorization": pushAuth}, 401, 0},
		{"wrong Authorization", "POST", status10, map[string]string{"A2A-Notification-Token": pushToken, "Authorization": "Bearer guess"}, 401, 0},
		{"missing Authorization", "POST", status10, map[string]string{"A2A-Notification-Token": pushToken}, 401, 0},
		{"unknown task ignored", "POST", other, good, 200, 0},
		{"not A2A", "POST", `{"hello":"world"}`, good, 400, 0},
		{"GET", "GET", "", good, 405, 0},
		{"oversized", "POST", `{"task":{"id":"t1","status":{"state":"working"},"metadata":{"pad":"` + strings.Repeat("x", 2<<20) + `"}}}`, good, 413, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rc := &a2a.PushReceiver{Token: pushToken, Authorization: pushAuth}
				wakes := watchWakes(t, rc, "t1")
				if got := post(t, rc, tt.method, tt.body, tt.header); got != tt.status {
					t.Errorf("status = %d, want %d", got, tt.status)
				}
				if got := wakes(); got != tt.wakes {
					t.Errorf("wakes = %d, want %d", got, tt.wakes)
				}
			})
		})
	}
	t.Run("duplicate delivered once", func(t *testing.T) { synctest.Test(t, testDuplicatePush) })
	t.Run("unconfigured receiver refuses everything", func(t *testing.T) {
		rc := &a2a.PushReceiver{}
		if got := post(t, rc, "POST", status10, good); got != 401 {
			t.Errorf("status = %d", got)
		}
	})
	t.Run("credentials never logged", func(t *testing.T) { synctest.Test(t, testPushLogs) })
}

const (
	status10 = `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_INPUT_REQUIRED"}}}`
)

var good = map[string]string{"A2A-Notification-Token": pushToken, "Authorization": pushAuth}

func testDuplicatePush(t *testing.T) {
	rc := &a2a.PushReceiver{Token: pushToken}
	wakes := watchWakes(t, rc, "t1")
	for range 3 {
		if got := post(t, rc, "POST", status10, good); got != 200 {
			t.Fatalf("status = %d", got)
		}
	}
	if got := wakes(); got != 1 {
		t.Errorf("wakes = %d, want 1", got)
	}
}

func testPushLogs(t *testing.T) {
	var logs bytes.Buffer
	rc := &a2a.PushReceiver{Token: pushToken, Authorization: pushAuth, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	_ = watchWakes(t, rc, "t1")
	post(t, rc, "POST", status10, good)
	post(t, rc, "POST", status10, map[string]string{"A2A-Notification-Token": pushToken + "x", "Authorization": pushAuth})
	if s := logs.String(); strings.Contains(s, pushToken) || strings.Contains(s, "webhook-credential") || !strings.Contains(s, "push refused") {
		t.Errorf("logs: %s", s)
	}
}

// watchWakes starts a Client.Wait with push on task id against an agent that keeps it
// working and polls hourly, and returns a function that ends the wait and counts the polls
// the receiver's wake-ups caused. Call it inside a synctest bubble.
func watchWakes(t *testing.T, rc *a2a.PushReceiver, id string) func() int {
	t.Helper()
	polls := make(chan struct{}, 64)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		polls <- struct{}{}
		_, _ = io.WriteString(w, `{"id":"`+id+`","status":{"state":"TASK_STATE_WORKING"}}`)
	})
	c := newClient(t, transport.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: h}}), transport.WithPollInterval(time.Hour))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = c.Wait(ctx, &a2a.Pause{Class: a2a.ClassWorking, TaskID: id, Endpoint: a2a.Endpoint{URL: "https://agent.example", Binding: a2a.REST10}}, &a2a.WaitOptions{Push: rc})
	}()
	<-polls // the wait's first poll: it is watching now
	return func() int {
		// A wake polls at once, MinInterval (1 s) after the previous poll at the latest.
		deadline := time.After(1500 * time.Millisecond)
		n := 0
		for {
			select {
			case <-polls:
				n++
			case <-deadline:
				cancel()
				<-done
				return n
			}
		}
	}
}

// TestPushWakesRun: the agent pushes each change to the receiver; a wait with a one-hour
// poll interval learns of the out-of-band authorisation at once.
func TestPushWakesRun(t *testing.T) {
	for _, b := range []a2a.Binding{a2a.JSONRPC10, a2a.JSONRPC03} {
		t.Run(string(b), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rc := &a2a.PushReceiver{Token: pushToken, Authorization: pushAuth}
				agent := a2atest.NewMemoryAgent(t, a2atest.WithAuthFirst(), a2atest.WithPushHandler(rc))
				c := newClient(t, transport.WithHTTPClient(agent.Client()), transport.WithPollInterval(time.Hour))
				push := &a2a.PushConfig{URL: "https://agent.example/a2a/push", Token: pushToken, Scheme: "Bearer", Credentials: "webhook-credential-91c2"}
				p := start(t, c, agent.Endpoint(b), &a2a.SendOptions{Push: push})
				go func() {
					<-time.After(10 * time.Second)
					_ = agent.Authorize(p.TaskID)
				}()
				began := time.Now()
				var askedAt time.Duration
				r, err := c.Run(t.Context(), p, func(context.Context, *a2a.Pause) (a2a.Answer, error) {
					askedAt = time.Since(began)
					return a2a.HectorDecision(true), nil
				}, &a2a.RunOptions{Wait: a2a.WaitOptions{Push: rc}})
				if err != nil || r.Status != transport.StatusCompleted {
					t.Fatalf("Run = %v, %v", r, err)
				}
				if askedAt != 10*time.Second {
					t.Errorf("asked after %v, want 10s", askedAt)
				}
			})
		})
	}
}

// TestCase32SignedPush: RS256 JWTs with kid, iat and request_body_sha256; a token whose
// signature is spelled another way (the unused low bits of its last character flipped, the
// same bytes to a lenient decoder) is refused, so one signature has one spelling.
func TestCase32SignedPush(t *testing.T) { synctest.Test(t, testSignedPush) }

func testSignedPush(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	fetches := 0
	jwks := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches++
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []any{map[string]any{"kty": "RSA", "kid": "k1", "alg": "RS256",
			"n": base64.RawURLEncoding.EncodeToString(key.N.Bytes()), "e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(key.E)).Bytes())}}})
	})
	const body = `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}`
	sign := func(kid string, iat time.Time, signed string) string {
		seg := func(v any) string { b, _ := json.Marshal(v); return base64.RawURLEncoding.EncodeToString(b) }
		sum := sha256.Sum256([]byte(signed))
		in := seg(map[string]string{"alg": "RS256", "kid": kid, "typ": "JWT"}) + "." + seg(map[string]any{"iat": iat.Unix(), "request_body_sha256": hex.EncodeToString(sum[:])})
		d := sha256.Sum256([]byte(in))
		sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, d[:])
		if err != nil {
			t.Fatal(err)
		}
		return "Bearer " + in + "." + base64.RawURLEncoding.EncodeToString(sig)
	}
	v := &a2a.JWTVerifier{Key: a2a.JWKSKeys(&http.Client{Transport: &memhttp.Transport{Handler: jwks}}, "https://sender.example/.well-known/jwks.json")}
	now := time.Now()
	tests := []struct {
		name   string
		auth   string
		body   string
		wantOK bool
	}{
		{"valid", sign("k1", now, body), body, true},
		{"body tampered", sign("k1", now, body), strings.Replace(body, "COMPLETED", "FAILED", 1), false},
		{"iat six minutes old", sign("k1", now.Add(-6*time.Minute), body), body, false},
		{"iat in the future", sign("k1", now.Add(10*time.Minute), body), body, false},
		{"unknown kid", sign("k9", now, body), body, false},
		{"not a bearer token", "Basic abc", body, false},
		{"garbage token", "Bearer a.b.c", body, false},
		{"signature respelled", respelled(sign("k1", now, body)), body, false},
		{"signature with CR and LF", withNewlines(sign("k1", now, body)), body, false}, // skipped by encoding/base64
	}
	for _, tt := range tests { // a bubble allows no subtests: rows are named in the message
		err := v.Verify(t.Context(), tt.auth, []byte(tt.body))
		if (err == nil) != tt.wantOK || (err != nil && !errors.Is(err, a2a.ErrBadSignature)) {
			t.Errorf("%s: Verify = %v", tt.name, err)
		}
	}
	// The unknown kid made one refetch; further unknown kids within a minute make none.
	before := fetches
	_ = v.Verify(t.Context(), sign("k8", now, body), []byte(body))
	if fetches != before {
		t.Errorf("JWKS fetched %d more times", fetches-before)
	}
	// Through the receiver: a signed notification is accepted, an unsigned one refused.
	rc := &a2a.PushReceiver{JWT: v}
	_ = watchWakes(t, rc, "t1")
	if got := post(t, rc, "POST", body, map[string]string{"Authorization": sign("k1", now, body)}); got != 200 {
		t.Errorf("signed: %d", got)
	}
	if got := post(t, rc, "POST", body, map[string]string{"Authorization": "Bearer x"}); got != 401 {
		t.Errorf("unsigned: %d", got)
	}
}

// withNewlines puts a CR LF ten characters before the end of token's signature: another
// spelling of the same bytes to encoding/base64, which skips them.
func withNewlines(token string) string {
	return token[:len(token)-10] + "\r\n" + token[len(token)-10:]
}

// respelled flips the lowest bit of the last base64url character of token, which for a
// 256-byte RS256 signature is one the encoding leaves unused.
func respelled(token string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, token[len(token)-1])
	return token[:len(token)-1] + string(alphabet[last^1])
}

// TestJWTKeySizeBounded: a sender's key over 8,192 bits is never used: JWKSKeys leaves it out
// of the key set, and Verify refuses one a Key function returns before any arithmetic with
// it, where verifying against a 131,072-bit modulus (16 KiB in a JWKS document) took 5 s of
// CPU per notification, the cost growing with the square of the modulus' length.
func TestJWTKeySizeBounded(t *testing.T) {
	small, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	huge := new(big.Int).Lsh(big.NewInt(1), 16383)
	huge.SetBit(huge, 0, 1) // 16,384 bits, odd: what an RSA modulus looks like
	b64 := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	jwks := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []any{
			map[string]any{"kty": "RSA", "kid": "big", "n": b64(huge.Bytes()), "e": "AQAB"},
			map[string]any{"kty": "RSA", "kid": "k1", "n": b64(small.N.Bytes()), "e": "AQAB"},
		}})
	})
	keys := a2a.JWKSKeys(&http.Client{Transport: &memhttp.Transport{Handler: jwks}}, "https://sender.example/.well-known/jwks.json")
	if k, err := keys(t.Context(), "big", false); err == nil || k != nil {
		t.Errorf("a 16,384-bit key from the JWKS: returned %v, %v; want it left out", k != nil, err)
	}
	if k, err := keys(t.Context(), "k1", false); err != nil || k.N.Cmp(small.N) != 0 {
		t.Errorf("a 2,048-bit key from the JWKS: returned %v, %v", k != nil, err)
	}
	seg := func(v any) string { b, _ := json.Marshal(v); return b64(b) }
	token := "Bearer " + seg(map[string]string{"alg": "RS256", "kid": "big"}) + "." + seg(map[string]any{"iat": time.Now().Unix()}) + "." + b64(make([]byte, 2048))
	v := &a2a.JWTVerifier{Key: func(context.Context, string, bool) (*rsa.PublicKey, error) {
		return &rsa.PublicKey{N: huge, E: 65537}, nil
	}}
	err = v.Verify(t.Context(), token, []byte("{}"))
	if !errors.Is(err, a2a.ErrBadSignature) || !strings.Contains(err.Error(), "16384 bits") {
		t.Errorf("Verify with a 16,384-bit key = %v; want it refused for its size", err)
	}
}
