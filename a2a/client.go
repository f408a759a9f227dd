package a2a

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hitlkit/hitlkit/internal/backoff"
	"github.com/hitlkit/hitlkit/internal/clientcfg"
	"github.com/hitlkit/hitlkit/internal/decision"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/transport"
)

// Defaults of a [Client].
const (
	// defaultPollInterval (transport.WithPollInterval's default) is the delay between two tasks/get polls of a waiting task when
	// the agent gives no Retry-After (the relay pattern polls every 5 s).
	defaultPollInterval = 5 * time.Second
	// defaultMaxTurns bounds how many questions [Client.Run] answers for one task.
	defaultMaxTurns = 10
	// defaultRequestTimeout (transport.WithRequestTimeout's default) bounds one request that is not a stream. A blocking send lasts
	// the agent's whole turn, until its task pauses or ends (1.0 §3.1.1), hence the margin.
	defaultRequestTimeout = 2 * time.Minute
	// defaultMaxRepeats bounds how often a wait takes the same transient error from the
	// agent (-32603, -32000 with the same message, a task for another id) before it ends
	// with it.
	defaultMaxRepeats = 8
	// staleGrace is how long [Client.Run] waits, after a resume, for a task that still shows
	// the question just answered to move on (an agent that replies before it processes)
	// before it takes the question as asked again.
	staleGrace = 2 * time.Minute
	// defaultMaxAsksPerCall bounds how often [Client.Run] puts one tool call to the human
	// in a row (RunOptions.MaxAsksPerCall).
	defaultMaxAsksPerCall = 3
	// defaultDeliveries bounds how often [Client.Run] sends one answer when the agent cannot
	// be reached or its reply is lost.
	defaultDeliveries = 5
)

// Client talks to A2A agents on the agent's behalf. It is safe for concurrent use; a zero
// Client is not usable, make one with [NewClient]; the methods of a nil *Client return an
// error saying so.
type Client struct {
	cfg        *clientcfg.Config // telemetry, audit, the waits open
	hc         *http.Client
	credential transport.Credential
	authorize  func(context.Context, *http.Request) error
	logger     *slog.Logger
	interval   time.Duration
	timeout    time.Duration
	maxBody    int64
	newID      func() string
	seq        atomic.Int64
	polls      *transport.Slots // bound on task queries in flight: an option's, or the default
}

// NewClient returns a client configured by opts: the common options of package transport
// (WithHTTPClient, WithAuthorization, WithAllowPrivateAddresses, …) and this package's With
// functions. Defaults: http.DefaultClient, no credentials, silent, task queries every 5 s,
// each request bounded by 2 min (a blocking send lasts the agent's turn), answers up to 1 MiB,
// agents at https URLs on public addresses only, no redirect followed. A nil option is
// skipped; a bad value, or an option of another client, is an error matching [transport.ErrInvalidOption].
func NewClient(opts ...transport.Option) (*Client, error) {
	c := &Client{newID: randomID}
	cfg, err := clientcfg.New("a2a", c, clientcfg.Defaults{PollInterval: defaultPollInterval, RequestTimeout: defaultRequestTimeout}, opts)
	if err != nil {
		return nil, err
	}
	c.cfg = cfg
	c.hc, c.logger, c.polls, c.credential = cfg.Service, cfg.Logger, cfg.Polls, cfg.Credential
	c.interval, c.timeout, c.maxBody = cfg.PollInterval, cfg.RequestTimeout, cfg.MaxBody
	return c, nil
}

// option is an option of a2a clients.
func option(name string, set func(*Client) error) transport.Option {
	return clientcfg.Own("a2a", name, set)
}

// WithAuthorize sets a hook that adds credentials to each request itself, for schemes that
// sign the request (its method, URL or body). It runs after the header of
// [transport.WithAuthorization] is set, once per request, and must be safe for concurrent
// use. Default: none. A nil f is refused.
func WithAuthorize(f func(ctx context.Context, req *http.Request) error) transport.Option {
	return option("WithAuthorize", func(c *Client) error {
		if f == nil {
			return errors.New("nil hook")
		}
		c.authorize = f
		return nil
	})
}

