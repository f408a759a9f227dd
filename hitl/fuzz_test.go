package hitl_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/internal/notify"
	"github.com/hitlkit/hitlkit/transport"
)

// FuzzDetect feeds arbitrary 202 bodies to Detect: it must never panic, must restore the body
// byte for byte, and must return either nothing, a usable interrupt, or a typed error.
// Seeds: every 202 body of the test vectors and the broken shapes of cases 2–13.
//
//	go test -run '^$' -fuzz FuzzDetect -fuzztime 5m ./hitl/
func FuzzDetect(f *testing.F) {
	for _, name := range vectorFiles(f) {
		for _, r := range rounds(loadFlow(f, name)) {
			f.Add([]byte(r.accepted))
		}
	}
	for _, seed := range []string{"", "Accepted", `{"hitl":null}`, `{"hitl":"x"}`, `{"hitl":[]}`, `{"hitl":{}}`,
		`{"hitl":{"case_id":42}}`, `{"status":"human_input_required","hitl":{"case_id":`, envelopeWith(hitlJSON())} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, _ := http.NewRequest(http.MethodPost, "https://api.svc.example/v1/x", nil)
		resp := &http.Response{StatusCode: http.StatusAccepted, Request: req, Body: io.NopCloser(bytes.NewReader(body))}
		it, err := hitl.Detect(resp, &hitl.DetectOptions{MaxBody: 1 << 16})
		restored, _ := io.ReadAll(resp.Body)
		if !bytes.Equal(restored, body) {
			t.Fatalf("body not restored: %d bytes, want %d", len(restored), len(body))
		}
		switch {
		case err != nil:
			if it != nil {
				t.Fatal("both an interrupt and an error")
			}
			if !errors.Is(err, hitl.ErrInvalid) && !errors.Is(err, transport.ErrBodyTooLarge) {
				t.Fatalf("untyped error %v", err)
			}
		case it != nil:
			if it.Case == nil || it.ID() == "" || it.Case.PollURL == "" || it.ReviewURL() == "" || it.ExpiresAt().IsZero() {
				t.Fatalf("interrupt without its required fields: %v", it)
			}
		}
	})
}

