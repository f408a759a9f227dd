package acme_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// fake is the acme approval service, in memory: serve it through transporttest.Transport.
// Its webhooks go to hook (the agent's receiver), in memory too, signed with secret.
type fake struct {
	secret  []byte
	hook    http.Handler
	pollURL func(id string) string // where a new approval is polled; default /approvals/{id}

	mu        sync.Mutex
	approvals map[string]*approval
	seq       int
	auth      []string // the Authorization of every request, in order
	cutNext   int      // poll answers to cut short
	polls     int
}

type approval struct {
	State, By, Reason string
	callback          string
}

func newFake(secret []byte, hook http.Handler) *fake {
	return &fake{secret: secret, hook: hook, approvals: map[string]*approval{}}
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/approvals":
		var in struct {
			Prompt      string `json:"prompt"`
			CallbackURL string `json:"callback_url"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Prompt == "" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		f.seq++
		id := fmt.Sprintf("ap_%d", f.seq)
		f.approvals[id] = &approval{State: "pending", callback: in.CallbackURL}
		poll := "/approvals/" + id
		if f.pollURL != nil {
			poll = f.pollURL(id)
		}
		w.Header().Set("Retry-After", "60")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]string{"id": id, "poll_url": poll})
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/approvals/"):
		f.polls++
		a := f.approvals[strings.TrimPrefix(r.URL.Path, "/approvals/")]
		if a == nil {
			http.NotFound(w, r)
			return
		}
		if a.State == "pending" {
			w.Header().Set("Retry-After", "300") // five minutes between polls
		}
		b, _ := json.Marshal(a)
		if f.cutNext > 0 {
			f.cutNext--
			b = b[:len(b)/2]
		}
		_, _ = w.Write(b)
	default:
		http.NotFound(w, r)
	}
}

// decide is the scripted human: they decide approval id, and the service notifies the agent.
func (f *fake) decide(id, state, by, reason string) {
	f.mu.Lock()
	a := f.approvals[id]
	a.State, a.By, a.Reason = state, by, reason
	callback := a.callback
	f.mu.Unlock()
	if callback == "" || f.hook == nil {
		return
	}
	body, _ := json.Marshal(map[string]any{"id": id, "event": "decided", "sent_at": time.Now()})
	mac := hmac.New(sha256.New, f.secret)
	mac.Write(body)
	req := httptest.NewRequest(http.MethodPost, callback, bytes.NewReader(body))
	req.Header.Set("X-Acme-Signature", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	rec := httptest.NewRecorder()
	f.hook.ServeHTTP(rec, req)
	_, _ = io.Copy(io.Discard, rec.Body)
}

func (f *fake) authorizations() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.auth...)
}

func (f *fake) pollCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.polls
}
