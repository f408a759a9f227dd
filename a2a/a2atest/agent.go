package a2atest

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/inflight"
	"github.com/hitlkit/hitlkit/internal/memhttp"
)

// The agent's mount points, one per binding.
const (
	PathJSONRPC10 = "/rpc"
	PathJSONRPC03 = "/rpc03"
	PathREST10    = "/rest"
	PathREST03    = "/rest03"
	// PathAgents is where an a2a-go v0.3 agent mounts its JSON-RPC endpoint:
	// /agents/{name} (any name).
	PathAgents = "/agents/"
)

// Style is how the agent words its question and reads the answer.
type Style int

// Question styles.
const (
	// StyleHectorV1: a text part and a data part {"interaction_type":"tool_approval",
	// "tool_name","tool_input","options":["approve","deny"]}; the answer's data part
	// {"decision"} is read first, then its text ("approve"/"yes" approve, anything else deny).
	StyleHectorV1 Style = iota
	// StyleHectorV2: metadata input_required, long_running_tool_ids, input_prompt; the answer
	// is a data part {"type":"tool_approval","decision","tool_call_id"}.
	StyleHectorV2
	// StyleADK: a data part holding the adk_request_confirmation function call; the answer is
	// its function response {"confirmed": bool}, a data part whose metadata says adk_type
	// "function_response" (without it ADK's server reads plain data: a deny here).
	StyleADK
	// StyleMastra: as @mastra/core 1.71 asks for a suspended tool's approval: the text
	// "Additional input is required to continue this task." and a data part holding
	// {"suspendPayload":{"toolName","args","toolCallId"}}, with the call id again in the
	// task's metadata.suspendedToolCallId; the answer is read as StyleHectorV1 reads it.
	StyleMastra
	// StyleADKLongRunning: as ADK Go v2.2.0's launcher asks through a long-running tool: the
	// status message holds a bare function call {"id","name":"ask_human","args":{"question"}}
	// with part metadata adk_type "function_call" and adk_is_long_running true, and the
	// tool's pending response; the answer must be a function response for that call id
	// (part metadata adk_type "function_response"). Its response's "answer" string is the
	// answer the agent reads ({"approved": bool} reads as approve or deny); anything else
	// leaves the call asked again.
	StyleADKLongRunning
)

// Request is one request a fake received, for assertions.
type Request struct {
	// Method is the HTTP method, Path the URL's path.
	Method string
	Path   string
	// TaskID is the task the request concerned, when it named one.
	TaskID string
	Header http.Header
	// Status is the HTTP status the fake answered with, once the answer has ended (0 while
	// a stream is open).
	Status int
	Time   time.Time

	Binding a2a.Binding
	// Operation is the JSON-RPC method or the REST operation ("message:send", "tasks/get",
	// …).
	Operation string
	Body      []byte
}

// Agent is a fake A2A agent whose tasks each ask Questions approval questions before they
// complete. It is safe for concurrent use.
type Agent struct {
	// URL is the base URL; [Agent.Endpoint] gives each binding's endpoint.
	URL string

	cfg     agentConfig
	srv     *httptest.Server
	client  *http.Client
	push    *http.Client
	mu      sync.Mutex
	tasks   map[string]*task
	reqs    []Request
	faults  []fault
	seq     int
	pushes  inflight.Group
	stop    context.Context
	cancel  context.CancelFunc
	changed chan struct{} // closed and replaced on every task change, for streams
	once    sync.Once
}

type agentConfig struct {
	profile     Profile
	questions   int
	style       Style
	authFirst   bool
	strict      bool
	pushHandler http.Handler
}

// AgentOption configures an [Agent].
type AgentOption func(*agentConfig)

// Profile is a model of one family of real agents: how it spells its answers, refuses what
// it cannot do and reacts to odd requests. Tests run against every profile, so that the
// client is held to what agents send, not to one reading of the specification.
type Profile int

