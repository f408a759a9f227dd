package hxptest

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/hxphash"
	"github.com/hitlkit/hitlkit/internal/inflight"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/internal/ws"
)

// Defaults of the credentials and secret.
const (
	DefaultAgentKey   = "test-agent-key"
	DefaultHumanToken = "test-human-token"
	DefaultSecret     = "test-server-secret"
	// HumanID is the completed_by of receipts resolved through the resolve endpoint.
	HumanID = "user_owner"
)

// WSShape is how ws_url is spelled in create answers.
type WSShape int

// The shapes in use (hxp-hi notes §1.5: the spec and the reference server disagree).
const (
	// WSQuery is the reference server's ws://host/hxp/ws?request_id={id}.
	WSQuery WSShape = iota
	// WSPath is the spec's wss://host/hxp/ws/{id}.
	WSPath
	// WSNone gives no ws_url.
	WSNone
)

// Profile is a model of one family of real servers. Tests run against every profile, so that
// the client is held to what servers do, not to one reading of the specification.
type Profile int

// Profiles for WithProfile.
const (
	// ProfileSpec follows the specification: a new WebSocket subscriber is sent the
	// request's terminal event, whatever it is; timeouts follow §3.3; a reason is a string;
	// PROVIDE answers are checked; the WebSocket asks for the agent's key; ws_url names the
	// host the create call came to, so it is the caller's own origin and an hxp.Client sends
	// its key there: the decision arrives over the WebSocket.
	ProfileSpec Profile = iota
	// ProfileReference behaves as the protocol's reference server: WebSocket at
	// ws://host/hxp/ws?request_id=, asking for no key, a new subscriber replayed the receipt
	// of a completed request only (an expired or cancelled one gets nothing, and the
	// connection stays open), a reason stored as whatever JSON the human sent, pause and fail
	// timeouts both ending as expired without a receipt, a default applied on timeout
	// reported as completed by "system", evidence over id:JSON(result):completed_at:secret,
	// PROVIDE answers not validated, list limits not capped.
	//
	// Its ws_url is ws://localhost:PORT whatever host the call came to, as the reference
	// server's code writes it (over TLS, [Server.StartTLS], it is wss://127.0.0.1:PORT, a host
	// the certificate covers). Called at [Server.URL], http://127.0.0.1:PORT, that is another
	// origin: an hxp.Client sends its key to its own origin only, so the handshake carries
	// none; this WebSocket, like the reference server's, accepts it and pushes the receipt,
	// and a receipt from another origin only makes the client poll at once: the decision
	// arrives at once, by that poll, not over the WebSocket. To have it arrive over the WebSocket, call the server at localhost, the
	// origin ws_url names:
	//
	//	srv := hxptest.NewServer(t, hxptest.WithProfile(hxptest.ProfileReference))
	//	base := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) // ws_url's origin
	//	client, err := hxp.NewClient(base, transport.WithHTTPClient(srv.Client()),
	//		transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)), transport.WithAllowPrivateAddresses())
	ProfileReference
)

// Profiles lists every profile, for tests that run against each.
func Profiles() []Profile { return []Profile{ProfileSpec, ProfileReference} }

func (p Profile) String() string {
	if p == ProfileReference {
		return "reference"
	}
	return "spec"
}

// WithProfile makes the server behave as profile p (default ProfileSpec). ProfileReference
// implies WithReferenceTimeouts, WSQuery and, unless WithHashFormula says otherwise,
// hxp.HashReference.
func WithProfile(p Profile) Option {
	return func(c *config) {
		c.profile = p
		if p == ProfileReference {
			c.referenceTimeouts, c.shape = true, WSQuery
		}
	}
}

// evidenceFormula returns the evidence formula in use: the one WithHashFormula set, else the
// profile's (§4.2's for ProfileSpec, the reference server's for ProfileReference).
func (c *config) evidenceFormula() hxp.HashFormula {
	switch {
	case c.formula != 0:
		return c.formula
	case c.profile == ProfileReference:
		return hxp.HashReference
	}
	return hxp.HashSpec
}

