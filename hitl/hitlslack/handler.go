package hitlslack

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/internal/decision"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/transport"
)

// Handler returns the http.Handler to mount at the Slack app's interactivity request URL.
// It reads each body through a bound (64 KiB unless [WithMaxBody]; at most 64 read at once,
// each within 10 s), verifies Slack's signature over the raw body in constant time
// (X-Slack-Signature v0 with X-Slack-Request-Timestamp, five minutes either way, each
// signature accepted once), and answers 200 at once, well within Slack's 3 seconds; the
// decision is then made on a goroutine that [Bot.Close] cancels and waits for, at most
// WithMaxConcurrent at a time. A request that is not POST is answered 405, an unsigned,
// forged, stale or replayed one 401, a malformed payload 400, a payload of another agent or
// app 200 and nothing else.
//
// A click on a HITL case's inline action submits it with c ([hitl.Client.SubmitInline],
// submitted_via slack_block_action, submitted_by the Slack user); a click on an A2A question
// answers the [Bot.Asker] waiting for it; a click on an HXP request resolves it through
// [WithHXP]'s client. A free-text answer (an A2A question without a tool call, an HXP
// PROVIDE, an HXP rejection that needs a reason) opens a modal, and its submission decides.
// The message then shows who decided, without buttons. A click on a question already
// decided, or being decided, gets an ephemeral "already decided by …" and changes nothing;
// so does one on a case that ended. c may be nil when no HITL case is posted.
func (b *Bot) Handler(c *hitl.Client) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { b.serve(w, r, c) })
}

func (b *Bot) serve(w http.ResponseWriter, r *http.Request, c *hitl.Client) {
	body, ok := b.intake.ReadPost(w, r)
	if !ok {
		return
	}
	now := time.Now()
	mac, err := verify(b.secret, r.Header.Get(headerTimestamp), r.Header.Get(headerSignature), body, now)
	if err == nil {
		b.mu.Lock()
		err = b.replays.admit(mac, now.Add(2*maxSkew), now)
		b.mu.Unlock()
	}
	switch {
	case errors.Is(err, errBusy):
		httpx.Refuse(w, http.StatusServiceUnavailable, "busy")
		return
	case err != nil:
		b.logger.LogAttrs(r.Context(), slog.LevelDebug, "hitlslack: request refused", slog.String("err", err.Error()))
		http.Error(w, "invalid signature", http.StatusUnauthorized)
		return
	}
	in, err := parseInteraction(body)
	if err != nil {
		b.logger.LogAttrs(r.Context(), slog.LevelDebug, "hitlslack: payload refused", slog.String("err", err.Error()))
		http.Error(w, "malformed payload", http.StatusBadRequest)
		return
	}
	if in == nil || in.value.agent != b.agent {
		w.WriteHeader(http.StatusOK) // a URL button, another app's or another agent's
		return
	}
	select {
	case b.slots <- struct{}{}:
	default:
		httpx.Refuse(w, http.StatusServiceUnavailable, "busy")
		return
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		<-b.slots
		httpx.Refuse(w, http.StatusServiceUnavailable, "closed")
		return
	}
	b.work.Add(1)
	b.mu.Unlock()
	go func() {
		defer b.work.Done()
		defer func() { <-b.slots }()
		b.act(b.life, c, in)
	}()
	w.WriteHeader(http.StatusOK)
}

// act turns one verified interaction into its decision.
func (b *Bot) act(ctx context.Context, c *hitl.Client, in *interaction) {
	if b.allowed != nil && !b.allowed[in.user] {
		b.tell(ctx, in.key, in.user, "You are not among the people who may decide this.")
		return
	}
	q, over := b.lookup(ctx, in)
	if q == nil && in.value.kind != kindHXP {
		if over == "" {
			over = "This question is no longer open."
		}
		b.tell(ctx, in.key, in.user, over)
		return
	}
	switch in.value.kind {
	case kindHITL:
		b.actHITL(ctx, c, q, in)
	case kindA2A:
		b.actA2A(ctx, q, in)
	case kindHXP:
		b.actHXP(ctx, q, over, in)
	}
}

