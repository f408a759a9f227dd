// Package hitltest is a fake HITL Protocol service for tests, demos and examples, in the
// shape of net/http/httptest.
//
// It plays both sides an agent meets: the service that answers a call with a 202 and a hitl
// object (POST /actions/{type}), and the review service behind it (the poll endpoint and a
// plain review page). A test scripts the human (Open, Progress, Respond, Cancel, Expire),
// injects faults (FailNext), and inspects what the agent sent (Requests).
//
// [NewServer] binds loopback and registers its own cleanup; [NewMemoryServer] serves through
// an in-memory transport, with no socket, so it works inside a testing/synctest bubble;
// [Start] is NewServer for programs, which call Close themselves.
//
// All methods are safe for concurrent use.
package hitltest

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/internal/memhttp"
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

	mu       sync.Mutex
	cases    map[string]*fakeCase
	faults   map[string][]Fault
	requests []Request
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

type config struct {
	retryAfter time.Duration
	rateLimit  int
	lifetime   time.Duration
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

func newServer(opts []Option) *Server {
	s := &Server{
		cfg:     config{retryAfter: time.Second, rateLimit: 60, lifetime: 24 * time.Hour},
		closed:  make(chan struct{}),
		created: make(chan string, 4096),
		cases:   make(map[string]*fakeCase),
		faults:  make(map[string][]Fault),
	}
	for _, o := range opts {
		o(&s.cfg)
	}
	s.handler = s.routes()
	return s
}

// Start starts a server on a loopback port. The caller must Close it.
func Start(opts ...Option) *Server {
	s := newServer(opts)
	s.srv = httptest.NewServer(s.handler)
	s.URL = s.srv.URL
	s.client = s.srv.Client()
	return s
}

// NewServer starts a server on a loopback port and closes it when tb's test ends.
func NewServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := Start(opts...)
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

// Close ends stalled requests and shuts the server down. It may be called more than once.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closed)
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
	// FaultMalformedJSON answers 200 with a truncated JSON body.
	FaultMalformedJSON
	// FaultOversized answers 200 with a 2 MiB body.
	FaultOversized
	// FaultStall sends nothing until the client gives up or the server closes.
	FaultStall
	// FaultUnauthorized answers 401.
	FaultUnauthorized
	// FaultNotFound answers 404 {"error":"not_found"}, as the reference services do.
	FaultNotFound
	// FaultGone answers 410.
	FaultGone
)

// FailNext makes the next n polls of caseID (any case when caseID is "") fail with f.
func (s *Server) FailNext(caseID string, f Fault, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults[caseID] = append(s.faults[caseID], f)
	}
}

// CaseState is a snapshot of a case, for assertions.
type CaseState struct {
	ID, Type, State string
	ReviewURL       string
	Polls           int
}

// Case returns a snapshot of a case.
func (s *Server) Case(id string) (CaseState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.cases[id]
	if !ok {
		return CaseState{}, false
	}
	c.expireIfDue(time.Now())
	return CaseState{ID: c.id, Type: c.typ, State: c.state, ReviewURL: c.reviewURL(s.URL), Polls: c.polls}, true
}

// ErrNoCase reports an unknown case id; ErrClosed a case already in a terminal state.
var (
	ErrNoCase = errors.New("hitltest: no such case")
	ErrClosed = errors.New("hitltest: case already ended")
)

// Open marks the case opened, as a human's first visit to the review page does.
func (s *Server) Open(id string) error {
	return s.update(id, func(c *fakeCase, now time.Time) {
		if c.state == "pending" {
			c.state, c.openedAt = "opened", now
		}
	})
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
func (s *Server) Respond(id, action string, data any, by *hitl.Responder) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if data == nil {
		raw = []byte("{}")
	}
	return s.update(id, func(c *fakeCase, now time.Time) {
		if c.openedAt.IsZero() {
			c.openedAt = now
		}
		c.state, c.endedAt, c.action, c.data, c.by = "completed", now, action, raw, by
	})
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
		return ErrNoCase
	}
	now := time.Now()
	c.expireIfDue(now)
	if c.terminal() {
		return ErrClosed
	}
	f(c, now)
	c.version++
	return nil
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
	by                                    *hitl.Responder
	reason                                string
	version                               int
	polls                                 int
	window                                []time.Time
}

func (c *fakeCase) terminal() bool {
	return c.state == "completed" || c.state == "expired" || c.state == "cancelled"
}

func (c *fakeCase) expireIfDue(now time.Time) {
	if !c.terminal() && !now.Before(c.expiresAt) {
		c.state, c.endedAt = "expired", c.expiresAt
		c.version++
	}
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

func tokenOK(c *fakeCase, got string) bool {
	return subtle.ConstantTimeCompare([]byte(c.token), []byte(got)) == 1
}

func secondsCeil(d time.Duration) string {
	return strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
