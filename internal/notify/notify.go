// Package notify routes notifications a server POSTs to the agent (signed callbacks, push
// notifications) to the waits they concern.
package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hitlkit/hitlkit/internal/httpx"
)

// Defaults of a [Mailbox]'s zero fields.
const (
	// DefaultKeep is how long a notification that arrived before its wait began is kept.
	DefaultKeep = time.Hour
	// DefaultMaxKept is how many keys with such a notification are kept at once.
	DefaultMaxKept = 10000
)

// ErrMailboxFull: a notification arrived for a key nobody waits on and the mailbox already
// keeps MaxKept of them. A [Receiver] answers 503, so the sender retries later.
var ErrMailboxFull = errors.New("mailbox full")

// Mailbox routes notifications — callbacks, push notifications — to the waits they concern,
// by key (a case or task id). A notification is a wake-up call, not the outcome: the wait
// confirms it with a poll. One that arrives before its wait begins is kept (up to Keep) and
// wakes the wait when it begins. The same (key, event) is delivered once.
//
// The zero Mailbox is ready to use; set Keep and MaxKept before first use. A Mailbox is safe
// for concurrent use.
type Mailbox struct {
	// Keep: 0 means DefaultKeep. MaxKept: 0 means DefaultMaxKept.
	Keep    time.Duration
	MaxKept int

	mu    sync.Mutex
	boxes map[string]*box
	next  int
}

type box struct {
	events   []string
	watchers map[int]func()
	keptAt   time.Time // when a notification arrived with nobody watching; zero otherwise
}

// Deliver records event for key and wakes every wait on key. It reports false, and wakes
// nobody, when (key, event) was delivered before. It returns ErrMailboxFull when nobody waits
// on key and the mailbox is full.
func (m *Mailbox) Deliver(key, event string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	b := m.boxes[key]
	if b == nil {
		if m.kept(now) >= orDefault(m.MaxKept, DefaultMaxKept) {
			return false, ErrMailboxFull
		}
		if m.boxes == nil {
			m.boxes = make(map[string]*box)
		}
		b = &box{}
		m.boxes[key] = b
	}
	for _, e := range b.events {
		if e == event {
			return false, nil
		}
	}
	b.events = append(b.events, event)
	if len(b.watchers) == 0 {
		b.keptAt = now
	}
	for _, wake := range b.watchers {
		wake()
	}
	return true, nil
}

// kept drops expired unwatched boxes and counts the rest. Guarded by mu.
func (m *Mailbox) kept(now time.Time) int {
	n := 0
	for k, b := range m.boxes {
		switch {
		case len(b.watchers) > 0:
		case now.Sub(b.keptAt) >= orDefault(m.Keep, DefaultKeep):
			delete(m.boxes, k)
		default:
			n++
		}
	}
	return n
}

