package a2atest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/memhttp"
)

// RelayPath is where the relay serves its A2A 0.3 JSON-RPC endpoint for the sink agent
// (the Swarmd relay's user-access path).
const RelayPath = "/relay/v1/human/agents/" + SinkAgentID + "/a2a/0.3.0"

// SinkAgentID is the id of the agent behind the relay.
const SinkAgentID = "sink-agent"

// RelayForm is how the relay reports a task it holds.
type RelayForm int

// Relay forms.
const (
	// RelayWorking: "working" with metadata.relay_task true, no contextId (the relay docs'
	// example).
	RelayWorking RelayForm = iota
	// RelayReason: "working" with metadata.relay_reason (a policy escalation).
	RelayReason
	// RelayPending: the legacy form, "completed" with metadata.hitl_pending, which is not done.
	RelayPending
)

// Relay is a fake relay: every message/send is held for an administrator, whom the test
// plays with [Relay.Approve] and [Relay.Reject]. On approval the sink agent answers the held
// message and the task completes with its answer; on rejection the task fails, as the relay
// reports an administrator's no. It speaks A2A 0.3 JSON-RPC (message/send, tasks/get) at
// RelayPath. It is safe for concurrent use.
type Relay struct {
	// URL is the base URL; [Relay.Endpoint] is the A2A endpoint.
	URL string

	form    RelayForm
	srv     *httptest.Server
	client  *http.Client
	mu      sync.Mutex
	tasks   map[string]*task
	held    chan string
	seq     int
	reqs    []Request
	sinkFor string
}

// RelayOption configures a [Relay].
type RelayOption func(*Relay)

// WithRelayForm sets how held tasks are reported (default RelayWorking).
func WithRelayForm(f RelayForm) RelayOption { return func(r *Relay) { r.form = f } }

// WithSinkAgent names the agent that raised the hold in hitl_pending.sink_agent_id (default
// SinkAgentID): a chain's inner agent.
func WithSinkAgent(id string) RelayOption { return func(r *Relay) { r.sinkFor = id } }

func newRelay(opts []RelayOption) *Relay {
	r := &Relay{tasks: map[string]*task{}, held: make(chan string, 1024), sinkFor: SinkAgentID}
	for _, o := range opts {
		o(r)
	}
	return r
}

// NewUnstartedRelay returns a relay that is not yet listening, for programs and demos:
// [Relay.Start] starts it, and the caller must Close it. Tests use [NewRelay].
func NewUnstartedRelay(opts ...RelayOption) *Relay { return newRelay(opts) }

// Start starts the relay on a loopback port. It panics if the relay was already started.
func (r *Relay) Start() {
	if r.URL != "" {
		panic("a2atest: Relay already started")
	}
	r.srv = httptest.NewServer(r)
	r.URL, r.client = r.srv.URL, r.srv.Client()
}

// NewRelay starts a relay on a loopback port, closed when tb's test ends.
func NewRelay(tb testing.TB, opts ...RelayOption) *Relay {
	tb.Helper()
	if httpx.InBubble() {
		tb.Fatal("a2atest: NewRelay listens on loopback, which inside a testing/synctest bubble hangs the test: use NewMemoryRelay")
	}
	r := newRelay(opts)
	r.Start()
	tb.Cleanup(r.Close)
	return r
}

// Close shuts a loopback relay down; an in-memory one has nothing to close.
func (r *Relay) Close() {
	if r.srv != nil {
		r.srv.Close()
	}
}

// NewMemoryRelay returns a relay reached only through [Relay.Client], in memory, at
// https://relay.test.
func NewMemoryRelay(tb testing.TB, opts ...RelayOption) *Relay {
	tb.Helper()
	r := newRelay(opts)
	r.URL = "https://relay.test"
	r.client = &http.Client{Transport: &memhttp.Transport{Handler: r}}
	return r
}

// Client returns an HTTP client that reaches the relay.
func (r *Relay) Client() *http.Client { return r.client }

// Endpoint is the relay's A2A endpoint for the sink agent.
func (r *Relay) Endpoint() a2a.Endpoint {
	return a2a.Endpoint{URL: r.URL + RelayPath, Binding: a2a.JSONRPC03}
}

// NextHold returns the id of the next task the relay held, in order, blocking until there is
// one or done is closed (then "").
func (r *Relay) NextHold(done <-chan struct{}) string {
	select {
	case id := <-r.held:
		return id
	case <-done:
		return ""
	}
}

