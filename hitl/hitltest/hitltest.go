package hitltest

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/inflight"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/transport"
)

// Server is a running fake service.
type Server struct {
	// URL is the base URL: http://127.0.0.1:port for a loopback server, https://hitl.test for
	// an in-memory one.
	URL string

	cfg     config
	handler http.Handler
	srv     *httptest.Server
	client  *http.Client
	closed  chan struct{}
	once    sync.Once
	created chan string

	// stop ends stalled handlers, streams and callback deliveries on Close; deliveries
	// counts the deliveries still running.
	stop           context.Context
	cancel         context.CancelFunc
	deliveries     inflight.Group
	callbackClient *http.Client

	mu             sync.Mutex
	cases          map[string]*fakeCase
	faults         map[string][]Fault
	streamFaults   map[string][]StreamFault
	callbackFaults map[string][]CallbackFault
	submitFaults   map[string][]int
	requests       []Request
	callbacks      []Callback
}

// Request is one request the server received, for assertions.
type Request struct {
	Method string
	Path   string
	// CaseID is the case the request concerned, when it named one.
	CaseID string
	Header http.Header
	// Status is the status the server answered with.
	Status int
	Time   time.Time
}

// Profile is a model of one family of real services. Tests run against every profile, so that
// the client is held to what services do, not to one reading of the specification.
type Profile int

// Profiles for WithProfile.
const (
	// ProfileSpec follows the specification: events_url in every 202, event streams that
	// resume after Last-Event-ID and close after a terminal event, the configured
	// Retry-After on 202s and on waiting polls.
	ProfileSpec Profile = iota
	// ProfileReference behaves as the protocol's reference services: no events_url in the
	// 202 — the stream is served at /api/reviews/{id}/events (polls at
	// /api/reviews/{id}/status) and advertised by the discovery document's reviews_base and
	// transports — a first event review.pending, Last-Event-ID ignored (every connection
	// replays from the start), the stream left open after a terminal event, Retry-After: 30
	// on the 202 and none on a 304, and poll routes that take no credential.
	ProfileReference
	// ProfileLive behaves as the one production HITL service found (spec 0.6, its public
	// agent guide), exactly where it departs from the specification: callbacks signed
	// "X-HITL-Signature: algorithm=HS256, value=<base64url>"; a 202 with timeout "24h" and
	// without prompt, created_at and expires_at; each event stream opening with a
	// review.status event carrying the poll response's fields, event ids
	// {case_id}-{counter}; polls paced by Retry-After: 30 while pending and 10 while the human
	// is at it (opened, in_progress), whatever WithRetryAfter says; and a submitted answer
	// that may change for LiveChangeWindow (Respond or an inline submit again), after which
	// Respond fails with ErrEnded and an inline submit gets 409.
	ProfileLive
)

// LiveChangeWindow is how long ProfileLive lets a submitted answer change.
const LiveChangeWindow = 5 * time.Minute

// Profiles lists every profile, for tests that run against each.
func Profiles() []Profile { return []Profile{ProfileSpec, ProfileReference, ProfileLive} }

func (p Profile) String() string {
	switch p {
	case ProfileReference:
		return "reference"
	case ProfileLive:
		return "live"
	}
	return "spec"
}

// WithProfile makes the server behave as profile p (default ProfileSpec).
func WithProfile(p Profile) Option { return func(c *config) { c.profile = p } }

// referenceRetryAfter is the Retry-After the reference services send on a 202.
const referenceRetryAfter = 30 * time.Second

type config struct {
	profile         Profile
	retryAfter      time.Duration
	rateLimit       int
	lifetime        time.Duration
	noEvents        bool
	heartbeat       time.Duration
	secret          []byte
	callbackHandler http.Handler
	callbackRetries []time.Duration
	discovery       DiscoveryShape
}

// Option configures a Server.
type Option func(*config)

// WithRetryAfter sets the Retry-After the server sends on a waiting case's polls and on 202s.
// Default 1 s.
func WithRetryAfter(d time.Duration) Option { return func(c *config) { c.retryAfter = d } }

// WithRateLimit sets how many polls per minute one case answers before 429 (HITL Protocol
// §13.5: 60). Default 60.
func WithRateLimit(perMinute int) Option { return func(c *config) { c.rateLimit = perMinute } }