// WithMessageIDs makes the message ids of sends and resumes (default: random 128-bit hex).
// Each call must return an id not used before for the task: agents de-duplicate by it. It
// must be safe for concurrent use. A nil f is refused.
func WithMessageIDs(f func() string) transport.Option {
	return option("WithMessageIDs", func(c *Client) error {
		if f == nil {
			return errors.New("nil function")
		}
		c.newID = f
		return nil
	})
}

func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// SendOptions are per-send settings. A nil *SendOptions means none.
type SendOptions struct {
	// Push asks the agent to POST the task's updates to a webhook.
	Push *PushConfig
	// NonBlocking asks the agent to answer at once with the task as it is (submitted or
	// working, usually) instead of at the end of the turn: 0.3's configuration.blocking
	// false, 1.0's returnImmediately. Follow the task with [Track] and [Client.Wait] or
	// [Client.Run]. Default false: the agent answers when the task ends or pauses.
	NonBlocking bool
}

// Send sends m to the agent at ep (message/send, SendMessage or POST message:send) and
// returns its answer: a Task, or a Message. m's role is always user; an empty MessageID is
// filled in. Send is one request, never retried.
func (c *Client) Send(ctx context.Context, ep Endpoint, m Message, o *SendOptions) (*Event, error) {
	if c == nil {
		return nil, errNilClient
	}
	return c.call(ctx, ep, opSend, "", c.outgoing(&m), o)
}

// outgoing gives m a message id when it has none.
func (c *Client) outgoing(m *Message) *Message {
	if m.MessageID == "" {
		m.MessageID = c.newID()
	}
	return m
}

// do sends req; a failure is reported without the URL's query, or as ctx's cause.
func (c *Client) do(ctx context.Context, req *http.Request) (*http.Response, error) {
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if errors.Is(err, transport.ErrRefusedAddress) {
			// Refused by the address rules: no retry changes the URL or where it points.
			return nil, fmt.Errorf("a2a: %s: %w", httpx.Redact(req.URL.String()), httpx.StripURL(err))
		}
		// Unreachable, reset or timed out: whether the agent got the request is unknown.
		return nil, httpx.Temporary(fmt.Errorf("a2a: %s: %w", httpx.Redact(req.URL.String()), httpx.StripURL(err)))
	}
	return resp, nil
}

// GetTask returns the task id at ep (tasks/get, GetTask, GET /tasks/{id}). A JSON-RPC agent
// that refuses {"id"} — as invalid params, or as Hector v1 does, -32603 "task name is
// required" — is asked once more with {"name":"tasks/<id>"}, as older agents want. An answer
// about another task is transport.ErrMismatch.
func (c *Client) GetTask(ctx context.Context, ep Endpoint, id string) (*Task, error) {
	if c == nil {
		return nil, errNilClient
	}
	ev, err := c.call(ctx, ep, opGet, id, nil, nil)
	if wantsName(ep, err) {
		ev, err = c.call(ctx, ep, opGetByName, id, nil, nil)
	}
	if err != nil {
		return nil, err
	}
	if ev.Task == nil {
		return nil, malformed(errUnrecognised, "task query answered without a task")
	}
	if err := mismatch(id, "", ev.Task); err != nil {
		return nil, err
	}
	return ev.Task, nil
}

// Cancel asks the agent to cancel task id (tasks/cancel, CancelTask, POST /tasks/{id}:cancel)
// and returns the task as the agent reports it, canceled as a rule. A [Client.Wait] or
// [Client.Run] on the task then ends with it (Run: a cancelled Result). Errors:
// ErrTaskNotCancelable when the task has ended, ErrTaskNotFound, transport.ErrMismatch for an
// answer about another task. One request, asked once more by name when the agent wants the
// task's resource name (see [Client.GetTask]).
func (c *Client) Cancel(ctx context.Context, ep Endpoint, id string) (*Task, error) {
	if c == nil {
		return nil, errNilClient
	}
	ev, err := c.call(ctx, ep, opCancel, id, nil, nil)
	if wantsName(ep, err) {
		ev, err = c.call(ctx, ep, opCancelByName, id, nil, nil)
	}
	if err != nil {
		return nil, err
	}
	if ev.Task == nil {
		return nil, malformed(errUnrecognised, "cancel answered without a task")
	}
	if err := mismatch(id, "", ev.Task); err != nil {
		return nil, err
	}
	return ev.Task, nil
}