type config struct {
	profile              Profile
	agentKey, humanToken string
	secret               []byte
	shape                WSShape
	formula              hxp.HashFormula
	referenceTimeouts    bool
}

// Option configures a Server.
type Option func(*config)

// WithAgentKey sets the key agents must send. Default DefaultAgentKey.
func WithAgentKey(k string) Option { return func(c *config) { c.agentKey = k } }

// WithHumanToken sets the token human clients must send. Default DefaultHumanToken.
func WithHumanToken(t string) Option { return func(c *config) { c.humanToken = t } }

// WithSecret sets the server secret of the evidence hash. Default DefaultSecret.
func WithSecret(s []byte) Option { return func(c *config) { c.secret = append([]byte(nil), s...) } }

// WithWSShape sets the ws_url shape. Default WSQuery. Both shapes are always served. The
// in-memory server ([NewMemoryServer]) gives no ws_url, whatever the shape.
func WithWSShape(s WSShape) Option { return func(c *config) { c.shape = s } }

// WithHashFormula sets how evidence hashes are computed, whatever the profile. Default: the
// profile's, hxp.HashSpec (§4.2 as written) for ProfileSpec and hxp.HashReference for
// ProfileReference, so that a receipt of the default server verifies with
// Receipt.VerifyEvidence(DefaultSecret, hxp.HashSpec).
func WithHashFormula(f hxp.HashFormula) Option { return func(c *config) { c.formula = f } }

// WithReferenceTimeouts makes timeouts behave as the reference server's do: pause and fail
// both end the request as expired without a receipt. By default they follow the spec (§3.3):
// pause keeps it open, fail issues a failure receipt.
func WithReferenceTimeouts() Option { return func(c *config) { c.referenceTimeouts = true } }

// Server is a running fake.
type Server struct {
	// URL is the base URL: http://127.0.0.1:port ([Server.Start]), https://127.0.0.1:port
	// ([Server.StartTLS]) or https://hxp.test ([NewMemoryServer]).
	URL string

	cfg     config
	srv     *httptest.Server // nil for the in-memory server
	client  *http.Client
	created chan string
	stop    context.Context
	cancel  context.CancelFunc
	conns   inflight.Group

	mu       sync.Mutex
	requests map[string]*request
	order    []string
	faults   []fault
	sockets  map[*ws.ServerConn]bool
	accepted int
	reqs     []Request
}

// Request is one HTTP request the server received, for assertions.
type Request struct {
	// Method is the HTTP method, Path the URL's path.
	Method string
	Path   string
	// RequestID is the HXP request the call concerned, when it named one (in its path, or
	// the WebSocket's request_id).
	RequestID string
	Header    http.Header
	// Status is the HTTP status the server answered with.
	Status int
	Time   time.Time
}

type request struct {
	id         string
	req        hxp.Request
	status     string
	assignedTo string
	createdAt  time.Time
	expiresAt  time.Time
	receipt    *hxp.Receipt
	timer      *time.Timer
	events     [][]byte
	news       chan struct{}
}

// NewUnstartedServer returns a server that is not yet listening, for programs and demos:
// [Server.Start] starts it, and the caller must Close it. Tests use [NewServer].
func NewUnstartedServer(opts ...Option) *Server {
	s := &Server{
		cfg:      config{agentKey: DefaultAgentKey, humanToken: DefaultHumanToken, secret: []byte(DefaultSecret)},
		created:  make(chan string, 4096),
		requests: make(map[string]*request),
		sockets:  make(map[*ws.ServerConn]bool),
	}
	for _, o := range opts {
		o(&s.cfg)
	}
	s.stop, s.cancel = context.WithCancel(context.Background())
	return s
}

