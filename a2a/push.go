package a2a

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/notify"
)

// The headers an agent echoes a push configuration's token in: 0.3's X-A2A-Notification-Token
// (0.3 §9.5 example), and a2a-go v2's A2A-Notification-Token.
const (
	tokenHeader       = "X-A2A-Notification-Token"
	tokenHeaderBare   = "A2A-Notification-Token"
	authorizationName = "Authorization"
)

// PushReceiver is the agent's webhook for A2A push notifications (0.3 §9, 1.0 §4.3.3). It
// accepts every body shape agents send — a bare Task (0.3, with or without kind), a 1.0
// StreamResponse ({"task"}, {"statusUpdate"}, …), states in either spelling — and wakes the
// [Client.Wait] of the task it names, which then confirms the state with GetTask: a
// notification is never taken as the outcome.
//
// Answers: 401 when the token or the Authorization header does not match (nothing is
// delivered); 200 for a notification it accepted, for a duplicate (delivered once), and for
// a task id no wait expects (ignored, as 0.3 §9.5 asks); 400 for a body that is not A2A or
// not read within ReadTimeout; 405 for a method other than POST; 413 past MaxBody; 503 when
// MaxConcurrentReads bodies are being read. A notification whose token or Authorization
// header is wrong is refused before its body is read. Anyone can reach the receiver: serve
// it from an [http.Server] with ReadHeaderTimeout set. Set the fields before serving; a
// PushReceiver is then safe for concurrent use, and must not be copied.
type PushReceiver struct {
	// Token is the token the push configuration registered; it must arrive in
	// X-A2A-Notification-Token or A2A-Notification-Token. Empty: not checked.
	Token string
	// Authorization is the exact Authorization header the agent was told to send
	// ("Bearer …", "Basic …"). Empty: not checked. With Token, Authorization and JWT all
	// empty every notification is refused: an unauthenticated webhook would let anyone wake
	// the waits.
	Authorization string
	// JWT, when set, requires a signed notification and verifies it (see [JWTVerifier]);
	// Authorization is then not compared.
	JWT *JWTVerifier
	// MaxBody is the largest body read. 0 means 64 KiB: anyone can reach the receiver.
	MaxBody int64
	// ReadTimeout bounds the reading of one body; a slow or stalled sender is cut off. 0
	// means 10 s.
	ReadTimeout time.Duration
	// MaxConcurrentReads caps the bodies read at once; more are answered 503 at once. 0
	// means 64.
	MaxConcurrentReads int
	// Logger receives a debug record per notification (task id and state only). Nil is silent.
	Logger *slog.Logger

	mailbox    notify.Mailbox
	mu         sync.Mutex
	expect     map[string]int
	intake     httpx.Intake
	intakeOnce sync.Once
}

// ServeHTTP implements http.Handler.
func (r *PushReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method == http.MethodPost && !r.headersAuthentic(req) {
		// Refused on its headers alone: the body is not read.
		r.log(req, slog.LevelWarn, "push refused: bad or missing credentials")
		httpx.Refuse(w, http.StatusUnauthorized, "unauthorized")
		return
	}
	r.intakeOnce.Do(func() {
		r.intake = httpx.Intake{Limit: r.MaxBody, Timeout: r.ReadTimeout, MaxReads: r.MaxConcurrentReads}
	})
	body, ok := r.intake.ReadPost(w, req)
	if !ok {
		return
	}
	if r.JWT != nil && r.JWT.Verify(req.Context(), req.Header.Get(authorizationName), body) != nil {
		r.log(req, slog.LevelWarn, "push refused: bad or missing credentials")
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	ev, err := Decode(body)
	if err != nil || ev.TaskID() == "" {
		r.log(req, slog.LevelWarn, "push refused: not an A2A task event")
		http.Error(w, "not an A2A task event", http.StatusBadRequest)
		return
	}
	id := ev.TaskID()
	if !r.expected(id) {
		r.log(req, slog.LevelDebug, "push ignored: unknown task", slog.String("task", id))
		w.WriteHeader(http.StatusOK)
		return
	}
	sum := sha256.Sum256(body)
	fresh, err := r.mailbox.Deliver(id, hex.EncodeToString(sum[:]))
	if err != nil {
		w.Header().Set("Retry-After", "30")
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return
	}
	r.log(req, slog.LevelDebug, "push", slog.String("task", id), slog.Bool("duplicate", !fresh))
	w.WriteHeader(http.StatusOK)
}

// headersAuthentic checks what the headers alone can prove: the token and the exact
// Authorization header. A JWT is checked once the body is read (it signs the body's hash).
func (r *PushReceiver) headersAuthentic(req *http.Request) bool {
	h := req.Header
	if r.Token == "" && r.Authorization == "" && r.JWT == nil {
		return false
	}
	if r.Token != "" {
		got := h.Get(tokenHeader)
		if got == "" {
			got = h.Get(tokenHeaderBare)
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(r.Token)) != 1 {
			return false
		}
	}
	if r.JWT == nil && r.Authorization != "" {
		return subtle.ConstantTimeCompare([]byte(h.Get(authorizationName)), []byte(r.Authorization)) == 1
	}
	return true
}

// Expect makes the receiver accept notifications for taskID until forget is called, without
// a wait: for a caller that registers the webhook before it waits. A wait given the
// receiver expects its task by itself.
func (r *PushReceiver) Expect(taskID string) (forget func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.expect == nil {
		r.expect = map[string]int{}
	}
	r.expect[taskID]++
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			if r.expect[taskID]--; r.expect[taskID] <= 0 {
				delete(r.expect, taskID)
			}
		})
	}
}

func (r *PushReceiver) expected(taskID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.expect[taskID] > 0
}

// watch expects taskID and calls wake on each new notification for it until stop.
func (r *PushReceiver) watch(taskID string, wake func()) (stop func()) {
	forget := r.Expect(taskID)
	unwatch := r.mailbox.Watch(taskID, wake)
	return func() { unwatch(); forget() }
}

func (r *PushReceiver) log(req *http.Request, level slog.Level, msg string, attrs ...slog.Attr) {
	if r.Logger != nil {
		r.Logger.LogAttrs(req.Context(), level, msg, attrs...)
	}
}
