package hitl

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/hitlkit/hitlkit/transport"
)

// Callback wire names (HITL Protocol §9).
const (
	// SignatureHeader carries "sha256=" and the hex HMAC-SHA256 of the raw callback body.
	SignatureHeader = "X-HITL-Signature"
	// CallbackURLField is the key of the callback URL in the agent's original request body.
	// (§6's prose says callback_url; its example, and the services, use hitl_callback_url.)
	CallbackURLField = "hitl_callback_url"
	signaturePrefix  = "sha256="
)

// Callbacks is an http.Handler that receives one service's callbacks (§9): it verifies
// each X-HITL-Signature in constant time over the raw body, and wakes the [Client.Wait]
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
	recv transport.Receiver
	box  transport.Mailbox
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
	key := append([]byte(nil), secret...)
	cb := &Callbacks{box: transport.Mailbox{Keep: o.Keep, MaxKept: o.MaxKept}}
	cb.recv = transport.Receiver{
		Mailbox:            &cb.box,
		MaxBody:            o.MaxBody,
		ReadTimeout:        o.ReadTimeout,
		MaxConcurrentReads: o.MaxConcurrentReads,
		Logger:             o.Logger,
		Verify: func(h http.Header, body []byte) bool {
			return transport.VerifyHMACSHA256(key, body, h.Get(SignatureHeader), signaturePrefix)
		},
		Parse: parseCallback,
	}
	return cb, nil
}

// ServeHTTP implements http.Handler.
func (cb *Callbacks) ServeHTTP(w http.ResponseWriter, r *http.Request) { cb.recv.ServeHTTP(w, r) }

// watch wakes the caller for each new callback for caseID until stop is called.
func (cb *Callbacks) watch(caseID string, wake func()) (stop func()) {
	return cb.box.Watch(caseID, wake)
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