// Profiles for WithProfile.
const (
	// ProfileSpec follows the specifications (0.3 and 1.0) as a2a-go v2 implements them.
	ProfileSpec Profile = iota
	// ProfileA2AGoV03 behaves as an agent built on a2a-go v0.3: one JSON-RPC 0.3 endpoint
	// (also served at /agents/{name}), JSON-RPC answers sent as text/plain, a refusal of an
	// ended task as -32602 "invalid params" with the reason in data.error, streams that begin
	// with a status update (no task snapshot), a completed task without a status message
	// whose final text is in an artifact. Like every profile, it refuses to stream a task
	// paused for input (-32001).
	ProfileA2AGoV03
	// ProfileLegacyHector behaves as the previous Hector generation: data parts kept in their
	// wrapper ({"data":{"data":…}}) in every binding, tool_input as a JSON string, the
	// decision read only from a wrapped data part (a flat one is ignored; the text
	// "approve" still counts), a resume naming an unknown or ended task silently starting a
	// new task, a resume answered with the task as it was before the answer was read (the
	// next query shows it moved on), a REST 404 of {"error":"Task not found"}, and a question
	// left unanswered for LegacyInputTimeout failing the task. As Hector v1.9.9 does, its
	// JSON-RPC tasks/get and tasks/cancel want the task's resource name
	// ({"name":"tasks/<id>"}), refuse an id with -32603 "… task name is required" and answer
	// a name they do not know with -32602 "Task not found: rpc error: code = NotFound …"; its
	// task queries send "metadata": null on every part of the status message, its reply to a
	// resume no metadata at all, and its status messages carry no message id.
	ProfileLegacyHector
	// ProfileTRPC behaves as trpc-agent-go v1.11.2's A2A server over a graph agent whose
	// node calls graph.Interrupt: the task is reported "completed" with the interrupt
	// pending in its artifact's metadata.state_delta._pregel_metadata (base64 of
	// {"interruptKey":"approve","interruptValue":{"question","tool","arguments"},
	// "lineageId","checkpointId","checkpointNs"}); a stream sends graph progress as agent
	// message events with "parts": null and a taskId, the interrupt in such a message's
	// metadata, then the completed status, and the agent forgets a streamed task when its
	// stream ends (task queries answer -32001). The graph resumes from a new message in the
	// same context, without a task id, whose metadata carries lineage_id, checkpoint_id,
	// checkpoint_ns and resume_map {"approve": bool}: a new task that asks the next
	// question the same way, or completes. [TaskState] of the last task lists every answer
	// of its context. Its tasks never enter input-required, so it is not among [Profiles].
	ProfileTRPC
)

// LegacyInputTimeout is how long a ProfileLegacyHector task waits for an answer before it
// fails.
const LegacyInputTimeout = 10 * time.Minute

// Profiles lists every profile whose tasks pause in input-required, for tests that run
// against each (ProfileTRPC, which pauses in a completed task, has tests of its own).
func Profiles() []Profile { return []Profile{ProfileSpec, ProfileA2AGoV03, ProfileLegacyHector} }

func (p Profile) String() string {
	switch p {
	case ProfileA2AGoV03:
		return "a2a-go-v0.3"
	case ProfileLegacyHector:
		return "legacy-hector"
	case ProfileTRPC:
		return "trpc"
	}
	return "spec"
}

// WithProfile makes the agent behave as profile p (default ProfileSpec).
func WithProfile(p Profile) AgentOption { return func(c *agentConfig) { c.profile = p } }

// spelling is how one answer is written: the binding, and the agent's profile.
type spelling struct {
	b       a2a.Binding
	profile Profile
	// nullMeta spells a part without metadata with "metadata": null (legacy Hector's task
	// queries).
	nullMeta bool
}

func (a *Agent) spell(b a2a.Binding) spelling { return spelling{b: b, profile: a.cfg.profile} }

// WithQuestions makes each task ask n questions before it completes (default 1); 0 makes
// it complete at once, answering with text.
func WithQuestions(n int) AgentOption { return func(c *agentConfig) { c.questions = max(n, 0) } }

// WithStrictAnswers makes the agent ask again about the same tool call, under a new message
// id and with a text saying what it did not understand, when an answer is neither approve
// nor deny (a data part's decision, or the text "approve", "yes", "deny", "no"), as a
// tool-approval agent does that reads only those words: the answer is not taken. Styles
// StyleHectorV1 and StyleMastra.
func WithStrictAnswers() AgentOption { return func(c *agentConfig) { c.strict = true } }

// WithStyle sets how questions are worded and answers read (default StyleHectorV1).
func WithStyle(s Style) AgentOption { return func(c *agentConfig) { c.style = s } }