// WithCaseLifetime sets how long a new case stays open before it expires. Default 24 h.
func WithCaseLifetime(d time.Duration) Option { return func(c *config) { c.lifetime = d } }

// WithoutEvents leaves events_url out of the cases: the service offers polling only.
func WithoutEvents() Option { return func(c *config) { c.noEvents = true } }

// WithHeartbeat makes event streams send a comment line every d (the spec defines no
// keepalive; many servers send one). Default: none.
func WithHeartbeat(d time.Duration) Option { return func(c *config) { c.heartbeat = d } }

// WithCallbackSecret sets the secret callbacks are signed with (HMAC-SHA256, §9). Default
// [DefaultCallbackSecret].
func WithCallbackSecret(secret []byte) Option {
	return func(c *config) { c.secret = append([]byte(nil), secret...) }
}

// WithCallbackHandler delivers callbacks to h in memory, whatever hitl_callback_url says,
// instead of over HTTP: usable inside a testing/synctest bubble.
func WithCallbackHandler(h http.Handler) Option { return func(c *config) { c.callbackHandler = h } }

// DefaultCallbackSecret signs callbacks unless WithCallbackSecret says otherwise.
const DefaultCallbackSecret = "hitltest-callback-secret"

func newServer(opts []Option) *Server {
	s := &Server{
		cfg: config{retryAfter: time.Second, rateLimit: 60, lifetime: 24 * time.Hour,
			secret: []byte(DefaultCallbackSecret),
			// §9: the service retries a failed callback at most 3 times, after 1 s, 5 s, 30 s.
			callbackRetries: []time.Duration{time.Second, 5 * time.Second, 30 * time.Second}},
		closed:         make(chan struct{}),
		created:        make(chan string, 4096),
		cases:          make(map[string]*fakeCase),
		faults:         make(map[string][]Fault),
		streamFaults:   make(map[string][]StreamFault),
		callbackFaults: make(map[string][]CallbackFault),
		submitFaults:   make(map[string][]int),
	}
	s.stop, s.cancel = context.WithCancel(context.Background())
	for _, o := range opts {
		o(&s.cfg)
	}
	s.handler = s.routes()
	if s.cfg.callbackHandler != nil {
		s.callbackClient = &http.Client{Transport: &memhttp.Transport{Handler: s.cfg.callbackHandler}}
	} else {
		s.callbackClient = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	return s
}

// NewUnstartedServer returns a server that is not yet listening, for programs and demos:
// [Server.Start] or [Server.StartTLS] starts it, and the caller must Close it. Tests use
// [NewServer].
func NewUnstartedServer(opts ...Option) *Server { return newServer(opts) }

// Start starts the server on a loopback port. It panics if the server was already started.
func (s *Server) Start() {
	if s.URL != "" {
		panic("hitltest: Server already started")
	}
	s.srv = httptest.NewUnstartedServer(s.handler)
	s.URL = "http://" + s.srv.Listener.Addr().String() // before serving: the handlers read it
	s.srv.Start()
	s.client = s.srv.Client()
}

// StartTLS starts the server on a loopback port over TLS with HTTP/2, as production services
// are reached: many waits share one connection. Its certificate is [Server.Certificate];
// [Server.Client] trusts it. Clients must allow private addresses (the URL is
// https://127.0.0.1:port). It panics if the server was already started.
func (s *Server) StartTLS() {
	if s.URL != "" {
		panic("hitltest: Server already started")
	}
	s.srv = httptest.NewUnstartedServer(s.handler)
	s.srv.EnableHTTP2 = true
	s.URL = "https://" + s.srv.Listener.Addr().String() // before serving: the handlers read it
	s.srv.StartTLS()
	s.client = s.srv.Client()
}

// Certificate returns the certificate of a server started with [Server.StartTLS], nil
// otherwise.
func (s *Server) Certificate() *x509.Certificate {
	if s.srv == nil || s.srv.TLS == nil {
		return nil
	}
	return s.srv.Certificate()
}

// NewServer starts a server on a loopback port and closes it when tb's test ends.
func NewServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	if httpx.InBubble() {
		tb.Fatal("hitltest: NewServer listens on loopback, which inside a testing/synctest bubble hangs the test: use NewMemoryServer")
	}
	s := newServer(opts)
	s.Start()
	tb.Cleanup(s.Close)
	return s
}