// Resume answers a task paused for input (or for authorisation) with a: a new message with
// a fresh messageId, the paused task's taskId and, when known, its contextId, spelled for
// the pause's binding, sent with the method the task came from. It returns the agent's
// answer, usually the task in its next state.
//
// Refused without a request: a pause of another class (ErrNotPaused: a finished task, or a
// relay hold, which an administrator resolves) and an answer without parts (ErrNoAnswer).
// An agent that has forgotten the task answers ErrTaskNotFound; one whose task has ended,
// ErrTaskTerminal. A reply that is another task (an agent that starts a new task for an id it
// does not know) is transport.ErrMismatch naming both ids, never the answer.
func (c *Client) Resume(ctx context.Context, p *Pause, a Answer) (*Event, error) {
	if c == nil {
		return nil, errNilClient
	}
	if err := resumable(p, a); err != nil {
		return nil, err
	}
	m := c.answerTo(p, a)
	ev, err := c.call(ctx, p.Endpoint, opSend, m.TaskID, m, nil)
	if err != nil {
		return nil, err
	}
	if err := continues(p, ev.Task); err != nil {
		return nil, err
	}
	return ev, nil
}

// continues checks that t is the continuation of p's task: the same task in the same
// context, or, for a graph interrupt (whose resume starts a new task), any task in p's
// context.
func continues(p *Pause, t *Task) error {
	if p.Checkpoint != nil && t != nil {
		if p.ContextID != "" && t.ContextID != "" && t.ContextID != p.ContextID {
			return decision.Mismatch("task context", p.ContextID, t.ContextID)
		}
		return nil
	}
	return mismatch(p.TaskID, p.ContextID, t)
}

// resumable refuses, before any request, what cannot be a resume.
func resumable(p *Pause, a Answer) error {
	switch {
	case p == nil || (p.Class != ClassInputRequired && p.Class != ClassAuthRequired):
		return ErrNotPaused
	case len(a.Parts) == 0:
		return ErrNoAnswer
	}
	return nil
}

// answerTo is the message that carries a to p's agent: addressed to p's task and context, or,
// for a graph interrupt (the task has completed), to the context alone.
func (c *Client) answerTo(p *Pause, a Answer) *Message {
	m := &Message{MessageID: c.newID(), TaskID: p.TaskID, ContextID: p.ContextID, Parts: a.Parts, Metadata: a.Metadata}
	if p.Checkpoint != nil && p.ContextID != "" {
		m.TaskID = ""
	}
	return m
}

// deliver resumes p with a and returns the task's next state, so that an answer is neither
// lost nor given twice. When the request fails in a way that leaves its fate unknown (the
// agent unreachable, a 5xx or 429, a reply lost), it asks the agent for the task: still
// asking the same question means the answer did not arrive, and the same message (same
// messageId, which agents use to de-duplicate) is sent again; anything else means it
// arrived, and the task's state is the answer. At most 5 sends.
func (c *Client) deliver(ctx context.Context, p *Pause, a Answer) (*Task, error) {
	if err := resumable(p, a); err != nil {
		return nil, err
	}
	m := c.answerTo(p, a)
	bo := backoff.NewExponential(time.Second, 30*time.Second)
	for sends := 1; ; {
		ev, err := c.call(ctx, p.Endpoint, opSend, m.TaskID, m, nil)
		if err == nil {
			err = continues(p, ev.Task)
		}
		switch {
		case err == nil && ev.Task != nil:
			return ev.Task, nil
		case err == nil: // a message in reply: the task's state is fetched by the caller's wait
			return &Task{ID: p.TaskID, ContextID: p.ContextID, State: StateWorking}, nil
		case !httpx.IsTemporary(err) || sends == defaultDeliveries:
			return nil, err
		}
		c.logger.LogAttrs(ctx, slog.LevelDebug, "a2a answer's fate unknown; asking the agent", slog.String("task", p.TaskID), slog.String("err", err.Error()))
		for {
			if !backoff.Pause(ctx, bo.Next(), nil) {
				return nil, context.Cause(ctx)
			}
			t, gerr := c.GetTask(ctx, p.Endpoint, p.TaskID)
			if gerr == nil && !stillAsks(p, t) {
				return t, nil
			}
			if gerr == nil || !httpx.IsTemporary(gerr) {
				if gerr != nil {
					return nil, gerr
				}
				break // the same question: send the same message again
			}
		}
		sends++
	}
}