// Start starts the server on a loopback port. It panics if the server was already started.
func (s *Server) Start() {
	if s.client != nil {
		panic("hxptest: Server already started")
	}
	s.srv = httptest.NewServer(s.routes())
	s.URL, s.client = s.srv.URL, s.srv.Client()
}

// StartTLS starts the server on a loopback port over TLS, so ws_url is a wss:// URL on the
// listener's own host, 127.0.0.1, whatever the profile; the protocol is HTTP/1.1, which the
// WebSocket upgrade needs. [Server.Certificate] is its certificate, which covers 127.0.0.1,
// ::1 and example.com (with its subdomains) but not localhost; [Server.Client] trusts it.
// It panics if the server was already started.
func (s *Server) StartTLS() {
	if s.client != nil {
		panic("hxptest: Server already started")
	}
	s.srv = httptest.NewTLSServer(s.routes())
	s.URL, s.client = s.srv.URL, s.srv.Client()
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
		tb.Fatal("hxptest: NewServer listens on loopback, which inside a testing/synctest bubble hangs the test: use NewMemoryServer")
	}
	s := NewUnstartedServer(opts...)
	s.Start()
	tb.Cleanup(s.Close)
	return s
}

// NewMemoryServer returns a server reached only through [Server.Client], over an in-memory
// transport: no socket, usable inside a testing/synctest bubble, where time is virtual and a
// wait of hours takes no time. Its URL is https://hxp.test; it is closed when tb's test ends.
//
// The in-memory transport carries no WebSocket, so its create answers have no ws_url,
// whatever the profile and [WithWSShape]: an [hxp.Client.Wait] on it polls, at the client's
// poll interval, and the decision arrives at the first poll after it was made.
func NewMemoryServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := NewUnstartedServer(opts...)
	s.URL = "https://hxp.test"
	s.client = &http.Client{Transport: &memhttp.Transport{Handler: s.routes()}}
	tb.Cleanup(s.Close)
	return s
}

// Close ends open WebSockets and timers and shuts the server down; it returns when every
// WebSocket handler has, each logged in [Server.Requests], and once it has begun a new
// WebSocket request is answered 503.
func (s *Server) Close() {
	s.cancel()
	s.mu.Lock()
	for _, r := range s.requests {
		if r.timer != nil {
			r.timer.Stop()
		}
	}
	s.mu.Unlock()
	s.conns.Close()
	if s.srv != nil {
		s.srv.Close()
	}
}

// Client returns an HTTP client that reaches the server: for [NewMemoryServer]'s, the only
// way to it. Nil before the server is started.
func (s *Server) Client() *http.Client { return s.client }

// Secret returns the server secret of the evidence hashes.
func (s *Server) Secret() []byte { return append([]byte(nil), s.cfg.secret...) }

// NextRequest returns the id of the next request created, blocking until there is one or
// done is closed ("" then).
func (s *Server) NextRequest(done <-chan struct{}) string {
	select {
	case id := <-s.created:
		return id
	case <-done:
		return ""
	}
}

// Requests returns a copy of every HTTP request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Fault is a failure the server injects in place of a poll's normal answer.
type Fault int

// Faults for FailNext. Each answers with an HXP error body.
const (
	// Fault503 answers 503 without Retry-After.
	Fault503 Fault = iota + 1
	// Fault500 answers 500.
	Fault500
	// FaultUnauthorized answers 401.
	FaultUnauthorized
	// FaultNotFound answers 404.
	FaultNotFound
)

type fault struct {
	id string
	f  Fault
}

// FailNext makes the next n agent polls (GET /hxp/v1/requests/{id}) of request id (any
// request when id is "") fail with f.
func (s *Server) FailNext(id string, f Fault, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults = append(s.faults, fault{id, f})
	}
}

// WebSockets returns how many WebSocket connections the server has accepted so far.
func (s *Server) WebSockets() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accepted
}

