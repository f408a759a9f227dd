package transport

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/internal/b64"
	"github.com/hitlkit/hitlkit/internal/notify"
)

// Webhook is an http.Handler that receives the signed notifications a service POSTs when
// something changed — a decision made, a request cancelled — and wakes the waits they
// concern, by id: a [Wait] whose Watch calls [Webhook.Watch] polls at once to confirm. It is
// the receiver of every protocol: hitl.Callbacks is one configuration of it.
//
// Anyone can reach it, so it trusts nothing before the signature: each body is read under a
// size bound and a deadline, a few at a time, and verified in constant time over the raw
// bytes (HMAC-SHA256 under the shared secret, in the header and format [WebhookOptions]
// name) before it is parsed. A notification outside the replay window, when the options
// give its time, is refused; the same (id, event) wakes its waits once. A notification that
// arrives before its wait begins is kept (by default for an hour) and wakes the wait when it
// begins.
//
// Answers: 200 for a verified notification, duplicates included (so the sender stops
// retrying); 401 for a missing or bad signature, or a time outside the replay window
// (nothing is delivered); 400 for a verified body Parse refuses, or one not read within the
// read timeout; 405 for a method other than POST; 413 for a body over the bound; 503 when
// too many bodies are being read or too many notifications are kept for waits that have not
// begun. Serve it from an [http.Server] with ReadHeaderTimeout set, so that a sender cannot
// hold a connection by trickling its headers either.
//
// Use one Webhook per secret. It is safe for concurrent use.
type Webhook struct {
	recv notify.Receiver
	box  notify.Mailbox
}

// WebhookOptions configures [NewWebhook]. A zero field means the default; Secret, Header
// (or Verify) and Parse are required.
type WebhookOptions struct {
	// Secret is the key the service signs with. It is copied.
	Secret []byte
	// Header names the header that carries the signature ("X-Acme-Signature"). Its value is
	// Prefix followed by the HMAC-SHA256 of the raw body under Secret, in Encoding.
	Header string
	// Prefix starts the header's value ("sha256="); "" means none.
	Prefix string
	// Encoding writes the HMAC: nil means hex (either case); or a base64 encoding, such as
	// base64.StdEncoding or base64.RawURLEncoding (its one padding '=' then optional), in
	// its canonical spelling only: a last character whose unused bits are set is refused.
	Encoding *base64.Encoding
	// Verify, when set, replaces the check above: it reports whether the raw body and its
	// headers are signed with Secret (a format of its own); it must compare in constant
	// time.
	Verify func(secret []byte, h http.Header, body []byte) bool
	// Parse reads a verified body: the id of the wait it concerns (a case, a request) and
	// the event ("completed"); an error answers 400. Required.
	Parse func(body []byte) (id, event string, err error)
	// Time, when set, reads when the notification was sent (a header, or the verified body);
	// one outside ReplayWindow of now, either way, or without a time, is refused, so a
	// recorded notification cannot be replayed later.
	Time func(h http.Header, body []byte) (time.Time, bool)
	// ReplayWindow is how far Time may be from now. Default 5 min.
	ReplayWindow time.Duration
	// MaxBody is the largest body read. Default 64 KiB.
	MaxBody int64
	// ReadTimeout bounds the reading of one body; a slow or stalled sender is cut off.
	// Default 10 s.
	ReadTimeout time.Duration
	// MaxConcurrentReads caps the bodies read at once; more are answered 503 at once.
	// Default 64.
	MaxConcurrentReads int
	// Keep is how long a notification that arrived before its wait began is kept. Default
	// 1 h.
	Keep time.Duration
	// MaxKept bounds how many ids with such a notification are kept. Default 10,000.
	MaxKept int
	// Logger receives a record per notification (id and event; never the body). Default:
	// discarded.
	Logger *slog.Logger
}

// errWebhook: NewWebhook was given an incomplete configuration.
var errWebhook = errors.New("transport: NewWebhook needs a Secret, a Header or Verify, and Parse")

// NewWebhook returns a receiver configured by o.
func NewWebhook(o WebhookOptions) (*Webhook, error) {
	if len(o.Secret) == 0 || (o.Header == "" && o.Verify == nil) || o.Parse == nil {
		return nil, errWebhook
	}
	key := append([]byte(nil), o.Secret...)
	verify := o.Verify
	if verify == nil {
		header, prefix, enc := o.Header, o.Prefix, o.Encoding
		verify = func(_ []byte, h http.Header, body []byte) bool {
			return verifyHMAC(key, body, h.Get(header), prefix, enc)
		}
	}
	window := o.ReplayWindow
	if window <= 0 {
		window = 5 * time.Minute
	}
	wh := &Webhook{box: notify.Mailbox{Keep: o.Keep, MaxKept: o.MaxKept}}
	wh.recv = notify.Receiver{
		Mailbox:            &wh.box,
		MaxBody:            o.MaxBody,
		ReadTimeout:        o.ReadTimeout,
		MaxConcurrentReads: o.MaxConcurrentReads,
		Logger:             o.Logger,
		Verify: func(h http.Header, body []byte) bool {
			if !verify(key, h, body) {
				return false
			}
			if o.Time == nil {
				return true
			}
			at, ok := o.Time(h, body)
			d := time.Since(at)
			return ok && d <= window && d >= -window
		},
		Parse: o.Parse,
	}
	return wh, nil
}

// ServeHTTP implements http.Handler.
func (wh *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) { wh.recv.ServeHTTP(w, r) }

// Watch calls wake for each new verified notification for id until stop is called, and at
// once when one arrived before. wake must not block: a [Wait]'s wake does not. In a Wait w:
//
//	w.Watch = append(w.Watch, func(wake func(), _ func(*transport.Result)) (stop func()) {
//		return wh.Watch(id, wake) // a verified notification for id makes the wait poll at once
//	})
func (wh *Webhook) Watch(id string, wake func()) (stop func()) { return wh.box.Watch(id, wake) }

// verifyHMAC reports whether header is prefix followed by the HMAC-SHA256 of body under
// secret, in enc (nil: hex), compared in constant time.
func verifyHMAC(secret, body []byte, header, prefix string, enc *base64.Encoding) bool {
	if enc == nil {
		return notify.VerifyHMACSHA256(secret, body, header, prefix)
	}
	if len(secret) == 0 || !strings.HasPrefix(header, prefix) {
		return false
	}
	// One spelling per MAC: the canonical one (no stray bits, no CR or LF), with at most one
	// padding '=' (a 32-byte MAC has one).
	v := strings.TrimSuffix(strings.TrimPrefix(header, prefix), "=")
	got, err := b64.Canonical(enc, v)
	if err != nil || len(got) != sha256.Size {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hmac.Equal(mac.Sum(nil), got)
}
