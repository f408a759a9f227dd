package notify_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/internal/notify"
)

func TestVerifyHMACSHA256(t *testing.T) {
	secret, body := []byte("s3cret"), []byte(`{"event":"review.completed","case_id":"c1"}`)
	good := notify.SignHMACSHA256(secret, body, "sha256=")
	tests := []struct {
		name   string
		secret []byte
		body   []byte
		header string
		want   bool
	}{
		{"good", secret, body, good, true},
		{"upper-case hex", secret, body, "sha256=" + strings.ToUpper(strings.TrimPrefix(good, "sha256=")), true},
		{"body reformatted", secret, []byte(`{"event": "review.completed", "case_id": "c1"}`), good, false},
		{"wrong secret", []byte("other"), body, good, false},
		{"missing prefix", secret, body, strings.TrimPrefix(good, "sha256="), false},
		{"missing header", secret, body, "", false},
		{"truncated digest", secret, body, good[:len(good)-2], false},
		{"not hex", secret, body, "sha256=" + strings.Repeat("z", 64), false},
		{"empty secret", nil, body, notify.SignHMACSHA256(nil, body, "sha256="), false},
	}
	for _, tt := range tests {
		if got := notify.VerifyHMACSHA256(tt.secret, tt.body, tt.header, "sha256="); got != tt.want {
			t.Errorf("%s: VerifyHMACSHA256 = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestMailbox: early notifications are kept and wake the wait when it begins; duplicates
// are delivered once; kept notifications expire; a full mailbox refuses new keys only.
func TestMailbox(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &notify.Mailbox{Keep: time.Minute, MaxKept: 2}
		if fresh, err := m.Deliver("early", "review.completed"); !fresh || err != nil {
			t.Fatalf("Deliver = %v, %v", fresh, err)
		}
		if fresh, _ := m.Deliver("early", "review.completed"); fresh {
			t.Error("duplicate delivered as fresh")
		}
		wakes := 0
		stop := m.Watch("early", func() { wakes++ })
		if wakes != 1 {
			t.Fatalf("%d wakes for an early notification, want 1", wakes)
		}
		if fresh, _ := m.Deliver("early", "review.completed"); fresh || wakes != 1 {
			t.Errorf("duplicate after Watch: fresh=%v, %d wakes", fresh, wakes)
		}
		if fresh, _ := m.Deliver("early", "review.cancelled"); !fresh || wakes != 2 {
			t.Errorf("new event: fresh=%v, %d wakes", fresh, wakes)
		}
		stop()

		// Two kept keys fill it; a third is refused until the first two expire.
		for _, k := range []string{"a", "b"} {
			if _, err := m.Deliver(k, "e"); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := m.Deliver("c", "e"); !errors.Is(err, notify.ErrMailboxFull) {
			t.Fatalf("Deliver to a full mailbox = %v", err)
		}
		watched := 0
		defer m.Watch("w", func() { watched++ })()
		if fresh, err := m.Deliver("w", "e"); !fresh || err != nil || watched != 1 {
			t.Errorf("a watched key must get through a full mailbox: %v, %v, %d", fresh, err, watched)
		}
		<-time.After(time.Minute)
		if _, err := m.Deliver("c", "e"); err != nil {
			t.Fatalf("after expiry: %v", err)
		}
		late := 0
		m.Watch("a", func() { late++ })()
		if late != 0 {
			t.Error("an expired notification woke a wait")
		}
	})
}

func TestReceiver(t *testing.T) {
	secret := []byte("k")
	box := &notify.Mailbox{}
	rc := &notify.Receiver{
		Mailbox: box,
		MaxBody: 256,
		Verify: func(h http.Header, body []byte) bool {
			return notify.VerifyHMACSHA256(secret, body, h.Get("X-Sig"), "sha256=")
		},
		Parse: func(body []byte) (string, string, error) {
			var v struct{ Key, Event string }
			if err := json.Unmarshal(body, &v); err != nil || v.Key == "" {
				return "", "", errors.New("bad body")
			}
			return v.Key, v.Event, nil
		},
	}
	wakes := 0
	defer box.Watch("k1", func() { wakes++ })()
	post := func(method, body, sig string) int {
		r := httptest.NewRequest(method, "/cb", strings.NewReader(body))
		if sig != "" {
			r.Header.Set("X-Sig", sig)
		}
		w := httptest.NewRecorder()
		rc.ServeHTTP(w, r)
		return w.Code
	}
	good := `{"key":"k1","event":"done"}`
	tests := []struct {
		name, method, body, sig string
		code, wakes             int
	}{
		{"forged", "POST", good, notify.SignHMACSHA256([]byte("guess"), []byte(good), "sha256="), 401, 0},
		{"unsigned", "POST", good, "", 401, 0},
		{"signed", "POST", good, notify.SignHMACSHA256(secret, []byte(good), "sha256="), 200, 1},
		{"duplicate", "POST", good, notify.SignHMACSHA256(secret, []byte(good), "sha256="), 200, 1},
		{"signed garbage", "POST", `[]`, notify.SignHMACSHA256(secret, []byte(`[]`), "sha256="), 400, 1},
		{"too large", "POST", strings.Repeat(" ", 300) + good, "sha256=00", 413, 1},
		{"GET", "GET", "", "", 405, 1},
	}
	for _, tt := range tests {
		if code := post(tt.method, tt.body, tt.sig); code != tt.code || wakes != tt.wakes {
			t.Errorf("%s: answered %d with %d wakes; want %d with %d", tt.name, code, wakes, tt.code, tt.wakes)
		}
	}
}

func TestReceiverUnconfigured(t *testing.T) {
	w := httptest.NewRecorder()
	(&notify.Receiver{}).ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/cb", strings.NewReader("{}")))
	if w.Code != http.StatusInternalServerError {
		t.Errorf("answered %d, want 500", w.Code)
	}
}