// DropWebSockets drops every open WebSocket connection without a closing handshake.
func (s *Server) DropWebSockets() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.sockets {
		_ = c.CloseNow()
	}
}

// Errors of the scripting methods: ErrNotFound for an unknown request, ErrEnded for one
// already resolved, cancelled or expired.
var (
	ErrNotFound = errors.New("hxptest: no such request")
	ErrEnded    = errors.New("hxptest: request already ended")
)

// open returns the request id if it is still waiting. Guarded by mu.
func (s *Server) open(id string) (*request, error) {
	r, ok := s.requests[id]
	switch {
	case !ok:
		return nil, ErrNotFound
	case r.terminal():
		return nil, ErrEnded
	}
	return r, nil
}

// Assign marks the request assigned to user, as routing would.
func (s *Server) Assign(id, user string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.open(id)
	if err != nil {
		return err
	}
	r.status, r.assignedTo = "assigned", user
	s.emit(r, map[string]any{"event": "assigned", "assigned_to": user})
	return nil
}

// Resolve answers the request as human by would, with the checks of the resolve endpoint.
// result is what the human answers, by the request's type:
//
//   - APPROVE: the string hxp.Approved ("approved") or hxp.Rejected ("rejected") — not a
//     bool or an object such as {"approved": true} — and, for a rejection of a request with
//     RejectRequiresReason, a non-empty reason;
//   - DECIDE: one of the request's options, as a string, spelled exactly as in Options;
//   - PROVIDE: a value of its input type within its Validation: a number (or a string
//     holding one) for hxp.InputNumber, one of AllowedValues for hxp.InputSelection, a
//     string otherwise (an absolute URL for hxp.InputURL, an address for hxp.InputEmail).
//     ProfileReference takes any JSON value, as the reference server does, but not nil.
//
// A result that does not fit is refused before anything is recorded (the request stays as it
// was): an error matching hxp.ErrReceiptMismatch (errors.As gives the
// *hxp.ReceiptMismatchError) that says what the request's type takes. A request that has
// ended is ErrEnded, an unknown id ErrNotFound.
func (s *Server) Resolve(id string, result any, reason, by string) (*hxp.Receipt, error) {
	var raw json.RawMessage
	if reason != "" {
		raw, _ = json.Marshal(reason)
	}
	return s.ResolveWithReason(id, result, raw, by)
}