// Watch calls wake for each new notification for key until stop is called, and once at once
// when a notification for key arrived before. wake is called with the Mailbox locked: it must
// not block, and should only signal (a non-blocking channel send).
func (m *Mailbox) Watch(key string, wake func()) (stop func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.boxes == nil {
		m.boxes = make(map[string]*box)
	}
	b := m.boxes[key]
	if b == nil {
		b = &box{}
		m.boxes[key] = b
	}
	if b.watchers == nil {
		b.watchers = make(map[int]func())
	}
	id := m.next
	m.next++
	b.watchers[id] = wake
	if !b.keptAt.IsZero() {
		b.keptAt = time.Time{}
		wake()
	}
	return func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		delete(b.watchers, id)
		if len(b.watchers) == 0 && m.boxes[key] == b {
			delete(m.boxes, key)
		}
	}
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Receiver is an http.Handler for notifications a server POSTs to the agent: it reads a
// bounded body, verifies it, and hands it to a [Mailbox].
//
// Anyone can reach a receiver, and a body can be verified only once it is read, so every body
// is read under a size limit and a deadline, and only so many at once (see the fields).
// Serve it from an [http.Server] with ReadHeaderTimeout set (10 s is plenty), so that a
// client cannot hold a connection by trickling its headers either.
//
// Answers: 200 for a verified notification, duplicates included (so the sender stops
// retrying); 401 when Verify refuses (nothing is delivered); 400 when Parse fails or the
// body is not read within ReadTimeout; 405 for a method other than POST; 413 for a body over
// MaxBody; 503 when the mailbox is full or MaxConcurrentReads bodies are being read; 500 when
// a required field is missing. A Receiver is safe for concurrent use once set up; it must not
// be copied after first use.
type Receiver struct {
	// Mailbox receives the notifications. Required.
	Mailbox *Mailbox
	// Verify authenticates the raw body and headers. Required.
	Verify func(h http.Header, body []byte) bool
	// Parse returns the key (case or task id) and event of a verified body. Required.
	Parse func(body []byte) (key, event string, err error)
	// MaxBody is the largest body read. 0 means 64 KiB.
	MaxBody int64
	// ReadTimeout bounds the reading of one body: a slow or stalled sender is cut off. 0
	// means 10 s.
	ReadTimeout time.Duration
	// MaxConcurrentReads caps the bodies read at once; more are answered 503 at once. 0
	// means 64.
	MaxConcurrentReads int
	// Logger receives a debug record per notification (key and event only). Nil is silent.
	Logger *slog.Logger

	intake     httpx.Intake
	intakeOnce sync.Once
}

// ServeHTTP implements http.Handler.
func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rc.Mailbox == nil || rc.Verify == nil || rc.Parse == nil {
		http.Error(w, "receiver not configured", http.StatusInternalServerError)
		return
	}
	rc.intakeOnce.Do(func() {
		rc.intake = httpx.Intake{Limit: rc.MaxBody, Timeout: rc.ReadTimeout, MaxReads: rc.MaxConcurrentReads}
	})
	body, ok := rc.intake.ReadPost(w, r)
	if !ok {
		return
	}
	if !rc.Verify(r.Header, body) {
		rc.log(r, slog.LevelWarn, "notification refused: bad or missing signature")
		http.Error(w, "invalid signature", http.StatusUnauthorized)
		return
	}
	key, event, err := rc.Parse(body)
	if err != nil {
		rc.log(r, slog.LevelWarn, "notification refused: "+err.Error())
		http.Error(w, "invalid notification", http.StatusBadRequest)
		return
	}
	fresh, err := rc.Mailbox.Deliver(key, event)
	if err != nil {
		w.Header().Set("Retry-After", "30")
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return
	}
	rc.log(r, slog.LevelDebug, "notification", slog.String("key", key), slog.String("event", event), slog.Bool("duplicate", !fresh))
	w.WriteHeader(http.StatusOK)
}

func (rc *Receiver) log(r *http.Request, level slog.Level, msg string, attrs ...slog.Attr) {
	if rc.Logger != nil {
		rc.Logger.LogAttrs(r.Context(), level, msg, attrs...)
	}
}

// VerifyHMACSHA256 reports whether header is prefix followed by the hex HMAC-SHA256 of body
// under secret, comparing in constant time. Hex digits may be upper or lower case. An empty
// secret verifies nothing.
func VerifyHMACSHA256(secret, body []byte, header, prefix string) bool {
	if len(secret) == 0 || !strings.HasPrefix(header, prefix) {
		return false
	}
	got, err := hex.DecodeString(strings.TrimPrefix(header, prefix))
	if err != nil || len(got) != sha256.Size {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hmac.Equal(mac.Sum(nil), got)
}

// SignHMACSHA256 returns prefix followed by the lower-case hex HMAC-SHA256 of body under
// secret: the header value VerifyHMACSHA256 accepts. Fakes and tests sign with it.
func SignHMACSHA256(secret, body []byte, prefix string) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return prefix + hex.EncodeToString(mac.Sum(nil))
}