// maxPostWait bounds how long a click on an unknown message waits for the posts in flight.
const maxPostWait = 10 * time.Second

// lookup finds the open question of the message clicked (in this process's memory, else in
// the store), or says how it ended.
func (b *Bot) lookup(ctx context.Context, in *interaction) (q *question, over string) {
	// A click may overtake the answer to its own message's post: it waits for the posts in
	// flight, up to maxPostWait, then takes the message as unknown here.
	timer := time.NewTimer(maxPostWait)
	defer timer.Stop()
wait:
	for {
		b.mu.Lock()
		q = b.open[in.key]
		if text, ok := b.ended[in.key]; ok {
			over = "Already decided: " + text
		}
		posting, posted := b.posting, b.posted
		b.mu.Unlock()
		if q != nil || over != "" || posting == 0 {
			break
		}
		select {
		case <-posted:
		case <-timer.C:
			break wait
		case <-ctx.Done():
			return nil, ""
		}
	}
	if q == nil && over == "" && in.value.kind != kindHXP {
		q = b.fromStore(ctx, func(it *hitl.Interrupt) bool {
			k, ok := b.keyOf(it)
			return ok && k == in.key
		})
	}
	return q, over
}

// claim marks q as being decided; when someone decided it or is deciding it, it tells the
// person and reports false.
func (b *Bot) claim(ctx context.Context, q *question, in *interaction) bool {
	b.mu.Lock()
	var refusal string
	switch {
	case q.by != "":
		refusal = "Already decided by <@" + escape(q.by) + ">: " + escape(q.answer) + "."
	case q.busy:
		refusal = "Someone is deciding this right now."
	default:
		q.busy, q.settled = true, make(chan struct{})
	}
	b.mu.Unlock()
	if refusal != "" {
		b.tell(ctx, in.key, in.user, refusal)
		return false
	}
	return true
}

// decided records who decided q in Slack and shows it on the message, buttons removed.
func (b *Bot) decided(ctx context.Context, q *question, in *interaction, d transport.Decision, answer string) {
	text := clickedText(d, answer, in.user)
	b.mu.Lock()
	q.by, q.answer = in.user, answer
	m := q.msg
	b.mu.Unlock()
	if err := b.update(ctx, q.key, ended(m, text)); err != nil {
		b.logger.LogAttrs(ctx, slog.LevelWarn, "hitlslack: message not updated", slog.String("channel", q.key.channel), slog.String("err", err.Error()))
	} else {
		b.mu.Lock()
		q.shown = text
		b.mu.Unlock()
	}
	b.unbusy(q)
}

// unbusy ends q's submission, letting a Finish waiting for it go on.
func (b *Bot) unbusy(q *question) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if q.busy {
		q.busy = false
		close(q.settled)
	}
}

// release gives q back after a decision that did not go through, and tells the person why.
func (b *Bot) release(ctx context.Context, q *question, in *interaction, why string) {
	b.unbusy(q)
	b.tell(ctx, in.key, in.user, why)
}

