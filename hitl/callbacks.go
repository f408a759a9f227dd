package hitl

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hitlkit/hitlkit/internal/b64"
	"github.com/hitlkit/hitlkit/internal/notify"
	"github.com/hitlkit/hitlkit/transport"
)

// Callback wire names (HITL Protocol §9).
const (
	// signatureHeader carries "sha256=" and the hex HMAC-SHA256 of the raw callback body
	// (§9), or, as one live service writes it, "algorithm=HS256, value=" and the same HMAC in
	// base64url: both are verified.
	signatureHeader = "X-HITL-Signature"
	// CallbackURLField is the key of the callback URL in the agent's original request body.
	// (§6's prose says callback_url; its example, and the services, use hitl_callback_url.)
	CallbackURLField = "hitl_callback_url"
	signaturePrefix  = "sha256="
)

// Callbacks is an http.Handler that receives one service's callbacks (§9) — a
// [transport.Webhook] configured for the HITL Protocol's signature and body: it verifies
// each X-HITL-Signature in constant time over the raw body (in §9's form, sha256=<hex>, or in
// the form algorithm=HS256, value=<base64url>; the first callback in the second form is
// logged at debug), and wakes the [Client.Wait]
// for the case, which confirms the outcome with a poll. Register it with [WithCallbacks] and
// mount it in any mux at the URL given as hitl_callback_url.
//
// Answers: 200 for a verified callback, duplicates included (a (case_id, event) pair wakes
// its wait once); 401 for a missing or bad signature (nothing is delivered); 400 for a
// verified body that is not a callback, or a body not read within the read timeout; 405, 413
// and 503 (too many callbacks kept for waits that have not begun, or too many bodies being
// read at once). Anyone can reach it, so bodies are read under a size limit and a deadline,
// a few at a time (see [CallbacksOptions]); serve it from an [http.Server] with
// ReadHeaderTimeout set, as the README shows. A callback that arrives before its Wait begins is kept, by default
// for an hour, and wakes the Wait when it begins. Both documented bodies are accepted:
// {event, case_id, completed_at, result} and {event, case_id, timestamp, …}.
//
// Use one Callbacks per service (each has its own secret). It is safe for concurrent use.
type Callbacks struct {
	wh      *transport.Webhook
	keep    time.Duration
	maxKept int

	decide bool
	mu     sync.Mutex
	last   map[string]lastCallback // the last verified terminal callback per case, when decide
}

type lastCallback struct {
	event string
	body  []byte
	at    time.Time
}

// CallbacksOptions tunes [NewCallbacks]. A nil *CallbacksOptions or a zero field means the
// default.
type CallbacksOptions struct {
	// MaxBody is the largest callback body read. Default 64 KiB: anyone can reach the
	// receiver, and a body is verified only once read.
	MaxBody int64
	// ReadTimeout bounds the reading of one body; a slow or stalled sender is cut off.
	// Default 10 s.
	ReadTimeout time.Duration
	// MaxConcurrentReads caps the bodies read at once; more are answered 503 at once.
	// Default 64.
	MaxConcurrentReads int
	// Keep is how long a callback that arrived before its Wait began is kept. Default 1 h.
	Keep time.Duration
	// MaxKept bounds how many such callbacks are kept. Default 10,000.
	MaxKept int
	// Logger receives a record per callback (case id and event; never the body). Default:
	// discarded.
	Logger *slog.Logger
	// Decide lets a verified callback that carries the complete outcome of its case (the
	// terminal status and, for a completion, the result with its action) end the wait at
	// once, without the confirming poll. Default false, as the HITL Protocol advises (§9: a
	// callback is a reason to poll).
	//
	// The trade-off: the decision arrives one network leg sooner, and the poll it saves is
	// the only check that the service's record says the same as the callback. The HMAC
	// proves the callback came from a holder of the shared secret and was not altered; it
	// does not prove the service still holds that outcome (a callback for a state the service
	// later corrected, or one replayed from a leak of the secret, would be taken as is). Turn
	// it on when the secret is well kept and a second of latency matters more than that
	// check; the poll URL stays the source of truth for every other wait.
	Decide bool
}

// NewCallbacks returns a receiver for callbacks signed with secret, the per-service secret
// established with the service (§9 leaves how to the service). The secret is copied.
func NewCallbacks(secret []byte, o *CallbacksOptions) (*Callbacks, error) {
	if len(secret) == 0 {
		return nil, errors.New("hitl: NewCallbacks: empty secret")
	}
	if o == nil {
		o = &CallbacksOptions{}
	}
	cb := &Callbacks{keep: o.Keep, maxKept: o.MaxKept, decide: o.Decide}
	var once sync.Once
	wh, err := transport.NewWebhook(transport.WebhookOptions{
		Secret:             secret,
		Header:             signatureHeader,
		Keep:               o.Keep,
		MaxKept:            o.MaxKept,
		MaxBody:            o.MaxBody,
		ReadTimeout:        o.ReadTimeout,
		MaxConcurrentReads: o.MaxConcurrentReads,
		Logger:             o.Logger,
		Verify: func(key []byte, h http.Header, body []byte) bool {
			sig := h.Get(signatureHeader)
			if notify.VerifyHMACSHA256(key, body, sig, signaturePrefix) {
				return true
			}
			if !verifyHS256(key, body, sig) {
				return false
			}
			if o.Logger != nil {
				once.Do(func() {
					o.Logger.LogAttrs(context.Background(), slog.LevelDebug,
						"hitl: callbacks signed as algorithm=HS256, value=<base64url>, not §9's sha256=<hex>; accepted")
				})
			}
			return true
		},
		Parse: cb.parse,
	})
	if err != nil {
		return nil, err
	}
	cb.wh = wh
	return cb, nil
}