// wantsName reports an agent that refused a task addressed by id over JSON-RPC and wants its
// resource name, {"name":"tasks/<id>"}: -32602 invalid params, or Hector v1's -32603 whose
// message ends "task name is required".
func wantsName(ep Endpoint, err error) bool {
	if err == nil || ep.Binding.rest() {
		return false
	}
	var ae *Error
	return errors.Is(err, errInvalidParams) ||
		(errors.As(err, &ae) && ae.Code == -32603 && strings.Contains(strings.ToLower(ae.Message), "task name is required"))
}

// stillAsks reports whether t is p's task asking the question p holds: input-required with
// the same status message (by id when both give ids, else by meaning: see [sameParts]), or
// the same pending graph interrupt.
func stillAsks(p *Pause, t *Task) bool {
	if t == nil || t.ID != p.TaskID || Classify(t) != p.Class || (p.Question == nil) != (t.Question == nil) {
		return false
	}
	if p.Checkpoint != nil {
		// A graph interrupt: the same while the task holds the same checkpoint.
		c := checkpointOf(t)
		return c != nil && c.CheckpointID == p.Checkpoint.CheckpointID && c.Key == p.Checkpoint.Key
	}
	if p.Question == nil {
		return true
	}
	if p.Question.MessageID != "" && t.Question.MessageID != "" {
		return p.Question.MessageID == t.Question.MessageID
	}
	return sameParts(p.Question.Parts, t.Question.Parts)
}

// sameParts compares two lists of parts by meaning: data and metadata as JSON values, where
// key order, whitespace and the difference between a null member and an absent one do not
// count (Hector v1 sends "metadata": null on tasks/get and no metadata in a resume's reply).
func sameParts(a, b []Part) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Text != y.Text || x.URL != y.URL || !bytes.Equal(x.Raw, y.Raw) || x.Filename != y.Filename ||
			x.MediaType != y.MediaType || !sameJSON(x.Data, y.Data) || !sameJSON(x.Metadata, y.Metadata) {
			return false
		}
	}
	return true
}

// sameJSON compares two JSON values by meaning (see [sameParts]); absent and null are equal.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if len(bytes.TrimSpace(a)) > 0 && unmarshalNumbers(a, &x) != nil {
		return false
	}
	if len(bytes.TrimSpace(b)) > 0 && unmarshalNumbers(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(withoutNulls(x), withoutNulls(y))
}

// unmarshalNumbers is json.Unmarshal into v keeping each number as the json.Number it was
// sent as, so that an integer above 2^53 is neither rounded nor equal to its neighbour.
func unmarshalNumbers(data []byte, v *any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if len(bytes.TrimSpace(data[dec.InputOffset():])) > 0 {
		return errors.New("a2a: data after the JSON value")
	}
	return nil
}

// withoutNulls drops the null members of every object in v, and makes each number a float64
// but an integer that a float64 would round (beyond 2^53), which stays the text it was sent as.
func withoutNulls(v any) any {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		if err != nil || (math.Abs(f) >= 1<<53 && !strings.ContainsAny(string(v), ".eE")) {
			return string(v)
		}
		return f
	case map[string]any:
		for k, m := range v {
			if m == nil {
				delete(v, k)
			} else {
				v[k] = withoutNulls(m)
			}
		}
	case []any:
		for i := range v {
			v[i] = withoutNulls(v[i])
		}
	}
	return v
}

// call sends one request and decodes its answer.
func (c *Client) call(ctx context.Context, ep Endpoint, o op, taskID string, m *Message, so *SendOptions) (*Event, error) {
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, wantID, err := c.request(rctx, ep, o, taskID, m, so)
	if err != nil {
		return nil, err
	}
	resp, err := c.do(ctx, req)
	if err != nil {
		return nil, err
	}
	defer httpx.DrainClose(resp.Body)
	body, err := httpx.ReadLimited(resp.Body, c.maxBody)
	if err != nil {
		return nil, fmt.Errorf("a2a: read answer: %w", httpx.StripURL(err))
	}
	ev, err := answer(resp, body, wantID)
	c.logger.LogAttrs(ctx, slog.LevelDebug, "a2a call", slog.String("binding", string(ep.Binding)),
		slog.Int("op", int(o)), slog.Int("status", resp.StatusCode), slog.Bool("ok", err == nil))
	return ev, err
}