func (b *Bot) actHITL(ctx context.Context, c *hitl.Client, q *question, in *interaction) {
	it, action, ok := b.buttons.Lookup(in.value.handle)
	if !ok && q.it != nil {
		b.buttons.Buttons(q.it) // a question taken from the store: its buttons again
		it, action, ok = b.buttons.Lookup(in.value.handle)
	}
	edit, isModal := strings.CutPrefix(in.value.answer, answerModal)
	if !ok || q.it == nil || it.Key() != q.it.Key() || (action != in.value.answer && (!isModal || edit != action)) {
		b.tell(ctx, in.key, in.user, "This button does not belong to this question.")
		return
	}
	var data json.RawMessage
	switch {
	case isModal && in.kind == typeBlockActions:
		b.openModal(ctx, in, "Edit and approve", "Your changes", q.it.Prompt())
		return
	case isModal:
		data, _ = json.Marshal(map[string]string{"feedback": in.text})
	case in.kind != typeBlockActions:
		b.tell(ctx, in.key, in.user, "This button does not belong to this question.")
		return
	}
	if c == nil {
		b.tell(ctx, in.key, in.user, "This agent cannot take decisions in Slack; use the review page.")
		return
	}
	if !b.claim(ctx, q, in) {
		return
	}
	_, err := c.SubmitInline(ctx, q.it, hitl.InlineAnswer{Action: action, Data: data, Via: hitl.ViaSlack,
		By: hitl.Submitter{Platform: "slack", PlatformUserID: in.user, DisplayName: in.name}})
	switch {
	case err == nil:
		b.decided(ctx, q, in, decision.Of(action), title(action))
	case errors.Is(err, hitl.ErrCaseClosed):
		b.release(ctx, q, in, "Already decided, or expired: the message shows the outcome once the agent has it.")
	case errors.Is(err, hitl.ErrUseReviewURL), errors.Is(err, hitl.ErrNotInline):
		b.release(ctx, q, in, "This decision has to be made on the review page: use Open review.")
	default:
		b.logger.LogAttrs(ctx, slog.LevelWarn, "hitlslack: inline submit failed", slog.String("case_id", q.it.ID()), slog.String("err", err.Error()))
		b.release(ctx, q, in, "Your decision could not be submitted; try again.")
	}
}

func (b *Bot) actA2A(ctx context.Context, q *question, in *interaction) {
	b.mu.Lock()
	p := q.pause
	b.mu.Unlock()
	if p == nil || taskHandle(p) != in.value.handle {
		b.tell(ctx, in.key, in.user, "This button does not belong to this question.")
		return
	}
	if in.kind == typeBlockActions && in.value.answer == answerModal {
		b.openModal(ctx, in, "Reply to the agent", "Your answer", p.Prompt())
		return
	}
	var (
		a     a2a.Answer
		label string
		d     = transport.DecisionAnswer
	)
	switch option, isOption := strings.CutPrefix(in.value.answer, answerPrefix); {
	case in.kind == typeViewSubmission && in.value.answer == answerModal:
		if strings.TrimSpace(in.text) == "" {
			b.tell(ctx, in.key, in.user, "An empty answer was not sent.")
			return
		}
		a, label = a2a.Answer{Action: "reply", Parts: []a2a.Part{a2a.TextPart(in.text)}}, "Replied"
	case isOption && in.kind == typeBlockActions && slices.Contains(offered(p), option):
		a, label, d = toolAnswer(p, option), option, decision.Of(option)
	default:
		b.tell(ctx, in.key, in.user, "This button does not belong to this question.")
		return
	}
	if !b.claim(ctx, q, in) {
		return
	}
	b.mu.Lock()
	sent := false
	if q.answers != nil && q.pause == p {
		select {
		case q.answers <- a:
			sent = true
		default:
		}
	}
	b.mu.Unlock()
	if !sent {
		b.release(ctx, q, in, "The agent is not waiting for this answer right now; try again in a moment.")
		return
	}
	b.decided(ctx, q, in, d, title(label))
}

// offered are the answers a tool approval's buttons offer.
func offered(p *a2a.Pause) []string {
	tc, ok := p.ToolCall()
	if !ok {
		return nil
	}
	if len(tc.Options) > 0 {
		return tc.Options
	}
	return []string{"approve", "deny"}
}