// verifyHS256 reports whether header is "algorithm=HS256, value=<base64url>" (parameters in
// any order, spaces optional, the name in any case, the one padding "=" optional) holding the
// HMAC-SHA256 of body under secret, compared in constant time. Only the canonical encoding
// of the MAC verifies: a value whose last character differs only in the bits the encoding
// leaves unused is refused, so one MAC has one spelling (TestCallbackSignatureForms).
func verifyHS256(secret, body []byte, header string) bool {
	var alg, value string
	for part := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return false
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "algorithm":
			alg = strings.TrimSpace(v)
		case "value":
			value = strings.TrimSpace(v)
		}
	}
	if !strings.EqualFold(alg, "HS256") {
		return false
	}
	got, err := b64.Canonical(base64.RawURLEncoding, strings.TrimSuffix(value, "="))
	if err != nil || len(got) != sha256.Size {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hmac.Equal(mac.Sum(nil), got)
}

// parse reads a verified callback, and keeps its body when callbacks may decide (bounded by
// the mailbox: a case's body is dropped with its wait).
func (cb *Callbacks) parse(body []byte) (string, string, error) {
	caseID, event, err := parseCallback(body)
	if err != nil || !cb.decide {
		return caseID, event, err
	}
	switch event {
	case eventCompleted, eventExpired, eventCancelled:
		now := time.Now()
		keep, limit := cb.keep, cb.maxKept
		if keep <= 0 {
			keep = notify.DefaultKeep
		}
		if limit <= 0 {
			limit = notify.DefaultMaxKept
		}
		cb.mu.Lock()
		if cb.last == nil {
			cb.last = make(map[string]lastCallback)
		}
		if len(cb.last) >= limit {
			// Full: drop what is older than the mailbox keeps a callback for a wait.
			for k, l := range cb.last {
				if now.Sub(l.at) >= keep {
					delete(cb.last, k)
				}
			}
		}
		if len(cb.last) < limit {
			cb.last[caseID] = lastCallback{event: event, body: append([]byte(nil), body...), at: now}
		}
		cb.mu.Unlock()
	}
	return caseID, event, nil
}

// outcome is the complete outcome of cs a kept callback carries, or nil (callbacks do not
// decide, none arrived, or it lacks the outcome).
func (cb *Callbacks) outcome(cs *Case) *transport.Result {
	if !cb.decide {
		return nil
	}
	cb.mu.Lock()
	last, ok := cb.last[cs.CaseID]
	cb.mu.Unlock()
	if !ok {
		return nil
	}
	return outcomeOf(cs, last.event, last.body)
}

// ServeHTTP implements http.Handler.
func (cb *Callbacks) ServeHTTP(w http.ResponseWriter, r *http.Request) { cb.wh.ServeHTTP(w, r) }

// watch wakes the caller for each new callback for caseID until stop is called; stopping
// also forgets the case's kept callback.
func (cb *Callbacks) watch(caseID string, wake func()) (stop func()) {
	unwatch := cb.wh.Watch(caseID, wake)
	return func() {
		unwatch()
		cb.mu.Lock()
		delete(cb.last, caseID)
		cb.mu.Unlock()
	}
}

// parseCallback reads the case and event of a verified callback body.
func parseCallback(body []byte) (string, string, error) {
	var b struct {
		Event  string `json:"event"`
		CaseID string `json:"case_id"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return "", "", errors.New("callback body is not a JSON object")
	}
	if b.Event == "" || len(b.Event) > 64 {
		return "", "", errors.New("callback without a usable event")
	}
	if !validCaseID(b.CaseID) {
		return "", "", errors.New("callback without a usable case_id")
	}
	return b.CaseID, b.Event, nil
}

// SetCallbackURL returns body, a JSON object (empty means {}), with hitl_callback_url set to
// callbackURL, so that the service calls the agent back when the case ends (§9). Other
// members are kept; their order may change.
func SetCallbackURL(body []byte, callbackURL string) ([]byte, error) {
	if u, err := url.Parse(callbackURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, errors.New("hitl: SetCallbackURL: not an absolute http(s) URL")
	}
	obj := map[string]json.RawMessage{}
	if len(body) > 0 {
		if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
			return nil, fmt.Errorf("hitl: SetCallbackURL: the request body is not a JSON object")
		}
	}
	v, _ := json.Marshal(callbackURL)
	obj[CallbackURLField] = v
	return json.Marshal(obj)
}