// NewMemoryServer returns a server reached only through [Server.Client], over an in-memory
// transport: no socket, usable inside a testing/synctest bubble. Its URL is
// https://hitl.test.
func NewMemoryServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := newServer(opts)
	s.URL = "https://hitl.test"
	s.client = &http.Client{Transport: &memhttp.Transport{Handler: s.handler}}
	tb.Cleanup(s.Close)
	return s
}

// Client returns an HTTP client that reaches the server.
func (s *Server) Client() *http.Client { return s.client }

// Close ends stalled requests, open event streams and pending callback deliveries, and shuts
// the server down; it returns when every delivery begun has ended, and once it has begun no
// new delivery starts. It may be called more than once.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closed)
		s.cancel()
		s.mu.Lock()
		for _, c := range s.cases {
			c.stopTimers()
		}
		s.mu.Unlock()
		s.deliveries.Close()
		s.callbackClient.CloseIdleConnections()
		if s.srv != nil {
			s.srv.Close()
		}
	})
}

// NextCase returns the id of the next case created by a call to the server, in creation
// order, blocking until there is one or done is closed (then it returns "").
func (s *Server) NextCase(done <-chan struct{}) string {
	select {
	case id := <-s.created:
		return id
	case <-done:
		return ""
	}
}

// Requests returns a copy of every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	copy(out, s.requests)
	return out
}

// Fault is a failure the server injects in place of a poll's normal answer.
type Fault int

// Faults for FailNext.
const (
	// Fault503 answers 503 without Retry-After.
	Fault503 Fault = iota + 1
	// Fault500 answers 500.
	Fault500
	// Fault429 answers 429 with Retry-After in seconds (the server's retry-after).
	Fault429
	// Fault429Date answers 429 with Retry-After as an HTTP-date.
	Fault429Date
	// FaultTruncated answers 200 with a truncated JSON body.
	FaultTruncated
	// FaultOversized answers 200 with a 2 MiB body.
	FaultOversized
	// FaultStall sends nothing until the client gives up or the server closes.
	FaultStall
	// FaultResetMidBody sends the headers and half a body, then resets the connection.
	FaultResetMidBody
	// FaultUnauthorized answers 401.
	FaultUnauthorized
	// FaultNotFound answers 404 {"error":"not_found"}, as the reference services do.
	FaultNotFound
	// FaultGone answers 410.
	FaultGone
)

// FailNext makes the next n polls of caseID (any case when caseID is "") fail with f.
func (s *Server) FailNext(caseID string, f Fault, n int) { enqueue(s, s.faults, caseID, f, n) }

// CaseState is a snapshot of a case, for assertions.
type CaseState struct {
	ID, Type, State string
	ReviewURL       string
	Polls           int
	// Action and Data are the answer recorded, when the case was completed.
	Action string
	Data   json.RawMessage
}

// Case returns a snapshot of a case.
func (s *Server) Case(id string) (CaseState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.cases[id]
	if !ok {
		return CaseState{}, false
	}
	s.expireIfDue(c, time.Now())
	return CaseState{ID: c.id, Type: c.typ, State: c.state, ReviewURL: c.reviewURL(s.URL), Polls: c.polls,
		Action: c.action, Data: append(json.RawMessage(nil), c.data...)}, true
}

// ErrNotFound reports an unknown case id; ErrEnded a case already in a terminal state.
var (
	ErrNotFound = errors.New("hitltest: no such case")
	ErrEnded    = errors.New("hitltest: case already ended")
)

// Open marks the case opened, as a human's first visit to the review page does.
func (s *Server) Open(id string) error {
	return s.update(id, func(c *fakeCase, now time.Time) {
		if c.state == "pending" {
			c.state, c.openedAt = "opened", now
		}
	})
}

// remindIfWaiting is a reminder_at time: the service reminds the human when the case still
// waits for them to start (pending or opened).
func (s *Server) remindIfWaiting(c *fakeCase) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireIfDue(c, time.Now())
	if c.state == "pending" || c.state == "opened" {
		c.remind(time.Now(), "")
	}
}

// remind records a reminder sent now. Guarded by Server.mu.
func (c *fakeCase) remind(now time.Time, message string) {
	c.reminderAt = now
	c.version++
	c.emit("review.reminder", map[string]any{"case_id": c.id, "reminder_at": stamp(now), "message": message})
}

