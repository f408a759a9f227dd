package hitlslack

import (
	"context"
	"encoding/json"
	"errors"

	"log/slog"
	"maps"
	"strings"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/transport"
)

// question is one posted message waiting for a decision. Its fields after key are guarded
// by Bot.mu.
type question struct {
	key  msgKey
	kind string
	it   *hitl.Interrupt // hitl and a2a
	req  *hxp.Created    // hxp
	msg  message         // as last rendered

	// pause is the A2A question now being asked; answers receives its answer (buffer 1),
	// nil while no Asker waits.
	pause   *a2a.Pause
	answers chan a2a.Answer
	// stored: taken from the store after a restart; its message may not show its buttons.
	stored bool
	// busy: a click is being submitted, and settled is closed when it is through; by and
	// answer: who decided it in Slack, and how.
	busy       bool
	settled    chan struct{}
	by, answer string
	// shown is the outcome the message shows, once it shows one.
	shown string
}

// Forwarder returns a hitl.Forwarder that posts each interrupt to t as a Block Kit message:
// the prompt, what the review holds, what is at stake (the case's context, an A2A tool call
// and its arguments), who asked, when it expires, a button per inline action of the case
// (HITL §7.5; values from a [hitl.ButtonTable], never a token) or per answer of an A2A
// tool approval, and a button to the review page. It records the message on the
// interrupt's Labels (LabelChannel, LabelTS, LabelAgent), which the client then keeps in its
// store with the interrupt. A reminder is posted as a reply in the message's thread.
//
// A message that could not be posted is an error, and [hitl.Client.Do] then fails: no
// question is lost silently. Slack's 429 answers are waited out (Retry-After) within ctx.
func (b *Bot) Forwarder(t Target) hitl.Forwarder {
	return func(ctx context.Context, it *hitl.Interrupt) error {
		if it == nil || (it.Case == nil && it.Task == nil) {
			return errors.New("hitlslack: forward: no case or task in the interrupt")
		}
		if it.Reminder > 0 {
			return b.remind(ctx, it)
		}
		kind := kindHITL
		if it.Task != nil {
			kind = kindA2A
		}
		q := &question{kind: kind, it: it, pause: it.Task, msg: b.renderInterrupt(it, it.Task)}
		if err := b.publish(ctx, t, q); err != nil {
			return err
		}
		labels := maps.Clone(it.Labels)
		if labels == nil {
			labels = make(map[string]string, 3)
		}
		labels[LabelChannel], labels[LabelTS], labels[LabelAgent] = q.key.channel, q.key.ts, b.agent
		it.Labels = labels
		b.logger.LogAttrs(ctx, slog.LevelDebug, "hitlslack: posted", slog.String("id", it.ID()), slog.String("channel", q.key.channel), slog.String("ts", q.key.ts))
		return nil
	}
}

// publish posts q's message to t and registers q under it. A click that arrives between
// Slack's posting and the registration waits for the registration (see Bot.lookup).
func (b *Bot) publish(ctx context.Context, t Target, q *question) error {
	ch, err := b.channel(ctx, t)
	if err != nil {
		return err
	}
	b.posts(1)
	defer b.posts(-1)
	ts, err := b.post(ctx, ch, q.msg, "")
	if err != nil {
		return err
	}
	q.key = msgKey{ch, ts}
	b.keep(q)
	return nil
}

// posts counts a post beginning (1) or over (-1), and wakes the clicks waiting for one.
func (b *Bot) posts(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.posting += n
	if n < 0 {
		close(b.posted)
		b.posted = make(chan struct{})
	}
}

// keep registers an open question.
func (b *Bot) keep(q *question) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.open[q.key] = q
	if q.pause != nil {
		b.tasks[taskKey(q.pause)] = q.key
		if q.pause.Class == a2a.ClassInputRequired && q.answers == nil {
			// A click before the Asker asks is kept for it.
			q.answers = make(chan a2a.Answer, 1)
		}
	}
}

// remind posts a reminder in the thread of the interrupt's message.
func (b *Bot) remind(ctx context.Context, it *hitl.Interrupt) error {
	k, ok := b.keyOf(it)
	if !ok {
		return ErrNotPosted
	}
	text := "Reminder: this still waits for a decision."
	_, err := b.post(ctx, k.channel, message{text: text, blocks: nil}, k.ts)
	return err
}