// WithAuthFirst makes each new task wait in auth-required until [Agent.Authorize] is called,
// before its first question.
func WithAuthFirst() AgentOption { return func(c *agentConfig) { c.authFirst = true } }

// WithPushHandler delivers push notifications to h in memory instead of over HTTP: usable in
// a testing/synctest bubble.
func WithPushHandler(h http.Handler) AgentOption { return func(c *agentConfig) { c.pushHandler = h } }

type pushConfig struct {
	url, token, auth string
	v10              bool
}

type task struct {
	timeout       *time.Timer // the legacy input timeout, while a question waits
	id, contextID string
	state         a2a.State
	question      []a2a.Part
	metadata      map[string]any
	artifacts     []a2a.Part
	asked         int
	answers       []string
	push          *pushConfig
	updated       time.Time
	version       int
	artifactMeta  map[string]any // metadata of the task's artifact (ProfileTRPC's interrupt)
	checkpoint    string         // ProfileTRPC: the checkpoint id of the interrupt pending
	retold        int            // how often the current question was asked again (WithStrictAnswers)
	forgotten     bool           // ProfileTRPC: a streamed task, forgotten when its stream ended
	streamed      bool           // ProfileTRPC: the task came from a stream
}

func newAgent(opts []AgentOption) *Agent {
	a := &Agent{cfg: agentConfig{questions: 1}, tasks: map[string]*task{}, changed: make(chan struct{})}
	for _, o := range opts {
		o(&a.cfg)
	}
	a.stop, a.cancel = context.WithCancel(context.Background())
	if a.cfg.pushHandler != nil {
		a.push = &http.Client{Transport: &memhttp.Transport{Handler: a.cfg.pushHandler}}
	} else {
		a.push = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	return a
}

// NewUnstartedAgent returns an agent that is not yet listening, for programs and demos:
// [Agent.Start] or [Agent.StartTLS] starts it, and the caller must Close it. Tests use
// [NewAgent].
func NewUnstartedAgent(opts ...AgentOption) *Agent { return newAgent(opts) }

// Start starts the agent on a loopback port. It panics if the agent was already started.
func (a *Agent) Start() {
	if a.URL != "" {
		panic("a2atest: Agent already started")
	}
	a.srv = httptest.NewServer(a)
	a.URL, a.client = a.srv.URL, a.srv.Client()
}

// StartTLS starts the agent on a loopback port over TLS with HTTP/2, as production agents
// are reached; [Agent.Certificate] is its certificate and [Agent.Client] trusts it. It
// panics if the agent was already started.
func (a *Agent) StartTLS() {
	if a.URL != "" {
		panic("a2atest: Agent already started")
	}
	a.srv = httptest.NewUnstartedServer(a)
	a.srv.EnableHTTP2 = true
	a.srv.StartTLS()
	a.URL, a.client = a.srv.URL, a.srv.Client()
}

// Certificate returns the certificate of an agent started with [Agent.StartTLS], nil
// otherwise.
func (a *Agent) Certificate() *x509.Certificate {
	if a.srv == nil || a.srv.TLS == nil {
		return nil
	}
	return a.srv.Certificate()
}

// NewAgent starts an agent on a loopback port, closed when tb's test ends.
func NewAgent(tb testing.TB, opts ...AgentOption) *Agent {
	tb.Helper()
	if httpx.InBubble() {
		tb.Fatal("a2atest: NewAgent listens on loopback, which inside a testing/synctest bubble hangs the test: use NewMemoryAgent")
	}
	a := newAgent(opts)
	a.Start()
	tb.Cleanup(a.Close)
	return a
}

// NewMemoryAgent returns an agent reached only through [Agent.Client], in memory, at
// https://agent.test: usable in a testing/synctest bubble.
func NewMemoryAgent(tb testing.TB, opts ...AgentOption) *Agent {
	tb.Helper()
	a := newAgent(opts)
	a.URL = "https://agent.test"
	a.client = &http.Client{Transport: &memhttp.Transport{Handler: a}}
	tb.Cleanup(a.Close)
	return a
}

// Client returns an HTTP client that reaches the agent.
func (a *Agent) Client() *http.Client { return a.client }

// Endpoint returns the agent's endpoint for binding b.
func (a *Agent) Endpoint(b a2a.Binding) a2a.Endpoint {
	path := map[a2a.Binding]string{a2a.JSONRPC10: PathJSONRPC10, a2a.JSONRPC03: PathJSONRPC03, a2a.REST10: PathREST10, a2a.REST03: PathREST03}[b]
	return a2a.Endpoint{URL: a.URL + path, Binding: b}
}

// Close ends open streams and pending push deliveries and shuts the agent down; it returns
// when every delivery begun has ended, and once it has begun no new delivery starts.
func (a *Agent) Close() {
	a.once.Do(func() {
		a.mu.Lock()
		for _, t := range a.tasks {
			if t.timeout != nil {
				t.timeout.Stop()
			}
		}
		a.mu.Unlock()
		a.cancel()
		a.pushes.Close()
		a.push.CloseIdleConnections()
		if a.srv != nil {
			a.srv.Close()
		}
	})
}

// Requests returns a copy of every request received so far.
func (a *Agent) Requests() []Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Request(nil), a.reqs...)
}

