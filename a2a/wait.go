package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/internal/backoff"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/sse"
	"github.com/hitlkit/hitlkit/transport"
)

// maxStreamEvent bounds one stream event (a2a-go allows 10 MiB data lines).
const maxStreamEvent = 10 << 20

// WaitOptions are per-wait settings. A nil *WaitOptions means polling only.
type WaitOptions struct {
	// Stream also subscribes to the task (tasks/resubscribe, SubscribeToTask,
	// GET /tasks/{id}:subscribe); each event polls at once instead of at the next interval.
	// An agent that will not stream the task (a2a-go answers -32001 for a paused task) leaves
	// the wait polling.
	Stream bool
	// Push wakes the wait when the agent's push notification for the task arrives.
	Push *PushReceiver
	// OnChange is called from the waiting goroutine with each new class the task shows
	// while it still waits (working → auth-required, …). Nil: nothing is reported.
	OnChange func(t *Task, c Class)
	// Interval paces the task queries when the agent sends no Retry-After; at least 1 s.
	// 0 means the client's (WithPollInterval, default 5 s).
	Interval time.Duration
	// Wake, when set, makes the wait query the task at once each time it receives: a way of
	// the caller's own (a chat button, a queue) that learned something. Never closed by
	// the wait; once the caller closes it, it is no longer read and the wait goes on polling.
	Wake <-chan struct{}
}

// Wait waits until the task of p leaves the class it is in: it returns the task once it is
// finished, asks for input (again), or is held by a relay, and keeps waiting while it is
// working, in an unknown state, or still in p's class (auth-required, a relay hold). It
// polls the task at p's endpoint; GetTask is the source of truth, streams and push
// notifications only make it poll sooner.
//
// Pacing is the client's poll interval, or the agent's Retry-After; transient failures
// (network errors, 429, 5xx, a non-JSON page, an agent's internal error) back off and never
// end the wait; the agent's other errors do (ErrTaskNotFound when it forgot the task). When
// ctx ends, Wait returns context.Cause(ctx). It leaves no goroutine behind.
//
// Wait is one observed wait, as [Client.Run] is: one hitl.wait span (see "Telemetry" in the
// transport package's documentation) without a status or decision, since a task is not a
// decision, and an entry in [Client.Pending] while it runs; it makes no audit record and no
// decision-latency measurement.
func (c *Client) Wait(ctx context.Context, p *Pause, o *WaitOptions) (*Task, error) {
	if c == nil {
		return nil, errNilClient
	}
	if p == nil {
		return nil, ErrNotPaused
	}
	var t *Task
	_, err := c.cfg.Observe(ctx, question(p), func(ctx context.Context) (*transport.Result, error) {
		var err error
		t, err = c.wait(ctx, p.Endpoint, p.TaskID, inClass(p.Class), o)
		return nil, err
	})
	return t, err
}

// inClass keeps a wait going while the task works, is in an unknown state, or is still in
// class from.
func inClass(from Class) func(*Task, Class) bool {
	return func(_ *Task, c Class) bool { return c == ClassWorking || c == ClassUnknown || c == from }
}

// wait polls the task until stay reports false for it, and returns it. Snapshots of another
// task are ignored; the same transient error 8 times in a row ends the wait.
// The stream, the push receiver and o.Wake only make it query the task at once.
func (c *Client) wait(ctx context.Context, ep Endpoint, taskID string, stay func(*Task, Class) bool, o *WaitOptions) (*Task, error) {
	if o == nil {
		o = &WaitOptions{}
	}
	if !ep.Binding.valid() || ep.URL == "" {
		return nil, ErrNoEndpoint
	}
	q := &taskQuery{c: c, ep: ep, taskID: taskID, stay: stay, onChange: o.OnChange, get: opGet}
	interval := c.interval
	if o.Interval > 0 {
		interval = max(o.Interval, time.Second)
	}
	w := &transport.Wait[*Task]{URL: ep.URL, Request: q.request, Decode: q.decode,
		Client: c.hc, Interval: interval, MaxBody: c.maxBody, Logger: c.logger, Slots: c.polls}
	if o.Push != nil {
		w.Watch = append(w.Watch, func(wake func(), _ func(*Task)) func() { return o.Push.watch(taskID, wake) })
	}
	if o.Wake != nil {
		w.Push = append(w.Push, func(ctx context.Context, wake func(), _ func(*Task)) error {
			for {
				select {
				case <-ctx.Done():
					return nil
				case _, ok := <-o.Wake:
					if !ok {
						return nil // closed: nothing more to say; the polls go on
					}
					wake()
				}
			}
		})
	}
	if o.Stream {
		var last State // what the stream showed last, across subscriptions
		w.Push = append(w.Push, func(ctx context.Context, wake func(), _ func(*Task)) error {
			return c.follow(ctx, ep, taskID, &last, wake)
		})
	}
	t, err := w.Run(ctx)
	var se *transport.StatusError
	if errors.As(err, &se) {
		// A REST agent's error travels with its status (404 for a task it forgot): type it.
		var ae *Error
		if _, derr := decode(se.Body, nil); errors.As(derr, &ae) {
			return nil, ae.withStatus(se.StatusCode)
		}
	}
	return t, err
}