// keyOf is the message the interrupt's labels name, when this bot posted it.
func (b *Bot) keyOf(it *hitl.Interrupt) (msgKey, bool) {
	if it == nil || it.Labels[LabelAgent] != b.agent || it.Labels[LabelChannel] == "" || it.Labels[LabelTS] == "" {
		return msgKey{}, false
	}
	return msgKey{it.Labels[LabelChannel], it.Labels[LabelTS]}, true
}

// Asker returns an a2a.Asker that puts each question of an A2A task in Slack and returns the
// answer given there: for a tool approval, a button per option the agent offers (approve
// and deny when it lists none), answered in the shape the agent reads (ADK's confirmation,
// Hector's tool_approval or decision); for any other question, a Reply button that opens a
// modal for a free-text answer. The first question of a task that [Bot.Forwarder] already
// posted is asked on that message — also after a restart, found through WithStore's labels;
// later questions are posted to t. It blocks until the answer or ctx's end, returning
// context.Cause(ctx); the message stays, and a later Asker for the same task takes it up.
func (b *Bot) Asker(t Target) a2a.Asker {
	return func(ctx context.Context, p *a2a.Pause) (a2a.Answer, error) {
		if p == nil {
			return a2a.Answer{}, errors.New("hitlslack: ask: nil pause")
		}
		q, err := b.ask(ctx, t, p)
		if err != nil {
			return a2a.Answer{}, err
		}
		select {
		case a := <-q.answers:
			return a, nil
		case <-ctx.Done():
			return a2a.Answer{}, context.Cause(ctx)
		}
	}
}