// TaskState is a snapshot of a task, for assertions.
type TaskState struct {
	State a2a.State
	// Answers are the decisions the agent read from the answers, in order.
	Answers []string
}

// Task returns a snapshot of task id.
func (a *Agent) Task(id string) (TaskState, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.tasks[id]
	if !ok {
		return TaskState{}, false
	}
	return TaskState{State: t.state, Answers: append([]string(nil), t.answers...)}, true
}

// Authorize ends task id's auth-required wait, out of band, as credentials arriving would:
// the task asks its first question.
func (a *Agent) Authorize(id string) error {
	return a.update(id, func(t *task) error {
		if t.state != a2a.StateAuthRequired {
			return fmt.Errorf("a2atest: task %s is %s, not auth-required", id, t.state)
		}
		a.ask(t)
		return nil
	})
}

// Fail makes the agent (or the relay) fail task id: it ends "failed" with reason as its
// status text.
func (a *Agent) Fail(id, reason string) error {
	return a.update(id, func(t *task) error {
		t.state, t.question = a2a.StateFailed, []a2a.Part{a2a.TextPart(reason)}
		return nil
	})
}

// Errors of the scripting methods: ErrNotFound for an unknown task, ErrEnded for a task the
// relay's administrator has already decided.
var (
	ErrNotFound = errors.New("a2atest: no such task")
	ErrEnded    = errors.New("a2atest: task already decided")
)

// Fault is a failure the agent injects in place of the next answer.
type Fault int

// Faults for FailNext.
const (
	// Fault503 answers 503 with Retry-After: 1.
	Fault503 Fault = iota + 1
	// Fault429 answers 429 with Retry-After: 2.
	Fault429
	// FaultHTML502 answers 502 with an HTML page, as a proxy does.
	FaultHTML502
	// FaultTruncated answers 200 with a cut-off JSON body.
	FaultTruncated
	// FaultInternal answers a JSON-RPC -32603 (REST: 500 with a google.rpc.Status body).
	FaultInternal
	// FaultLostReply handles the request, then answers 502 in place of the reply, as a
	// proxy that gave up waiting does: the agent acted, the caller cannot know it.
	FaultLostReply
)

type fault struct {
	taskID string
	f      Fault
}

// FailNext makes the next n requests about task id (any request when id is "") fail with f.
// A request names its task in the message it sends (taskId), its params (id, name) or its
// REST path.
func (a *Agent) FailNext(id string, f Fault, n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for range n {
		a.faults = append(a.faults, fault{id, f})
	}
}