// Requests returns a copy of every request the relay received so far.
func (r *Relay) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Request(nil), r.reqs...)
}

// Approve lets held task id through: the sink agent answers, and the task completes with the
// sink's answer as its artifact.
func (r *Relay) Approve(id string) error {
	return r.decide(id, func(t *task) {
		t.state, t.metadata = a2a.StateCompleted, nil
		t.question = []a2a.Part{a2a.TextPart("Approved by an administrator.")}
		t.artifacts = []a2a.Part{a2a.TextPart(SinkAgentID + " handled: " + t.answers[0])}
	})
}

// Reject refuses held task id: it fails with reason as its status text.
func (r *Relay) Reject(id, reason string) error {
	return r.decide(id, func(t *task) {
		t.state, t.metadata = a2a.StateFailed, nil
		t.question = []a2a.Part{a2a.TextPart(reason)}
	})
}

func (r *Relay) decide(id string, f func(*task)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.tasks[id]
	switch {
	case !ok:
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	case t.version != 0:
		return fmt.Errorf("%w: %s", ErrEnded, id)
	}
	f(t)
	t.version++
	return nil
}

// ServeHTTP serves the relay's endpoint.
func (r *Relay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	var in rpcIn
	bad := json.Unmarshal(body, &in) != nil || in.JSONRPC != "2.0"
	var p struct {
		ID      string          `json:"id"`
		Message json.RawMessage `json:"message"`
	}
	_ = json.Unmarshal(in.Params, &p)
	sw := &httpx.StatusWriter{ResponseWriter: w}
	r.serve(sw, req, in, p.ID, p.Message, bad)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, Request{Method: req.Method, Path: req.URL.Path, TaskID: p.ID, Header: req.Header.Clone(),
		Status: sw.Status, Time: time.Now(), Binding: a2a.JSONRPC03, Operation: in.Method, Body: body})
}

func (r *Relay) serve(w http.ResponseWriter, req *http.Request, in rpcIn, id string, msg json.RawMessage, bad bool) {
	sp := spelling{b: a2a.JSONRPC03}
	switch {
	case req.URL.Path != RelayPath || req.Method != http.MethodPost:
		http.NotFound(w, req)
	case bad:
		sp.writeError(w, json.RawMessage("null"), -32700, "PARSE_ERROR", "parse error")
	case in.Method == "message/send":
		ev, err := a2a.Decode(msg)
		if err != nil || ev.Message == nil {
			sp.writeError(w, in.ID, -32602, "INVALID_PARAMS", "invalid params")
			return
		}
		r.mu.Lock()
		r.seq++
		t := r.hold(fmt.Sprintf("relay-%d", r.seq), ev.Message)
		r.tasks[t.id] = t
		res := sp.render(t)
		r.mu.Unlock()
		r.held <- t.id
		sp.writeResult(w, in.ID, res)
	case in.Method == "tasks/get":
		r.mu.Lock()
		t, ok := r.tasks[id]
		var res any
		if ok {
			res = sp.render(t)
		}
		r.mu.Unlock()
		if !ok {
			sp.writeError(w, in.ID, -32001, "TASK_NOT_FOUND", "task not found")
			return
		}
		sp.writeResult(w, in.ID, res)
	default:
		sp.writeError(w, in.ID, -32601, "METHOD_NOT_FOUND", "method not found")
	}
}

// hold makes the held task for message m in the relay's form. Called with r.mu held.
func (r *Relay) hold(id string, m *a2a.Message) *task {
	t := &task{id: id, answers: []string{m.Text()}}
	switch r.form {
	case RelayReason:
		t.state = a2a.StateWorking
		t.metadata = map[string]any{"relay_reason": map[string]any{"policy": "pii", "action": "HUMAN_REVIEW_REQUIRED"}}
	case RelayPending:
		t.state, t.contextID = a2a.StateCompleted, "relay-ctx-"+id
		t.question = []a2a.Part{a2a.TextPart("Your request is waiting for an administrator.")}
		t.metadata = map[string]any{"hitl_pending": map[string]any{
			"hitl_request_id": "hitl-" + id, "task_id": "sink-" + id, "context_id": "sink-ctx-" + id,
			"sink_agent_id": r.sinkFor, "detection_source": "AGENT_INPUT_REQUIRED"}}
	default:
		t.state = a2a.StateWorking
		t.metadata = map[string]any{"relay_task": true}
	}
	return t
}