func (c *Client) request(ctx context.Context, ep Endpoint, o op, taskID string, m *Message, so *SendOptions) (*http.Request, json.RawMessage, error) {
	req, wantID, err := newRequest(ctx, ep, o, c.seq.Add(1), taskID, m, so)
	if err != nil {
		return nil, nil, err
	}
	if err := httpx.Authorize(ctx, req, c.credential); err != nil {
		return nil, nil, fmt.Errorf("a2a: credentials: %w", err)
	}
	if c.authorize != nil {
		if err := c.authorize(ctx, req); err != nil {
			return nil, nil, fmt.Errorf("a2a: credentials: %w", err)
		}
	}
	return req, wantID, nil
}

// answer turns one HTTP response into an event or an error. An agent error travels as JSON
// on 200 (JSON-RPC) or on an error status (REST); anything else on an error status is a
// *transport.StatusError, temporary for 408, 429 and 5xx.
func answer(resp *http.Response, body []byte, wantID json.RawMessage) (*Event, error) {
	ev, err := decode(body, wantID)
	err = scrub(err, resp.Request)
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	var ae *Error
	switch {
	case ok && errors.As(err, &ae):
		return nil, ae.withStatus(resp.StatusCode)
	case ok:
		return ev, err
	case errors.As(err, &ae):
		return nil, ae.withStatus(resp.StatusCode)
	}
	se := &transport.StatusError{StatusCode: resp.StatusCode, URL: httpx.Redact(resp.Request.URL.String()),
		Body: httpx.ScrubBytes(body, 512, httpx.Secrets(resp.Request)...)}
	if c := resp.StatusCode; c == 408 || c == 429 || c >= 500 {
		return nil, httpx.Temporary(se)
	}
	return nil, se
}

// temporary reports the answers a wait rides out: a body that is not JSON (a proxy's page
// with 200), and an agent's internal or generic server error.
func temporary(err error) bool {
	return errors.Is(err, ErrNotJSON) || errors.Is(err, errInternal) || errors.Is(err, errServer) || httpx.IsTemporary(err)
}

// ResultOf turns a finished task into a Result. action is the human's last answer, when a
// human answered: it is the Result's Action, and its Decision is the shared word for it
// (approve is DecisionApprove, deny DecisionReject, another word DecisionAnswer), whatever the agent then did with
// the task, so a "deny" reads the same whether the agent completes the task or rejects it;
// Status is the task's final state. throughRelay says the task was held by a relay, whose
// administrator decides: a task it lets through and that completes is DecisionApprove, its
// rejection (which arrives as "failed") StatusRejected, with DecisionReject when no human
// answered before (else the human's answer stays the Decision). Data is the task
// as [Task] JSON; read it back with [TaskOf].
func ResultOf(t *Task, action string, throughRelay bool) *transport.Result {
	r := &transport.Result{CaseID: t.ID, Reason: t.Question.Text(), Action: action, Decision: decision.Of(action)}
	r.Data, _ = json.Marshal(t) // a Task of plain fields always marshals
	if ts, err := time.Parse(time.RFC3339Nano, t.Timestamp); err == nil {
		r.EndedAt = ts
	}
	switch t.State {
	case StateCompleted:
		r.Status, r.Reason = transport.StatusCompleted, ""
		if throughRelay && action == "" {
			r.Decision = transport.DecisionApprove
		}
	case StateFailed:
		r.Status = transport.StatusFailed
		if throughRelay {
			r.Status = transport.StatusRejected
			if action == "" {
				r.Decision = transport.DecisionReject
			}
		}
	case StateRejected:
		r.Status = transport.StatusRejected
	case StateCanceled:
		r.Status = transport.StatusCancelled
	default:
		return nil
	}
	return r
}

// TaskOf reads back the task a Result from this package holds in Data.
func TaskOf(r *transport.Result) (*Task, error) {
	var t Task
	if err := json.Unmarshal(r.Data, &t); err != nil || t.ID == "" {
		return nil, fmt.Errorf("a2a: result holds no task: %w", errors.Join(err, transport.ErrNoData))
	}
	return &t, nil
}