func (a *Agent) update(id string, f func(*task) error) error {
	a.mu.Lock()
	t, ok := a.tasks[id]
	if !ok {
		a.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err := f(t); err != nil {
		a.mu.Unlock()
		return err
	}
	a.touch(t)
	a.mu.Unlock()
	return nil
}

// touch records a change of t: streams wake, and the push configuration is told.
// Called with a.mu held.
func (a *Agent) touch(t *task) {
	t.updated = time.Now()
	t.version++
	close(a.changed)
	a.changed = make(chan struct{})
	if t.push != nil {
		a.deliver(*t.push, a.pushBody(t))
	}
}

// ask puts t in input-required with the style's next question. Called with a.mu held.
func (a *Agent) ask(t *task) {
	t.asked++
	t.state = a2a.StateInputRequired
	if a.cfg.profile == ProfileLegacyHector {
		asked := t.asked
		t.timeout = time.AfterFunc(LegacyInputTimeout, func() {
			a.mu.Lock()
			defer a.mu.Unlock()
			if t.state == a2a.StateInputRequired && t.asked == asked {
				t.state, t.question, t.metadata = a2a.StateFailed, []a2a.Part{a2a.TextPart("Timed out waiting for input.")}, nil
				a.touch(t)
			}
		})
	}
	tool := map[string]any{"path": fmt.Sprintf("/tmp/report-%d.txt", t.asked)}
	if a.cfg.profile == ProfileTRPC {
		a.interrupt(t, tool)
		return
	}
	switch a.cfg.style {
	case StyleHectorV2:
		callID := fmt.Sprintf("call-%s-%d", t.id, t.asked)
		t.question = []a2a.Part{a2a.TextPart("Approve delete_file?")}
		t.metadata = map[string]any{"input_required": true, "long_running_tool_ids": []string{callID}, "input_prompt": "Approve delete_file?"}
	case StyleMastra:
		callID := fmt.Sprintf("call-%s-%d", t.id, t.asked)
		t.question = []a2a.Part{
			a2a.TextPart("Additional input is required to continue this task."),
			a2a.DataPart(map[string]any{"runId": t.id, "status": "suspended",
				"suspendPayload": map[string]any{"toolName": "delete_file", "args": tool, "toolCallId": callID}}),
		}
		t.metadata = map[string]any{"suspendedToolCallId": callID}
	case StyleADKLongRunning:
		id := fmt.Sprintf("lr-%s-%d", t.id, t.asked)
		t.question = []a2a.Part{
			{Data: mustJSON(map[string]any{"id": id, "name": "ask_human", "args": map[string]any{"question": fmt.Sprintf("What should f-%d.txt be renamed to?", t.asked)}}),
				Metadata: mustJSON(map[string]any{"adk_type": "function_call", "adk_is_long_running": true})},
			{Data: mustJSON(map[string]any{"id": id, "name": "ask_human", "response": map[string]any{"status": "pending"}}),
				Metadata: mustJSON(map[string]any{"adk_type": "function_response"})},
		}
	case StyleADK:
		t.question = []a2a.Part{{
			Data: mustJSON(map[string]any{"id": fmt.Sprintf("adk-%s-%d", t.id, t.asked), "name": "adk_request_confirmation",
				"args": map[string]any{"originalFunctionCall": map[string]any{"name": "delete_file", "args": tool}, "toolConfirmation": map[string]any{"hint": "Delete the report?"}}}),
			Metadata: mustJSON(map[string]any{"adk_type": "function_call", "adk_is_long_running": true}),
		}}
	default:
		var input any = tool
		if a.cfg.profile == ProfileLegacyHector {
			input = string(mustJSON(tool)) // the previous generation sends tool_input as a JSON string
		}
		t.question = []a2a.Part{
			a2a.TextPart("🔐 Tool Approval Required: delete_file. Please respond with: approve or deny"),
			a2a.DataPart(map[string]any{"interaction_type": "tool_approval", "tool_name": "delete_file", "tool_input": input, "options": []string{"approve", "deny"}}),
		}
	}
}

// decide reads the decision in an answer's parts, as the style's agent does; ok is false
// when the agent does not take the answer (WithStrictAnswers, StyleADKLongRunning).
func (a *Agent) decide(t *task, parts []a2a.Part) (d string, ok bool) {
	if a.cfg.style == StyleADKLongRunning {
		return longRunningAnswer(t, parts)
	}
	d = a.decision(t, parts)
	if a.cfg.strict && d == "deny" && !saysDeny(parts) {
		return "", false
	}
	return d, true
}

// longRunningAnswer reads the function response to the long-running call asked last.
func longRunningAnswer(t *task, parts []a2a.Part) (string, bool) {
	for _, p := range parts {
		var r struct {
			ID       string `json:"id"`
			Name     string `json:"name"`
			Response struct {
				Answer   *string `json:"answer"`
				Approved *bool   `json:"approved"`
			} `json:"response"`
		}
		if json.Unmarshal(p.Data, &r) != nil || r.ID != fmt.Sprintf("lr-%s-%d", t.id, t.asked) || r.Name != "ask_human" || adkType(p.Metadata) != "function_response" {
			continue
		}
		switch {
		case r.Response.Answer != nil:
			return *r.Response.Answer, true
		case r.Response.Approved != nil && *r.Response.Approved:
			return "approve", true
		case r.Response.Approved != nil:
			return "deny", true
		}
	}
	return "", false
}

// saysDeny reports an answer that says no in words the strict agent knows.
func saysDeny(parts []a2a.Part) bool {
	for _, p := range parts {
		var d struct {
			Decision string `json:"decision"`
			Data     struct {
				Decision string `json:"decision"`
			} `json:"data"`
		}
		if json.Unmarshal(p.Data, &d) == nil && (strings.EqualFold(d.Decision, "deny") || strings.EqualFold(d.Data.Decision, "deny")) {
			return true
		}
		switch strings.ToLower(strings.TrimSpace(p.Text)) {
		case "deny", "no", "n", "reject":
			return true
		}
	}
	return false
}

// decision reads the decision in an answer's parts, as Hector and ADK do.
func (a *Agent) decision(t *task, parts []a2a.Part) string {
	for _, p := range parts {
		var d struct {
			Decision string `json:"decision"`
			Type     string `json:"type"`
			ID       string `json:"id"`
			Name     string `json:"name"`
			Response struct {
				Confirmed bool `json:"confirmed"`
			} `json:"response"`
		}
		data := p.Data
		if a.cfg.profile == ProfileLegacyHector {
			// The previous generation reads the decision from the part's wrapper only.
			var wrapped struct {
				Data json.RawMessage `json:"data"`
			}
			if json.Unmarshal(data, &wrapped) != nil {
				continue
			}
			data = wrapped.Data
		}
		if len(data) == 0 || json.Unmarshal(data, &d) != nil {
			continue
		}
		switch {
		case a.cfg.style == StyleADK && d.Name == "adk_request_confirmation" && d.ID == fmt.Sprintf("adk-%s-%d", t.id, t.asked) && adkType(p.Metadata) == "function_response":
			if d.Response.Confirmed {
				return "approve"
			}
			return "deny"
		case a.cfg.style != StyleADK && strings.EqualFold(d.Decision, "approve"):
			return "approve"
		case a.cfg.style != StyleADK && d.Decision != "":
			return "deny"
		}
	}
	if a.cfg.style == StyleHectorV1 {
		for _, p := range parts {
			if s := strings.ToLower(p.Text); strings.Contains(s, "approve") || s == "yes" || s == "y" {
				return "approve"
			}
		}
	}
	return "deny" // Hector's safe default
}

// adkType is a part's adk_type metadata: ADK's A2A server reads a data part as a function
// response only when it says "function_response" (adka2a's part conversion); any other data
// part is plain data, and the confirmation stays unanswered.
func adkType(meta json.RawMessage) string {
	var m struct {
		Type string `json:"adk_type"`
	}
	_ = json.Unmarshal(meta, &m)
	return m.Type
}

// answer advances t with a resume's parts. Called with a.mu held.
func (a *Agent) answer(t *task, parts []a2a.Part) {
	if t.timeout != nil {
		t.timeout.Stop()
		t.timeout = nil
	}
	d, ok := a.decide(t, parts)
	if !ok {
		a.askAgain(t, parts)
		return
	}
	t.answers = append(t.answers, d)
	t.metadata = nil
	t.retold = 0
	switch {
	case d == "deny":
		t.state, t.question = a2a.StateCompleted, []a2a.Part{a2a.TextPart("Tool call denied; nothing was deleted.")}
		t.artifacts = []a2a.Part{a2a.TextPart("denied")}
	case t.asked < a.cfg.questions:
		a.ask(t)
	case a.cfg.profile == ProfileA2AGoV03:
		// a2a-go v0.3 agents end without a status message; the final text is an artifact.
		t.state, t.question = a2a.StateCompleted, nil
		t.artifacts = []a2a.Part{a2a.TextPart("Done.")}
	default:
		t.state, t.question = a2a.StateCompleted, []a2a.Part{a2a.TextPart("Done.")}
		t.artifacts = []a2a.Part{a2a.DataPart(map[string]any{"deleted": t.asked})}
	}
}

// askAgain asks the current question again, the answer not taken: the same tool call
// under a new message id, saying what was not understood. Called with a.mu held.
func (a *Agent) askAgain(t *task, parts []a2a.Part) {
	t.retold++
	heard := (&a2a.Message{Parts: parts}).Text()
	switch a.cfg.style {
	case StyleADKLongRunning:
		// ADK asks the call again under the same id: the tool is still pending.
	default:
		q := append([]a2a.Part(nil), t.question...)
		q[0] = a2a.TextPart(fmt.Sprintf("I did not understand %q (try %d). Tool approval required: delete_file. Reply approve or deny.", heard, t.retold+1))
		t.question = q
	}
}

func (a *Agent) newTask(contextID string) *task {
	a.seq++
	t := &task{id: fmt.Sprintf("task-%d", a.seq), contextID: contextID}
	if t.contextID == "" {
		t.contextID = fmt.Sprintf("ctx-%d", a.seq)
	}
	a.tasks[t.id] = t
	switch {
	case a.cfg.authFirst:
		t.state, t.question = a2a.StateAuthRequired, []a2a.Part{a2a.TextPart("Sign in to the file service to continue.")}
	case a.cfg.questions == 0:
		t.state, t.question = a2a.StateCompleted, []a2a.Part{a2a.TextPart("Nothing to approve; done.")}
	default:
		a.ask(t)
	}
	return t
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// interrupt completes t with a graph interrupt pending, as trpc-agent-go does. Called with
// a.mu held.
func (a *Agent) interrupt(t *task, tool map[string]any) {
	t.checkpoint = fmt.Sprintf("ckpt-%s-%d", t.id, t.asked)
	pregel := mustJSON(map[string]any{
		"interruptKey":   "approve",
		"interruptValue": map[string]any{"question": fmt.Sprintf("Delete %s?", tool["path"]), "tool": "delete_file", "arguments": tool},
		"lineageId":      "lineage-" + t.contextID, "checkpointId": t.checkpoint, "checkpointNs": "",
	})
	t.state, t.question = a2a.StateCompleted, nil
	t.artifacts = []a2a.Part{a2a.TextPart("Waiting for approval.")}
	t.artifactMeta = map[string]any{"state_delta": map[string]any{"_pregel_metadata": base64.StdEncoding.EncodeToString(pregel)}}
}

// resumeGraph is ProfileTRPC's answer to a message that names a checkpoint in its metadata:
// a new task in the same context that goes on from the interrupt. ok is false when the
// message names no pending checkpoint. Called with a.mu held.
func (a *Agent) resumeGraph(contextID string, meta json.RawMessage) (*task, bool) {
	var m struct {
		LineageID    string          `json:"lineage_id"`
		CheckpointID string          `json:"checkpoint_id"`
		CheckpointNS *string         `json:"checkpoint_ns"`
		ResumeMap    map[string]bool `json:"resume_map"`
	}
	if json.Unmarshal(meta, &m) != nil || m.CheckpointID == "" || m.CheckpointNS == nil || m.LineageID != "lineage-"+contextID {
		return nil, false
	}
	var from *task
	for _, t := range a.tasks {
		if t.checkpoint == m.CheckpointID && t.contextID == contextID {
			from = t
		}
	}
	approve, answered := m.ResumeMap["approve"]
	if from == nil || !answered {
		return nil, false
	}
	from.checkpoint = ""
	a.seq++
	t := &task{id: fmt.Sprintf("task-%d", a.seq), contextID: contextID, asked: from.asked, answers: append([]string(nil), from.answers...)}
	a.tasks[t.id] = t
	d := map[bool]string{true: "approve", false: "deny"}[approve]
	t.answers = append(t.answers, d)
	switch {
	case !approve:
		t.state, t.question = a2a.StateCompleted, []a2a.Part{a2a.TextPart("Tool call denied; nothing was deleted.")}
		t.artifacts = []a2a.Part{a2a.TextPart("denied")}
	case t.asked < a.cfg.questions:
		a.ask(t)
	default:
		t.state, t.question = a2a.StateCompleted, []a2a.Part{a2a.TextPart("Done.")}
		t.artifacts = []a2a.Part{a2a.DataPart(map[string]any{"deleted": t.asked})}
	}
	return t, true
}