func (b *Bot) actHXP(ctx context.Context, q *question, over string, in *interaction) {
	if b.hxp == nil {
		b.tell(ctx, in.key, in.user, "This agent cannot resolve requests in Slack.")
		return
	}
	if q == nil && over != "" {
		b.tell(ctx, in.key, in.user, over)
		return
	}
	if q != nil && (q.req == nil || q.req.RequestID != in.value.handle) {
		b.tell(ctx, in.key, in.user, "This button does not belong to this question.")
		return
	}
	modal, isModal := strings.CutPrefix(in.value.answer, answerModal)
	if in.kind == typeBlockActions && isModal {
		label := "Your answer"
		if modal == "rejected" {
			label = "Why reject?"
		}
		b.openModal(ctx, in, "Answer the request", label, "")
		return
	}
	var (
		result any
		reason string
		shown  string
		d      = transport.DecisionAnswer
	)
	option, isOption := strings.CutPrefix(in.value.answer, answerPrefix)
	switch {
	case isOption && in.kind == typeBlockActions:
		result, shown = option, option
		// A DECIDE's option is an answer, whatever its text; an APPROVE's is a yes or a no.
		if (q == nil || q.req.Request.Decide == nil) && (option == hxp.Approved || option == hxp.Rejected) {
			d = decision.Of(option)
		}
	case isModal && in.kind == typeViewSubmission && modal == "rejected":
		result, reason, shown, d = "rejected", in.text, "rejected", transport.DecisionReject
	case isModal && in.kind == typeViewSubmission && modal == "":
		result, shown = in.text, in.text
		if q != nil && q.req.Request.Provide != nil && q.req.Request.Provide.InputType == hxp.InputNumber {
			n, err := strconv.ParseFloat(strings.TrimSpace(in.text), 64)
			if err != nil {
				b.tell(ctx, in.key, in.user, "That is not a number; nothing was sent.")
				return
			}
			result = n
		}
	default:
		b.tell(ctx, in.key, in.user, "This button does not belong to this question.")
		return
	}
	if q == nil {
		// A request posted before a restart: its message is known by the click alone.
		b.mu.Lock()
		if q = b.open[in.key]; q == nil {
			q = &question{key: in.key, kind: kindHXP, req: &hxp.Created{RequestID: in.value.handle, Request: &hxp.Request{}}}
			b.open[in.key] = q
		}
		b.mu.Unlock()
	}
	if !b.claim(ctx, q, in) {
		return
	}
	_, err := b.hxp.Resolve(ctx, in.value.handle, result, reason)
	switch {
	case err == nil:
		b.decided(ctx, q, in, d, clip(shown, 200))
	case errors.Is(err, hxp.ErrAlreadyResolved):
		b.release(ctx, q, in, "Already decided, or cancelled: the message shows the outcome once the agent has it.")
	case errors.Is(err, hxp.ErrInvalidResolution), errors.Is(err, hxp.ErrBadRequest):
		b.release(ctx, q, in, "The request does not accept that answer; nothing was decided.")
	default:
		b.logger.LogAttrs(ctx, slog.LevelWarn, "hitlslack: resolve failed", slog.String("request_id", in.value.handle), slog.String("err", err.Error()))
		b.release(ctx, q, in, "Your decision could not be submitted; try again.")
	}
}

// openModal opens a modal with one text input; its submission comes back with the
// message and the button's value in private_metadata.
func (b *Bot) openModal(ctx context.Context, in *interaction, heading, label, prompt string) {
	meta, _ := json.Marshal(privateMetadata{Channel: in.key.channel, TS: in.key.ts, Value: in.value.String()})
	input := slack.NewPlainTextInputBlockElement(nil, inputAction)
	input.Multiline = true
	blocks := []slack.Block{}
	if prompt != "" {
		blocks = append(blocks, section(escape(prompt)))
	}
	blocks = append(blocks, slack.NewInputBlock(inputBlock, plain(label), nil, input))
	view := slack.ModalViewRequest{Type: slack.VTModal, Title: plain(clip(heading, 24)), Submit: plain("Send"),
		Close: plain("Cancel"), Blocks: slack.Blocks{BlockSet: blocks}, PrivateMetadata: string(meta), CallbackID: "hitlslack"}
	err := b.rateLimited(ctx, "views.open", func(ctx context.Context) error {
		_, err := b.api.OpenViewContext(ctx, in.trigger, view)
		return err
	})
	if err != nil {
		b.logger.LogAttrs(ctx, slog.LevelWarn, "hitlslack: modal not opened", slog.String("err", err.Error()))
	}
}