// Remind records a reminder sent to the human now (reminder_sent_at on the poll, a
// review.reminder event on the stream) with message.
func (s *Server) Remind(id, message string) error {
	return s.update(id, func(c *fakeCase, now time.Time) { c.remind(now, message) })
}

// Progress marks the case in_progress with p.
func (s *Server) Progress(id string, p hitl.Progress) error {
	return s.update(id, func(c *fakeCase, now time.Time) {
		if c.openedAt.IsZero() {
			c.openedAt = now
		}
		c.state, c.progress = "in_progress", &p
	})
}

// Respond completes the case as a human would: action and data become the poll's result
// (data is marshalled to JSON; nil sends {}), by becomes responded_by.
func (s *Server) Respond(id, action string, data any, by *transport.Responder) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if data == nil {
		raw = []byte("{}")
	}
	if changed, err := s.change(id, action, raw, by); changed || err != nil {
		return err
	}
	return s.update(id, func(c *fakeCase, now time.Time) {
		if c.openedAt.IsZero() {
			c.openedAt = now
		}
		c.state, c.endedAt, c.action, c.data, c.by = "completed", now, action, raw, by
		if len(c.policy) > 0 {
			// The review page is where a browser_submit policy is checked; the fake's
			// human always passes it.
			c.submission = map[string]any{"mode": "browser_submit",
				"verification_result": map[string]any{"satisfied": true, "verified_evidence": []any{}, "missing_requirements": []any{}}}
		}
	})
}

// change is Respond on a case ProfileLive completed less than LiveChangeWindow ago: the
// answer is replaced (completed_at stays the first submission's). It reports false when the
// case is not such a case.
func (s *Server) change(id, action string, data json.RawMessage, by *transport.Responder) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.cases[id]
	if !ok || s.cfg.profile != ProfileLive || c.state != "completed" {
		return false, nil
	}
	if !c.changeable(time.Now()) {
		return true, ErrEnded
	}
	c.action, c.data, c.by = action, data, by
	s.changed(c)
	return true, nil
}

// changeable reports whether a completed case of ProfileLive may still change its answer.
func (c *fakeCase) changeable(now time.Time) bool {
	return c.live && c.state == "completed" && now.Before(c.endedAt.Add(LiveChangeWindow))
}

// Cancel cancels the case, with an optional reason.
func (s *Server) Cancel(id, reason string) error {
	return s.update(id, func(c *fakeCase, now time.Time) {
		c.state, c.endedAt, c.reason = "cancelled", now, reason
	})
}

// Expire ends the case as expired now, with its default action.
func (s *Server) Expire(id string) error {
	return s.update(id, func(c *fakeCase, now time.Time) {
		c.state, c.endedAt = "expired", now
	})
}

func (s *Server) update(id string, f func(*fakeCase, time.Time)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.cases[id]
	if !ok {
		return ErrNotFound
	}
	now := time.Now()
	s.expireIfDue(c, now)
	if c.terminal() {
		return ErrEnded
	}
	state, progress := c.state, c.progress
	f(c, now)
	if c.state != state || c.progress != progress {
		s.changed(c)
	}
	return nil
}

// changed records a new state of c: a new version for the ETag, an event for its streams,
// and, for a terminal state, a callback. Guarded by mu.
func (s *Server) changed(c *fakeCase) {
	c.version++
	name := "review." + c.state
	data := map[string]any{"case_id": c.id}
	switch c.state {
	case "opened":
		data["opened_at"] = stamp(c.openedAt)
	case "in_progress":
		data["opened_at"] = stamp(c.openedAt)
		if c.progress != nil {
			data["progress"] = c.progress
		}
	case "completed":
		data["completed_at"] = stamp(c.endedAt)
		data["result"] = map[string]any{"action": c.action, "data": c.data}
		if c.by != nil {
			data["responded_by"] = c.by // optional in the event (OpenAPI), sent when known
		}
	case "expired":
		data["expired_at"] = stamp(c.endedAt)
		data["default_action"] = c.defaultAction
	case "cancelled":
		data["cancelled_at"] = stamp(c.endedAt)
		data["reason"] = c.reason
	default:
		return
	}
	c.emit(name, data)
	if c.terminal() {
		c.stopTimers()
		if c.callbackURL != "" {
			s.sendCallback(c, name)
		}
	}
}