// ResolveWithReason is Resolve with the reason as any JSON value (an object, an array, a
// number), as the reference server stores whatever the human sent; nil means none.
func (s *Server) ResolveWithReason(id string, result any, reason json.RawMessage, by string) (*hxp.Receipt, error) {
	raw, err := json.Marshal(result)
	if err != nil {
		return nil, fmt.Errorf("hxptest: Resolve %s: the result is not JSON: %w", id, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.open(id)
	if err != nil {
		return nil, err
	}
	if string(raw) == "null" {
		return nil, fmt.Errorf("hxptest: Resolve %s: %s: %w", id, takes(&r.req), &hxp.ReceiptMismatchError{Field: "result", Problem: "nil: the human answered nothing"})
	}
	rc := &hxp.Receipt{RequestID: id, Status: "completed", Result: raw, CompletedBy: by}
	if len(reason) > 0 && string(reason) != "null" {
		rc.ReasonRaw = reason
		_ = json.Unmarshal(reason, &rc.Reason)
	}
	if s.cfg.profile != ProfileReference || r.req.Action() != hxp.ActionProvide {
		if err := rc.Check(&r.req); err != nil {
			return nil, fmt.Errorf("hxptest: Resolve %s: %s: %w", id, takes(&r.req), err)
		}
	}
	s.finish(r, rc)
	return rc, nil
}

// takes says what a result of req's type is, for Resolve's errors.
func takes(req *hxp.Request) string {
	switch req.Action() {
	case hxp.ActionApprove:
		return `an APPROVE's result is the string "approved" or "rejected" (hxp.Approved or hxp.Rejected)`
	case hxp.ActionDecide:
		opts := make([]string, len(req.Decide.Options))
		for i, o := range req.Decide.Options {
			opts[i] = strconv.Quote(o)
		}
		return "a DECIDE's result is one of its options, as a string: " + strings.Join(opts, ", ")
	case hxp.ActionProvide:
		return fmt.Sprintf("a PROVIDE's result is a value of its input type (%s) within its validation, not nil", req.Provide.InputType)
	}
	return "the request has no action"
}

// Cancel cancels the request, as the agent's cancel endpoint does.
func (s *Server) Cancel(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.open(id)
	if err != nil {
		return err
	}
	s.finish(r, &hxp.Receipt{RequestID: id, Status: "cancelled", Reason: "cancelled by the agent"})
	return nil
}

// finish ends r with rc: evidence, events, timer. Guarded by mu.
func (s *Server) finish(r *request, rc *hxp.Receipt) {
	now := time.Now().UTC()
	rc.CompletedAt = now.Format(time.RFC3339Nano)
	rc.DurationSeconds = float64(int(now.Sub(r.createdAt).Seconds()))
	if rc.Status == "completed" {
		rc.EvidenceHash = hex.EncodeToString(hxphash.Sum(r.id, rc.Result, rc.CompletedAt, s.cfg.secret, s.cfg.evidenceFormula() == hxp.HashReference))
	}
	r.status, r.receipt = rc.Status, rc
	if r.timer != nil {
		r.timer.Stop()
	}
	switch rc.Status {
	case "completed":
		s.emit(r, map[string]any{"event": "completed", "receipt": rc})
	default:
		s.emit(r, map[string]any{"event": rc.Status})
	}
}

// timeout applies r's fallback (§3.3, or the reference server's behaviour).
func (s *Server) timeout(r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.terminal() {
		return
	}
	switch {
	case r.req.Fallback == hxp.FallbackDefault && r.req.Decide != nil:
		raw, _ := json.Marshal(r.req.Decide.DefaultOption)
		s.finish(r, &hxp.Receipt{RequestID: r.id, Status: "completed", Result: raw,
			CompletedBy: hxp.SystemResponder, Reason: "Timeout — default option applied"})
	case s.cfg.referenceTimeouts:
		r.status = "expired"
		s.emit(r, map[string]any{"event": "expired"})
	case r.req.Fallback == hxp.FallbackFail:
		s.finish(r, &hxp.Receipt{RequestID: r.id, Status: "failed", Reason: "timeout"})
	default: // pause: the request stays open
	}
}

// emit records a WebSocket event for r and wakes its sockets. Guarded by mu.
func (s *Server) emit(r *request, ev map[string]any) {
	b, _ := json.Marshal(ev)
	r.events = append(r.events, b)
	close(r.news)
	r.news = make(chan struct{})
}

func (r *request) terminal() bool { return r.status != "pending" && r.status != "assigned" }

// state is the body of GET /requests/{id}: the request echoed, its status and receipt.
func (r *request) state() map[string]any {
	var m map[string]any
	b, _ := json.Marshal(r.req)
	_ = json.Unmarshal(b, &m)
	m["request_id"], m["status"] = r.id, r.status
	m["created_at"] = r.createdAt.UTC().Format(time.RFC3339Nano)
	m["expires_at"] = nil
	if !r.expiresAt.IsZero() {
		m["expires_at"] = r.expiresAt.UTC().Format(time.RFC3339Nano)
	}
	if r.assignedTo != "" {
		m["assigned_to"] = r.assignedTo
	}
	if r.receipt != nil {
		m["receipt"] = r.receipt
	}
	return m
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "hxp_" + hex.EncodeToString(b[:])
}

func bearer(r *http.Request, want string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]string{"error": code, "message": msg})
}