// ask finds or posts the message for p and makes it wait for an answer.
func (b *Bot) ask(ctx context.Context, t Target, p *a2a.Pause) (*question, error) {
	var q *question
	for {
		b.mu.Lock()
		q = b.open[b.tasks[taskKey(p)]]
		var pending chan struct{}
		switch {
		case q != nil && q.busy:
			pending = q.settled
		case q != nil && len(q.answers) > 0 && sameQuestion(q.pause, p):
			b.mu.Unlock()
			return q, nil // answered before the Asker asked
		case q != nil && q.by != "":
			q = nil // that question was answered: this is the task's next one
		}
		b.mu.Unlock()
		if pending == nil {
			break
		}
		select {
		case <-pending:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	if q == nil {
		q = b.fromStore(ctx, func(it *hitl.Interrupt) bool {
			return it.Task != nil && it.Task.TaskID == p.TaskID && it.Task.Endpoint.URL == p.Endpoint.URL
		})
	}
	it := &hitl.Interrupt{Kind: hitl.KindA2AInput, Task: p}
	if q != nil {
		it = q.it
	}
	m := b.renderInterrupt(it, p)
	if q == nil {
		q = &question{kind: kindA2A, it: it, pause: p, msg: m}
		return q, b.publish(ctx, t, q)
	}
	if q.stored || !sameMessage(q.msg, m) {
		// A question taken from the store may have been answered by a process that stopped
		// before the agent had the answer: its buttons are shown again.
		if err := b.update(ctx, q.key, m); err != nil {
			return nil, err
		}
	}
	b.mu.Lock()
	q.msg, q.pause, q.stored = m, p, false
	b.mu.Unlock()
	b.keep(q)
	return q, nil
}

// sameQuestion reports whether two pauses ask the same question of the same task.
func sameQuestion(a, b *a2a.Pause) bool {
	if a == nil || b == nil || a.TaskID != b.TaskID {
		return false
	}
	ja, err1 := json.Marshal(a.Question)
	jb, err2 := json.Marshal(b.Question)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

func sameMessage(a, b message) bool {
	ja, err1 := json.Marshal(a.blocks)
	jb, err2 := json.Marshal(b.blocks)
	return err1 == nil && err2 == nil && a.text == b.text && string(ja) == string(jb)
}

// fromStore returns the open question of the first interrupt in the store that match
// accepts and that this bot posted, registered; nil when there is none or no store.
func (b *Bot) fromStore(ctx context.Context, match func(*hitl.Interrupt) bool) *question {
	if b.store == nil {
		return nil
	}
	all, err := b.store.List(ctx)
	if err != nil {
		b.logger.LogAttrs(ctx, slog.LevelWarn, "hitlslack: store list failed", slog.String("err", err.Error()))
		return nil
	}
	for _, it := range all {
		k, ok := b.keyOf(it)
		if !ok || !match(it) {
			continue
		}
		q := &question{key: k, kind: kindHITL, it: it, pause: it.Task, stored: true}
		if it.Task != nil {
			q.kind = kindA2A
		}
		q.msg = b.renderInterrupt(it, it.Task)
		b.mu.Lock()
		have := b.open[k]
		b.mu.Unlock()
		if have != nil {
			return have
		}
		b.keep(q)
		return q
	}
	return nil
}

// ForwardHXP posts an HXP request to t: a DECIDE's options, an APPROVE's item and details
// with approve and reject, a PROVIDE's prompt with a button that opens a modal for the
// value. A click resolves the request as the human through [WithHXP]'s client. The button
// values carry the request id and the answer, so a click reaches the request after a
// restart too. A message that could not be posted is an error.
func (b *Bot) ForwardHXP(ctx context.Context, t Target, cr *hxp.Created) error {
	if cr == nil || cr.Request == nil || cr.Request.Action() == "" {
		return errors.New("hitlslack: ForwardHXP: no request")
	}
	if cr.RequestID == "" || strings.ContainsAny(cr.RequestID, "|\n") || len(cr.RequestID) > 128 {
		return errors.New("hitlslack: ForwardHXP: unusable request id")
	}
	return b.publish(ctx, t, &question{kind: kindHXP, req: cr, msg: b.renderHXP(cr)})
}

// Finish shows r, the Result of it, on its Slack message — the verdict read from r's Status
// and Decision, each outcome with its own mark (✅ only when r.Approved(); see the package
// documentation), who decided, the default an expiry applied, a cancellation's reason — with
// the buttons removed; a later click on the message is told the verdict and changes nothing. Call it with every
// Result of an interrupt the Forwarder posted ([Bot.Resumed] does for Resume).
//
// When the decision was made in Slack, through this bot or as the service records it
// (submission_context.submitted_by on platform "slack"), Finish sets r.RespondedBy's
// Platform to "slack" and PlatformUserID to the person's Slack id. It returns ErrNotPosted
// when the interrupt has no message of this bot; Slack's 429s are waited out within ctx.
func (b *Bot) Finish(ctx context.Context, it *hitl.Interrupt, r *transport.Result) error {
	if r == nil {
		return errors.New("hitlslack: Finish: nil result")
	}
	k, ok := b.keyOf(it)
	if !ok {
		return ErrNotPosted
	}
	q, err := b.settle(ctx, k)
	if err != nil {
		return err
	}
	var by string
	if q != nil && r.Decision != "" {
		b.mu.Lock()
		by = q.by
		b.mu.Unlock()
	}
	if by == "" && r.Decision != "" {
		by = slackSubmitter(r)
	}
	namedInSlack(r, by)
	m := b.renderInterrupt(it, it.Task)
	if q != nil {
		m = q.msg
	}
	text := outcomeText(r, by)
	err = b.show(ctx, q, k, m, text)
	b.end(k, text)
	if it.Case != nil {
		b.buttons.Remove(it.Case.CaseID)
	}
	return err
}

// FinishHXP is Finish for a request posted with ForwardHXP: its message shows r's verdict
// and the answer as given (an option, a value; an APPROVE answered "rejected" is ❌), with
// the buttons removed, and r.RespondedBy names the Slack user when the request was resolved
// through this bot. It returns ErrNotPosted when this process did not post the request.
func (b *Bot) FinishHXP(ctx context.Context, cr *hxp.Created, r *transport.Result) error {
	if cr == nil || r == nil {
		return errors.New("hitlslack: FinishHXP: nil request or result")
	}
	b.mu.Lock()
	var q *question
	for _, o := range b.open {
		if o.req != nil && o.req.RequestID == cr.RequestID {
			q = o
			break
		}
	}
	var by string
	if q != nil && r.Decision != "" {
		by = q.by
	}
	b.mu.Unlock()
	if q == nil {
		return ErrNotPosted
	}
	namedInSlack(r, by)
	// The answer is shown as the human gave it (an option, a value), its mark from the
	// Decision: an APPROVE answered "rejected" is a rejection, whatever the word.
	word := r.Action
	if r.Status == transport.StatusCompleted && len(r.Data) > 0 {
		word = string(r.Data)
		var s string
		if json.Unmarshal(r.Data, &s) == nil {
			word = s
		}
	}
	text := verdict(r, by, word)
	err := b.show(ctx, q, q.key, q.msg, text)
	b.end(q.key, text)
	return err
}

// show puts the outcome text on the message of k, unless the click already put it there.
func (b *Bot) show(ctx context.Context, q *question, k msgKey, m message, text string) error {
	if q != nil {
		b.mu.Lock()
		same := q.shown == text
		b.mu.Unlock()
		if same {
			return nil
		}
	}
	return b.update(ctx, k, ended(m, text))
}

// Resumed returns a ResumeHandler for [hitl.Client.Resume] that shows each Result on its
// message (see Finish) and then calls next. A Finish that fails for another reason than
// ErrNotPosted is returned, and the interrupt stays in the store for the next Resume.
func (b *Bot) Resumed(next hitl.ResumeHandler) hitl.ResumeHandler {
	return func(ctx context.Context, it *hitl.Interrupt, r *transport.Result) error {
		if err := b.Finish(ctx, it, r); err != nil && !errors.Is(err, ErrNotPosted) {
			return err
		}
		if next == nil {
			return nil
		}
		return next(ctx, it, r)
	}
}

// settle returns the open question of k, if any, once no click on it is being submitted:
// the wait may learn the outcome from the service before the submission's answer reaches
// the bot. It returns context.Cause(ctx) if ctx ends first.
func (b *Bot) settle(ctx context.Context, k msgKey) (*question, error) {
	b.mu.Lock()
	q := b.open[k]
	var pending chan struct{}
	if q != nil && q.busy {
		pending = q.settled
	}
	b.mu.Unlock()
	if pending != nil {
		select {
		case <-pending:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	return q, nil
}

// end forgets an open question and remembers what a late click on it is told.
func (b *Bot) end(k msgKey, outcome string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if q := b.open[k]; q != nil {
		delete(b.open, k)
		if q.pause != nil && b.tasks[taskKey(q.pause)] == k {
			delete(b.tasks, taskKey(q.pause))
		}
	}
	if _, seen := b.ended[k]; !seen {
		b.order = append(b.order, k)
	}
	b.ended[k] = outcome
	for len(b.order) > maxEnded {
		delete(b.ended, b.order[0])
		b.order = b.order[1:]
	}
}

// namedInSlack sets r.RespondedBy's platform to slack and its platform user id to by (a
// Slack user id), keeping what the service said; nothing when by is "".
func namedInSlack(r *transport.Result, by string) {
	if by == "" {
		return
	}
	rb := transport.Responder{}
	if r.RespondedBy != nil {
		rb = *r.RespondedBy
	}
	rb.Platform, rb.PlatformUserID = "slack", by
	r.RespondedBy = &rb
}

// slackSubmitter is the Slack user id the service recorded for an inline submission made
// through Slack (HITL §7.6 submission_context.submitted_by), or "".
func slackSubmitter(r *transport.Result) string {
	s, err := hitl.SubmissionOf(r)
	if err != nil || s.Mode != "inline_submit" {
		return ""
	}
	var by hitl.Submitter
	if json.Unmarshal(s.SubmittedBy, &by) != nil || by.Platform != "slack" {
		return ""
	}
	return by.PlatformUserID
}

// toolAnswer is the answer to an A2A tool approval in the shape the agent reads: ADK's
// confirmation, Hector v2's tool_approval, or Hector's decision.
func toolAnswer(p *a2a.Pause, option string) a2a.Answer {
	approve := option == "approve"
	if option != "approve" && option != "deny" {
		return a2a.Answer{Action: option, Parts: []a2a.Part{a2a.TextPart(option),
			a2a.DataPart(map[string]any{"decision": option})}}
	}
	if a, err := a2a.ADKConfirmation(p, approve); err == nil {
		return a
	}
	if a, err := a2a.HectorToolApproval(p, approve); err == nil {
		return a
	}
	return a2a.HectorDecision(approve)
}