// FuzzPollBody feeds arbitrary poll bodies to Wait: it must never panic, never hang, and
// end in a Result or a typed error.
//
//	go test -run '^$' -fuzz FuzzPollBody -fuzztime 5m ./hitl/
func FuzzPollBody(f *testing.F) {
	for _, name := range vectorFiles(f) {
		for _, r := range rounds(loadFlow(f, name)) {
			for _, p := range r.polls {
				f.Add([]byte(p.body))
			}
		}
	}
	for _, seed := range []string{completedApprove, `{"status":"expired","case_id":"review_c1"}`, `{"status":"completed"}`, `{`, `[]`, `{"status":7}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		synctest.Test(t, func(t *testing.T) {
			s := &script{replies: []reply{ok(string(body)), ok(completedApprove)}}
			c, err := hitl.NewClient(transport.WithHTTPClient(&http.Client{Transport: s}))
			if err != nil {
				t.Fatal(err)
			}
			it := interrupt("review_c1", time.Hour)
			it.Case.PollURL = "https://svc.example/reviews/review_c1/status"
			// The second reply completes the case: a body that means "keep polling" must lead
			// there (in virtual time), any other must end in a Result or an error.
			res, err := c.Wait(t.Context(), it, nil)
			switch {
			case err != nil && res != nil:
				t.Fatal("both a result and an error")
			case err == nil && res.Status == "":
				t.Fatal("result without a status")
			}
		})
	})
}

func vectorFiles(tb testing.TB) []string {
	entries, err := os.ReadDir(filepath.Join("testdata", "hitl-protocol"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".json") && n[0] >= '0' && n[0] <= '9' && !strings.HasPrefix(n, "07") && !strings.HasPrefix(n, "13") {
			out = append(out, n)
		}
	}
	return out
}

// FuzzCallback posts arbitrary bodies and signature headers to a Callbacks handler: it never
// panics, and never accepts a body whose signature does not verify.
func FuzzCallback(f *testing.F) {
	secret := []byte(hitltest.DefaultCallbackSecret)
	for _, body := range []string{
		`{"event":"review.completed","case_id":"review_abc","completed_at":"2026-11-22T10:00:00Z","result":{"action":"approve","data":{}}}`,
		`{"event":"review.expired","case_id":"review_abc","timestamp":"2026-11-22T10:00:00Z"}`,
		`{"event":"","case_id":"a/../b"}`,
		`[]`,
	} {
		f.Add([]byte(body), notify.SignHMACSHA256(secret, []byte(body), "sha256="))
		f.Add([]byte(body), "sha256="+strings.Repeat("A", 64))
		f.Add([]byte(body), "algorithm=HS256, value="+hs256(secret, []byte(body)))
		f.Add([]byte(body), "value="+hs256(secret, []byte(body))+"=,algorithm=hs256")
		f.Add([]byte(body), "algorithm=HS256, value="+restyled(hs256(secret, []byte(body))))
	}
	cb, err := hitl.NewCallbacks(secret, &hitl.CallbacksOptions{MaxBody: 4 << 10})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte, sig string) {
		req := httptest.NewRequest(http.MethodPost, "/cb", bytes.NewReader(body))
		req.Header.Set(hitl.SignatureHeader, sig)
		w := httptest.NewRecorder()
		cb.ServeHTTP(w, req)
		verified := notify.VerifyHMACSHA256(secret, body, req.Header.Get(hitl.SignatureHeader), "sha256=") ||
			strings.Contains(req.Header.Get(hitl.SignatureHeader), hs256(secret, body)) // the other form holds the MAC itself
		if w.Code == http.StatusOK && !verified {
			t.Fatalf("accepted an unverified callback (%d)", w.Code)
		}
	})
}

// FuzzForm parses arbitrary context.form objects and checks arbitrary answers against the
// ones that parse: never a panic, and a refused answer is always an *InvalidError that
// quotes no value of the answer's sensitive fields. Seeds: the forms of ex04 and ex08.
//
//	go test -run '^$' -fuzz FuzzForm -fuzztime 5m ./hitl/
func FuzzForm(f *testing.F) {
	for _, name := range []string{"04-input-form.json", "08-multi-step-input.json"} {
		var flow struct {
			Steps []struct {
				Response *struct {
					Body struct {
						Hitl struct {
							Context struct {
								Form json.RawMessage `json:"form"`
							} `json:"context"`
						} `json:"hitl"`
					} `json:"body"`
				} `json:"response"`
			} `json:"steps"`
		}
		raw, err := os.ReadFile(filepath.Join("testdata", "hitl-protocol", name))
		if err != nil || json.Unmarshal(raw, &flow) != nil {
			f.Fatal(name, err)
		}
		for _, s := range flow.Steps {
			if s.Response != nil && len(s.Response.Body.Hitl.Context.Form) > 0 {
				f.Add([]byte(s.Response.Body.Hitl.Context.Form), []byte(`{"tax_id":"DE1","employment_type":"fulltime","skills":["x"]}`))
			}
		}
	}
	f.Add([]byte(`{"fields":[{"key":"a","label":"A","type":"number","conditional":{"field":"a","operator":"in","value":3}}]}`), []byte(`{"a":"s"}`))
	f.Fuzz(func(t *testing.T, form, data []byte) {
		fm, err := hitl.ParseForm(form)
		if err != nil {
			if !errors.Is(err, hitl.ErrInvalid) {
				t.Fatalf("ParseForm error %v is not ErrInvalid", err)
			}
			return
		}
		_ = fm.Summary()
		_ = fm.Redact(data)
		if err := fm.Check(t.Context(), data); err != nil && !errors.Is(err, hitl.ErrInvalid) {
			t.Fatalf("Check error %v is not ErrInvalid", err)
		}
	})
}

// FuzzDiscovery parses arbitrary discovery documents: never a panic, and every refusal is
// an *InvalidError.
//
//	go test -run '^$' -fuzz FuzzDiscovery -fuzztime 5m ./hitl/
func FuzzDiscovery(f *testing.F) {
	raw, err := os.ReadFile(filepath.Join("testdata", "hitl-protocol", "07-well-known-hitl.json"))
	if err != nil {
		f.Fatal(err)
	}
	var ex struct {
		Response struct {
			Body json.RawMessage `json:"body"`
		} `json:"response"`
	}
	if err := json.Unmarshal(raw, &ex); err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(ex.Response.Body))
	f.Add([]byte(`{"hitl_protocol":"0.5","features":{"callback":true},"timeout_default":"P7D"}`))
	f.Add([]byte(`{"hitl_protocol":{"rate_limits":{"poll_min_interval_seconds":1e308}}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		if _, err := hitl.ParseDiscovery(doc); err != nil && !errors.Is(err, hitl.ErrInvalid) {
			t.Fatalf("error %v is not ErrInvalid", err)
		}
	})
}

// hs256 is the base64url HMAC-SHA256 of body: the value of the algorithm=HS256 form.
func hs256(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}