// taskQuery is the task query of one wait and what its answers taught it.
type taskQuery struct {
	c        *Client
	ep       Endpoint
	taskID   string
	stay     func(*Task, Class) bool
	onChange func(*Task, Class)
	get      op    // opGet, or opGetByName for an older agent
	last     Class // the class last reported to onChange
	repeats  int   // how many times in a row lastErr was met
	lastErr  string
}

func (q *taskQuery) request(ctx context.Context) (*http.Request, error) {
	req, _, err := q.c.request(ctx, q.ep, q.get, q.taskID, nil, nil)
	return req, err
}

// decode reads one answer to the task query: the task when it left the classes stay keeps.
func (q *taskQuery) decode(body []byte) (*Task, bool, error) {
	ev, err := decode(body, nil)
	if err == nil && ev.Task != nil {
		err = mismatch(q.taskID, "", ev.Task)
	}
	switch {
	case q.get == opGet && wantsName(q.ep, err):
		q.get = opGetByName // an older agent that wants {"name":"tasks/<id>"}: ask so
		return nil, false, httpx.Temporary(err)
	case err != nil && (temporary(err) || errors.Is(err, transport.ErrMismatch)):
		return nil, false, q.again(err)
	case err != nil:
		return nil, false, err
	case ev.Task == nil:
		return nil, false, malformed(errUnrecognised, "task query answered without a task")
	}
	q.lastErr, q.repeats = "", 0
	cl := Classify(ev.Task)
	if q.stay(ev.Task, cl) {
		if cl != q.last && q.onChange != nil {
			q.onChange(ev.Task, cl)
		}
		q.last = cl
		return nil, false, nil
	}
	return ev.Task, true, nil
}

// again counts a transient answer: 8 of the same in a row end the wait.
func (q *taskQuery) again(err error) error {
	if msg := err.Error(); msg == q.lastErr {
		q.repeats++
	} else {
		q.lastErr, q.repeats = msg, 1
	}
	if q.repeats >= defaultMaxRepeats {
		return fmt.Errorf("%w (%d times): %w", ErrRepeatedError, q.repeats, err)
	}
	return httpx.Temporary(err)
}

// errStreamEnded: the agent closed the task's stream; it is subscribed again.
var errStreamEnded = errors.New("a2a: the agent closed the task's stream")