// expireIfDue ends c as expired when its time is up. Guarded by mu.
func (s *Server) expireIfDue(c *fakeCase, now time.Time) {
	if !c.terminal() && !now.Before(c.expiresAt) {
		c.state, c.endedAt = "expired", c.expiresAt
		s.changed(c)
	}
}

// fakeCase is one case's state. Guarded by Server.mu.
type fakeCase struct {
	id, typ, token, prompt, defaultAction string
	context                               json.RawMessage
	state                                 string
	createdAt, expiresAt                  time.Time
	openedAt, endedAt                     time.Time
	progress                              *hitl.Progress
	action                                string
	data                                  json.RawMessage
	by                                    *transport.Responder
	reason                                string
	reminderAt                            time.Time
	callbackURL                           string
	version                               int
	polls                                 int
	window                                []time.Time
	expiry                                *time.Timer
	reminders                             []*time.Timer
	submitToken                           string
	inlineActions                         []string
	policy                                json.RawMessage
	submission                            map[string]any
	previous, next                        string
	live                                  bool // ProfileLive's case

	// events is the case's event stream so far; news is closed and replaced each time an
	// event is added, to wake the streams.
	events []streamEvent
	news   chan struct{}
}

func (c *fakeCase) stopTimers() {
	c.expiry.Stop()
	for _, t := range c.reminders {
		t.Stop()
	}
}

func (c *fakeCase) terminal() bool {
	return c.state == "completed" || c.state == "expired" || c.state == "cancelled"
}

func (c *fakeCase) reviewURL(base string) string {
	return base + "/review/" + c.id + "?token=" + c.token
}

func (c *fakeCase) etag() string { return `"v` + strconv.Itoa(c.version) + "-" + c.state + `"` }

// pollBody is the §8 poll response for the case's state.
func (c *fakeCase) pollBody() map[string]any {
	b := map[string]any{"status": c.state, "case_id": c.id, "created_at": stamp(c.createdAt), "expires_at": stamp(c.expiresAt)}
	if !c.openedAt.IsZero() {
		b["opened_at"] = stamp(c.openedAt)
	}
	if !c.reminderAt.IsZero() {
		b["reminder_sent_at"] = stamp(c.reminderAt)
	}
	switch c.state {
	case "in_progress":
		if c.progress != nil {
			b["progress"] = c.progress
		}
	case "completed":
		b["completed_at"] = stamp(c.endedAt)
		b["result"] = map[string]any{"action": c.action, "data": c.data}
		if c.by != nil {
			b["responded_by"] = c.by
		}
		if c.submission != nil {
			b["submission_context"] = c.submission
		}
		if c.next != "" {
			b["next_case_id"] = c.next
		}
	case "expired":
		b["expired_at"] = stamp(c.endedAt)
		b["default_action"] = c.defaultAction
	case "cancelled":
		b["cancelled_at"] = stamp(c.endedAt)
		if c.reason != "" {
			b["reason"] = c.reason
		}
	}
	return b
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "review_" + hex.EncodeToString(b[:])
}

// newToken returns a 43-character base64url token of 256 bits (HITL Protocol §13.1).
func newToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func tokenOK(c *fakeCase, got string) bool { return equalSecret(c.token, got) }

func equalSecret(want, got string) bool {
	return subtle.ConstantTimeCompare([]byte(want), []byte(got)) == 1
}

func secondsCeil(d time.Duration) string {
	return strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// FlowCall reads one of the HITL Protocol's example flows (a conformance vector's JSON) and
// returns the body of a call that makes the fake ask the same question: the flow's prompt
// and context, from the first 202 in its steps.
func FlowCall(flow []byte) (string, error) {
	var f struct {
		Steps []struct {
			Response struct {
				Body struct {
					HITL *struct {
						Prompt  string          `json:"prompt"`
						Context json.RawMessage `json:"context"`
					} `json:"hitl"`
				} `json:"body"`
			} `json:"response"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(flow, &f); err != nil {
		return "", fmt.Errorf("hitltest: FlowCall: %w", err)
	}
	for _, st := range f.Steps {
		if h := st.Response.Body.HITL; h != nil {
			b, err := json.Marshal(map[string]any{"prompt": h.Prompt, "context": h.Context})
			return string(b), err
		}
	}
	return "", errors.New("hitltest: FlowCall: the flow has no hitl object")
}