// follow subscribes to the task (tasks/resubscribe, SubscribeToTask, GET
// /tasks/{id}:subscribe) and wakes the wait on each event that tells something new: not a
// snapshot of the state the stream showed last (*last, kept across subscriptions, so that a
// resubscription's first snapshot is no news). It returns when the stream ends (errStreamEnded:
// the wait subscribes again), fails, or is refused (wrapping ErrStreamUnavailable when the
// agent will not stream the task), or ctx ends.
func (c *Client) follow(ctx context.Context, ep Endpoint, taskID string, last *State, wake func()) error {
	req, wantID, err := c.request(ctx, ep, opSubscribe, taskID, nil, nil)
	if err != nil {
		return fmt.Errorf("%w: %w", httpx.ErrStreamUnavailable, err)
	}
	resp, err := c.do(ctx, req)
	if err != nil {
		return err
	}
	// Closed, never drained: after an in-stream error the agent may hold the stream open
	// and silent, and a drain would wait on it.
	defer resp.Body.Close()
	if err := streamRefused(resp, c.maxBody, wantID); err != nil {
		if temporary(err) {
			return err
		}
		return fmt.Errorf("%w: %w", httpx.ErrStreamUnavailable, err)
	}
	var refused error
	err = sse.Read(resp.Body, maxStreamEvent, func(e sse.Event) bool {
		ev, err := decode(e.Data, wantID)
		if err != nil {
			refused = err // an in-stream error (-32001 and the like) ends the stream
			return false
		}
		switch {
		case ev.Task != nil && ev.Task.State == *last:
		case ev.Task != nil:
			*last = ev.Task.State
			wake()
		case ev.Status != nil:
			*last = ev.Status.State
			wake()
		default:
			wake()
		}
		return true
	})
	switch {
	case refused != nil && !temporary(refused):
		return fmt.Errorf("%w: %w", httpx.ErrStreamUnavailable, refused)
	case refused != nil:
		return refused
	case err != nil:
		return err
	}
	c.logger.LogAttrs(ctx, slog.LevelDebug, "a2a stream ended", slog.String("task", taskID))
	return errStreamEnded
}

// streamRefused returns the agent's reason when resp is not an event stream: a JSON-RPC or
// REST error (a2a-go's -32001 for a paused task), or the status.
func streamRefused(resp *http.Response, limit int64, wantID json.RawMessage) error {
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode == http.StatusOK && mt == "text/event-stream" {
		return nil
	}
	body, _ := httpx.ReadLimited(resp.Body, min(limit, 64<<10))
	if _, err := answer(resp, body, wantID); err != nil {
		return err
	}
	return fmt.Errorf("a2a: subscribe answered %d without an event stream: %w", resp.StatusCode, httpx.ErrStreamUnavailable)
}

// waitStale polls a task whose resume was answered with the question just answered, until it
// shows anything else. After staleGrace the question is taken as asked again: the task as it
// then is is returned.
func (c *Client) waitStale(ctx context.Context, p *Pause, o *WaitOptions) (*Task, error) {
	sctx, cancel := context.WithTimeoutCause(ctx, staleGrace, errStale)
	defer cancel()
	stale := func(t *Task, cl Class) bool { return cl == ClassWorking || cl == ClassUnknown || stillAsks(p, t) }
	t, err := c.wait(sctx, p.Endpoint, p.TaskID, stale, o)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(sctx), errStale) {
		return c.GetTask(ctx, p.Endpoint, p.TaskID)
	}
	return t, err
}

var errStale = errors.New("the task still shows the question answered")

// RunOptions are per-run settings. A nil *RunOptions means the defaults.
type RunOptions struct {
	// MaxTurns bounds the questions answered; 0 means 10.
	MaxTurns int
	// MaxAsksPerCall bounds how often one tool call (same name, same arguments) is put to the
	// human in a row: an agent that asks again about the call it was just answered on (it
	// did not understand the answer, or lost it on the way) gets the human's new answer, and
	// the human sees that the previous one was not taken ([Pause.NotTaken]); once the call
	// has been put to the human this many times, one more ask ends Run with a
	// [*RepeatedCallError]. 0 means 3.
	MaxAsksPerCall int
	// Notify is told of each hold no Asker can answer — auth-required, a relay waiting for
	// its administrator — once per hold, so the agent can tell its human. Nil: not told.
	Notify func(ctx context.Context, p *Pause)
	// Wait configures the waits between turns.
	Wait WaitOptions
}

// Runner returns [Client.Run] with ask and o as a [transport.Waiter], to be held beside the
// other protocols' waits. o is read at each Wait and must not change meanwhile.
func (c *Client) Runner(ask Asker, o *RunOptions) transport.Waiter[*Pause] {
	return runner{c, ask, o}
}

// runner is a Client's Run as a transport.Waiter.
type runner struct {
	c   *Client
	ask Asker
	o   *RunOptions
}

func (r runner) Wait(ctx context.Context, p *Pause) (*transport.Result, error) {
	return r.c.Run(ctx, p, r.ask, r.o)
}

// runResult is [ResultOf] for a run in which a human gave answers, in order: an answer
// without an action word is a human's decision all the same, every answer is kept in the
// Result's Data ([AnswersOf]), and a no's text is its Reason unless the agent gave one.
func runResult(t *Task, relayed bool, answers []Answer) *transport.Result {
	var last *Answer
	action := ""
	if len(answers) > 0 {
		last = &answers[len(answers)-1]
		action = last.Action
	}
	r := ResultOf(t, action, relayed)
	if r != nil && len(answers) > 0 {
		if r.Decision == "" {
			r.Decision = transport.DecisionAnswer
		}
		if data, err := json.Marshal(resultData{Task: t, Answers: answers}); err == nil {
			r.Data = data
		}
	}
	if r != nil && r.Decision == transport.DecisionReject && r.Reason == "" && last != nil {
		r.Reason = answerReason(last)
	}
	return r
}

// answerReason is the text a human gave with a no, as every protocol reports it in
// Result.Reason: the answer's text parts, without the bare action word.
func answerReason(a *Answer) string {
	var texts []string
	for _, p := range a.Parts {
		if t := strings.TrimSpace(p.Text); t != "" && !strings.EqualFold(t, a.Action) {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, "\n")
}

// resultData is the Data of a Result of Run: the task, and the answers given, in order.
type resultData struct {
	*Task
	Answers []Answer `json:"answers,omitempty"`
}

// AnswersOf returns the answers a [Client.Run] delivered to the task whose Result r is, in
// the order they were given (one per question; an answer the agent did not take is followed
// by the one that replaced it). None for a Result of [ResultOf] or of a run in which no
// human answered.
func AnswersOf(r *transport.Result) ([]Answer, error) {
	if r == nil {
		return nil, transport.ErrNoData
	}
	var d struct {
		Answers []Answer `json:"answers"`
	}
	if err := json.Unmarshal(r.Data, &d); err != nil {
		return nil, fmt.Errorf("a2a: result holds no answers: %w", errors.Join(err, transport.ErrNoData))
	}
	return d.Answers, nil
}

// Run carries a paused task to its end: while the task asks for input it calls ask and
// resumes the task with the answer; while it is working, held by a relay or waiting for
// authorisation it waits (see [Client.Wait]); when the task ends it returns the Result.
// Its Action is the human's last answer, whatever the agent then did with the task (and,
// when that answer is a no, its Reason the words the human gave with it — the answer's text
// beyond the bare action word, so none for a plain [Reject] — unless the task ended in a
// state that carries the agent's own reason), and its Data the final task with every answer given, in order ([TaskOf], [AnswersOf]); its
// Status is the task's final state: completed is StatusCompleted; a relay's "failed" (its
// administrator said no) is StatusRejected; "rejected", "canceled" and "failed" map to
// StatusRejected, StatusCancelled and StatusFailed, with the agent's status text as Reason.
//
// Every question goes to the human; Run never answers for them. An agent that asks again
// about the tool call it was just answered on gets the question put to the human again,
// with the answer it did not take in [Pause.NotTaken], up to RunOptions.MaxAsksPerCall
// times for one call; then Run ends with a [*RepeatedCallError].
//
// An answer is delivered once: when a resume fails in a way that leaves its fate unknown
// (the agent unreachable, a 5xx, a lost reply), Run asks the agent for the task and sends
// the same message again only if the task still asks the same question.
//
// An error means the outcome is unknown: the Asker's error (wrapped, naming the task asked
// about: errors.Is and errors.As match the Asker's error), a resume refused (the task is
// still paused: resume it later from its [Pause]), ErrTooManyTurns, or the agent's error.
func (c *Client) Run(ctx context.Context, p *Pause, ask Asker, o *RunOptions) (*transport.Result, error) {
	if c == nil {
		return nil, errNilClient
	}
	if p == nil {
		return nil, ErrNotPaused
	}
	return c.cfg.Observe(ctx, question(p), func(ctx context.Context) (*transport.Result, error) {
		if ask != nil {
			inner := ask
			ask = func(ctx context.Context, p *Pause) (Answer, error) {
				a, err := inner(ctx, p)
				transport.Forwarded(ctx, err)
				return a, err
			}
		}
		return c.run(ctx, p, ask, o)
	})
}

// question is what p asks, for the wait's span, audit record and the open waits.
func question(p *Pause) transport.Question {
	q := transport.Question{Protocol: "a2a", Kind: "a2a/" + string(p.Class), ID: p.TaskID, Prompt: p.Prompt(), TaskID: p.TaskID}
	if tc, ok := p.ToolCall(); ok {
		q.Arguments = tc.Arguments
	}
	return q
}

// Pending lists the tasks this client is carrying on now ([Client.Run], [Client.Wait]),
// oldest first: one entry per running Run or Wait, removed when it returns. Safe for concurrent use. The client keeps
// no store of its own (hitl's Client lists stored A2A pauses too).
func (c *Client) Pending() []transport.Pending {
	if c == nil {
		return nil
	}
	return c.cfg.Pending()
}

func (c *Client) run(ctx context.Context, p *Pause, ask Asker, o *RunOptions) (*transport.Result, error) {
	if o == nil {
		o = &RunOptions{}
	}
	maxTurns := o.MaxTurns
	if maxTurns <= 0 {
		maxTurns = defaultMaxTurns
	}
	if p == nil {
		return nil, ErrNotPaused
	}
	maxAsks := o.MaxAsksPerCall
	if maxAsks <= 0 {
		maxAsks = defaultMaxAsksPerCall
	}
	var (
		relayed bool
		turns   int
		t       *Task
		err     error
		answers []Answer
		decided = decided{max: maxAsks} // the tool call the last answer decided
	)
	if p.Class == ClassInputRequired && p.Checkpoint == nil {
		// A pause may have been saved a while ago: ask only while the task still asks. (A
		// graph interrupt's task has completed, and trpc-agent-go forgets a streamed one:
		// the resume goes to the checkpoint, which the agent checks.)
		if p, err = c.current(ctx, p); err != nil {
			return nil, err
		}
		if p.Class == ClassDone {
			return ResultOf(p.Task, "", false), nil
		}
	}
	for {
		relayed = relayed || p.Class == ClassRelay || p.Class == ClassRelayPending
		switch p.Class {
		case ClassInputRequired:
			if turns == maxTurns {
				return nil, fmt.Errorf("%w (%d questions answered)", ErrTooManyTurns, turns)
			}
			var a *Answer
			if t, a, err = c.answerTurn(ctx, p, ask, &decided, o); err != nil {
				return nil, err
			}
			if a != nil {
				turns++
				answers = append(answers, *a)
			}
		case ClassWorking, ClassUnknown:
			// A task being worked on (see Track): wait for what it does next.
			if t, err = c.wait(ctx, p.Endpoint, p.TaskID, inClass(ClassWorking), &o.Wait); err != nil {
				return nil, err
			}
		case ClassAuthRequired, ClassRelay, ClassRelayPending:
			if o.Notify != nil {
				o.Notify(ctx, p)
			}
			if t, err = c.wait(ctx, p.Endpoint, p.TaskID, inClass(p.Class), &o.Wait); err != nil {
				return nil, err
			}
		default:
			return nil, ErrNotPaused
		}
		switch Classify(t) {
		case ClassDone:
			return runResult(t, relayed, answers), nil
		case ClassWorking, ClassUnknown:
			if t, err = c.wait(ctx, p.Endpoint, t.ID, inClass(ClassWorking), &o.Wait); err != nil {
				return nil, err
			}
			if Classify(t) == ClassDone {
				return runResult(t, relayed, answers), nil
			}
		}
		p = Track(p.Endpoint, t)
	}
}

// answerTurn puts p's question to the human through ask (saying, when p asks again about
// the call d holds, that the answer was not taken), delivers the answer and returns the
// task's next state with the answer given. The answer is nil when the task moved on while
// the human took their time: it goes only to the question it answers.
func (c *Client) answerTurn(ctx context.Context, p *Pause, ask Asker, d *decided, o *RunOptions) (*Task, *Answer, error) {
	if ask == nil {
		return nil, nil, errors.New("a2a: Run: the task asks for input and no Asker was given")
	}
	began := time.Now()
	p, err := d.again(p)
	if err != nil {
		return nil, nil, err
	}
	a, err := ask(ctx, p)
	if err != nil {
		return nil, nil, fmt.Errorf("a2a: Run: task %s: the Asker returned an error: %w", httpx.Scrub(p.TaskID, 64), err)
	}
	if time.Since(began) >= c.interval && p.Checkpoint == nil {
		// The human took a while: the task may have moved on meanwhile (an agent that gives
		// up on a question fails the task).
		now, err := c.GetTask(ctx, p.Endpoint, p.TaskID)
		if err != nil {
			return nil, nil, err
		}
		if !stillAsks(p, now) {
			return now, nil, nil
		}
	}
	t, err := c.deliver(ctx, p, a)
	if err != nil {
		return nil, nil, err
	}
	d.record(p, a)
	if stillAsks(p, t) {
		// A snapshot from before the agent read the answer: wait for the task to move on
		// rather than ask the human again.
		if t, err = c.waitStale(ctx, p, &o.Wait); err != nil {
			return nil, nil, err
		}
	}
	return t, &a, nil
}

// current returns p as its task now is, when p asks for input: p itself while the task still
// asks p's question, a pause for what the task does now otherwise, and a pause of ClassDone
// holding the task when it has ended. A task whose existence the agent does not confirm is
// never put to the human: a transient failure (unreachable, 429, 5xx, an internal error) is
// asked again, with backoff, up to 8 times; any other error, or the last transient one, is
// returned, and the pause can be run again later.
func (c *Client) current(ctx context.Context, p *Pause) (*Pause, error) {
	now, err := c.GetTask(ctx, p.Endpoint, p.TaskID)
	bo := backoff.NewExponential(time.Second, 30*time.Second)
	for tries := 1; err != nil && temporary(err) && tries < defaultMaxRepeats; tries++ {
		if !backoff.Pause(ctx, bo.Next(), nil) {
			return nil, context.Cause(ctx)
		}
		now, err = c.GetTask(ctx, p.Endpoint, p.TaskID)
	}
	switch {
	case err != nil:
		return nil, err
	case stillAsks(p, now):
		return p, nil
	}
	if np := Track(p.Endpoint, now); np != nil {
		return np, nil
	}
	return &Pause{Class: ClassDone, Endpoint: p.Endpoint, TaskID: now.ID, ContextID: now.ContextID, Task: now}, nil
}

// decided is the tool call a run's last answer decided, and how often in a row it was put to
// the human, so that the same call asked again at once (an agent that did not understand the
// answer, or did not see it: part metadata dropped on the way, a new confirmation id) is put
// to the human again, saying so, within a bound.
type decided struct {
	call   *ToolCall
	answer Answer
	asked  int // how often in a row call was put to the human
	max    int // RunOptions.MaxAsksPerCall
}

// record notes that a answered p.
func (d *decided) record(p *Pause, a Answer) {
	tc, ok := p.ToolCall()
	if !ok || tc.Name == "" || len(tc.Arguments) == 0 {
		// Without a name and arguments two questions cannot be told to be the same call.
		*d = decided{max: d.max}
		return
	}
	asked := 1
	if d.same(tc) {
		asked = d.asked + 1
	}
	*d = decided{call: tc, answer: a, asked: asked, max: d.max}
}

func (d *decided) same(tc *ToolCall) bool {
	return d.call != nil && tc.Name == d.call.Name && sameJSON(tc.Arguments, d.call.Arguments)
}

// again returns p as the human should see it: when p asks about the call just answered, a
// copy holding the answer not taken, or a *RepeatedCallError once the call has been put to
// the human d.max times.
func (d *decided) again(p *Pause) (*Pause, error) {
	tc, ok := p.ToolCall()
	if !ok || !d.same(tc) {
		return p, nil
	}
	if d.asked >= d.max {
		return nil, &RepeatedCallError{TaskID: p.TaskID, Call: *tc, Action: d.answer.Action, Asked: d.asked}
	}
	c := *p
	not := d.answer
	c.NotTaken = &not
	return &c, nil
}
