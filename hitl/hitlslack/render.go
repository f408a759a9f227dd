package hitlslack

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/transport"
)

// The kinds of question a button belongs to.
const (
	kindHITL = "hitl"
	kindA2A  = "a2a"
	kindHXP  = "hxp"
)

// Slack's Block Kit limits (api.slack.com/reference/block-kit): a section's text holds at
// most 3000 characters, a context element's 2000, a button's value 2000.
const (
	maxSectionText = 3000
	maxValue       = 2000
)

// valueVersion starts every button value of this package.
const valueVersion = "hk1"

// value is what a button carries: the agent, the kind of question, the question's handle
// and the answer. It never holds a token or a URL.
type value struct {
	agent, kind, handle, answer string
}

func (v value) String() string {
	return strings.Join([]string{valueVersion, v.agent, v.kind, v.handle, v.answer}, "|")
}

// parseValue reads a button value; ok is false for any value this package did not make.
func parseValue(s string) (v value, ok bool) {
	if len(s) > maxValue {
		return value{}, false
	}
	parts := strings.SplitN(s, "|", 5)
	if len(parts) != 5 || parts[0] != valueVersion || parts[1] == "" || parts[3] == "" {
		return value{}, false
	}
	switch parts[2] {
	case kindHITL, kindA2A, kindHXP:
	default:
		return value{}, false
	}
	return value{agent: parts[1], kind: parts[2], handle: parts[3], answer: parts[4]}, true
}

// The answers of buttons that open a modal instead of deciding.
const (
	answerModal = "m:"
	// answerPrefix marks an answer that is an option's text.
	answerPrefix = "o:"
)

// taskHandle names an A2A task in button values: 8 characters derived from the agent's
// endpoint and the task id, revealing neither.
func taskHandle(p *a2a.Pause) string {
	sum := sha256.Sum256([]byte(p.Endpoint.URL + "\n" + p.TaskID))
	return base64.RawURLEncoding.EncodeToString(sum[:6])
}

func taskKey(p *a2a.Pause) string { return p.Endpoint.URL + "\n" + p.TaskID }

// message is a message's fallback text (notifications) and its blocks.
type message struct {
	text   string
	blocks []slack.Block
}

// escape makes s safe as Slack mrkdwn text: &, < and > are the control characters.
func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// clip cuts s to at most n bytes on a rune boundary, marking a cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func mrkdwn(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, clip(s, maxSectionText), false, false)
}

func plain(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, clip(s, 75), false, false)
}

func section(s string) *slack.SectionBlock { return slack.NewSectionBlock(mrkdwn(s), nil, nil) }

// code renders JSON as an indented code block, cut to fit a section.
func code(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		b.Reset()
		b.Write(raw)
	}
	body := clip(b.String(), maxSectionText-16)
	return "```" + escape(strings.ReplaceAll(body, "```", "'''")) + "```"
}

// when renders t as Slack's date token, which each reader sees in their own time zone.
func when(t time.Time) string {
	return fmt.Sprintf("<!date^%d^{date_short_pretty} at {time}|%s>", t.Unix(), t.UTC().Format(time.RFC3339))
}

// host is the host of a URL, for "who asked".
func host(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}

// button makes one button with v as its value.
func button(label string, v value, style slack.Style) *slack.ButtonBlockElement {
	id := v.kind + ":" + v.answer
	if len(id) > 255 {
		id = id[:255]
	}
	b := slack.NewButtonBlockElement(id, v.String(), plain(label))
	if style != "" {
		b = b.WithStyle(style)
	}
	return b
}

// styleOf colours the buttons of the usual answers.
func styleOf(action string) slack.Style {
	switch action {
	case "approve", "confirm", "retry", "approved":
		return slack.StylePrimary
	case "reject", "deny", "abort", "cancel", "rejected":
		return slack.StyleDanger
	}
	return ""
}

func title(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return strings.ToUpper(string(r)) + s[n:]
}

// renderInterrupt is the question message for a HITL case or an A2A pause: the prompt, what
// the review holds, what is at stake, who asked, when it expires, and its buttons.
func (b *Bot) renderInterrupt(it *hitl.Interrupt, p *a2a.Pause) message {
	prompt := it.Prompt()
	if p != nil {
		prompt = p.Prompt()
	}
	if prompt == "" {
		prompt = "A decision is needed."
	}
	blocks := []slack.Block{section("*" + escape(prompt) + "*")}
	var facts []string
	if s := it.Summary(); s != "" {
		facts = append(facts, escape(s))
	}
	var buttons []slack.BlockElement
	switch {
	case it.Case != nil:
		cs := it.Case
		if len(cs.Context) > 0 && string(cs.Context) != "null" {
			blocks = append(blocks, section("*Context*\n"+code(cs.Context)))
		}
		if h := host(cs.PollURL); h != "" {
			facts = append(facts, "Asked by "+escape(h))
		}
		if !cs.ExpiresAt.IsZero() {
			e := "Expires " + when(cs.ExpiresAt)
			if cs.DefaultAction != "" {
				e += ", then *" + escape(cs.DefaultAction) + "* applies"
			}
			facts = append(facts, e)
		}
		for _, ib := range b.buttons.Buttons(it) {
			v := value{agent: b.agent, kind: kindHITL, handle: ib.Data, answer: ib.Action}
			label := title(ib.Action)
			if ib.Action == "edit" {
				// An edit carries the person's changes (HITL §10.2 approval data): a modal.
				v.answer, label = answerModal+ib.Action, "Edit…"
			}
			buttons = append(buttons, button(label, v, styleOf(ib.Action)))
		}
		if cs.ReviewURL != "" {
			buttons = append(buttons, slack.NewButtonBlockElement("review", "", plain("Open review")).WithURL(cs.ReviewURL))
		}
	case p != nil:
		if h := host(p.Endpoint.URL); h != "" {
			facts = append(facts, "Asked by the agent at "+escape(h))
		}
		tc, isTool := p.ToolCall()
		if isTool {
			stake := "*Tool call*"
			if tc.Name != "" {
				stake += " `" + escape(tc.Name) + "`"
			}
			if len(tc.Arguments) > 0 {
				stake += "\n" + code(tc.Arguments)
			}
			blocks = append(blocks, section(stake))
		}
		if p.Class == a2a.ClassInputRequired {
			h := taskHandle(p)
			switch {
			case isTool:
				options := tc.Options
				if len(options) == 0 {
					options = []string{"approve", "deny"}
				}
				for _, o := range options {
					if len(buttons) == 24 {
						break
					}
					buttons = append(buttons, button(title(o), value{agent: b.agent, kind: kindA2A, handle: h, answer: answerPrefix + o}, styleOf(o)))
				}
			default:
				buttons = append(buttons, button("Reply…", value{agent: b.agent, kind: kindA2A, handle: h, answer: answerModal}, slack.StylePrimary))
			}
		}
	}
	if len(facts) > 0 {
		blocks = append(blocks, slack.NewContextBlock("", mrkdwn(clip(strings.Join(facts, " · "), 2000))))
	}
	if len(buttons) > 0 {
		blocks = append(blocks, slack.NewActionBlock("decide", buttons...))
	}
	return message{text: clip("Decision needed: "+prompt, 300), blocks: blocks}
}

// renderHXP is the question message for an HXP request: DECIDE's options, APPROVE's item
// and details, PROVIDE's prompt, with a button per answer (PROVIDE opens a modal).
func (b *Bot) renderHXP(cr *hxp.Created) message {
	r := cr.Request
	h := cr.RequestID
	var (
		prompt string
		stake  []string
		ctx    string
		btns   []slack.BlockElement
	)
	answer := func(label, a string) {
		btns = append(btns, button(label, value{agent: b.agent, kind: kindHXP, handle: h, answer: a}, styleOf(a)))
	}
	switch {
	case r.Decide != nil:
		prompt, ctx = r.Decide.Question, r.Decide.Context
		for _, o := range r.Decide.Options {
			answer(o, answerPrefix+o)
		}
		if r.Decide.DefaultOption != "" {
			stake = append(stake, "If nobody answers in time: *"+escape(r.Decide.DefaultOption)+"*")
		}
	case r.Approve != nil:
		prompt, ctx = "Approve "+r.Approve.Item+"?", r.Approve.Context
		if len(r.Approve.Details) > 0 && string(r.Approve.Details) != "null" {
			stake = append(stake, "*Details*\n"+code(r.Approve.Details))
		}
		answer("Approve", answerPrefix+"approved")
		if r.Approve.RejectRequiresReason {
			answer("Reject…", answerModal+"rejected")
		} else {
			answer("Reject", answerPrefix+"rejected")
		}
	case r.Provide != nil:
		prompt, ctx = r.Provide.Prompt, r.Provide.Context
		stake = append(stake, "Answer: "+escape(string(r.Provide.InputType)))
		answer("Answer…", answerModal)
	}
	blocks := []slack.Block{section("*" + escape(prompt) + "*")}
	if ctx != "" {
		blocks = append(blocks, section(escape(ctx)))
	}
	for _, s := range stake {
		blocks = append(blocks, section(s))
	}
	facts := []string{"HXP " + escape(string(r.Action())) + " request"}
	if r.AgentID != "" {
		facts = append(facts, "Asked by "+escape(r.AgentID))
	}
	if !cr.ExpiresAt.IsZero() {
		facts = append(facts, "Expires "+when(cr.ExpiresAt))
	}
	blocks = append(blocks, slack.NewContextBlock("", mrkdwn(clip(strings.Join(facts, " · "), 2000))))
	if len(btns) > 0 {
		blocks = append(blocks, slack.NewActionBlock("decide", btns...))
	}
	return message{text: clip("Decision needed: "+prompt, 300), blocks: blocks}
}

// ended renders a message whose question is over: the question without its buttons, and
// the outcome.
func ended(m message, outcome string) message {
	var blocks []slack.Block
	for _, b := range m.blocks {
		if _, isActions := b.(*slack.ActionBlock); !isActions {
			blocks = append(blocks, b)
		}
	}
	blocks = append(blocks, section(outcome))
	return message{text: clip(outcome, 300), blocks: blocks}
}

// outcomeText says how a Result ended, and who decided: by, a Slack user id, when the
// decision was made in Slack. The verdict is read from Status, Decision and DefaultApplied,
// never from Action, which is only the protocol's word for it (see [verdict]).
func outcomeText(r *transport.Result, by string) string { return verdict(r, by, title(r.Action)) }

// verdict is the line a message shows once its question is over, from r's Status and
// Decision: each outcome its own mark, so that no glance takes one for another — ✅ only
// for a completed approval by a person ([transport.Result.Approved]), ❌ a rejection, 💬 an
// answer that is neither yes nor no, ⌛ an expiry (naming the default the service applied,
// which no person chose), 🚫 a cancellation, ⚠️ a failure, ❔ a completion without a
// decision. word is the protocol's own word for the answer (an action, an option, a value),
// shown where it says more than the decision.
func verdict(r *transport.Result, by, word string) string {
	who := ""
	switch {
	case by != "":
		who = " by <@" + escape(by) + ">"
	case r.RespondedBy != nil && r.RespondedBy.Name != "":
		who = " by " + escape(clip(r.RespondedBy.Name, 200))
	}
	reason := ""
	if r.Reason != "" {
		reason = ": " + escape(clip(r.Reason, 500))
	}
	switch {
	case r.Status == transport.StatusExpired || (r.Status == transport.StatusCompleted && r.DefaultApplied):
		switch {
		case r.DefaultApplied && r.DefaultAction != "":
			return "⌛ *Expired* — nobody answered in time; the default *" + escape(clip(r.DefaultAction, 200)) + "* applied"
		case r.DefaultApplied:
			return "⌛ *Expired* — nobody answered in time; the service's default applied"
		}
		return "⌛ *Expired* — nobody answered in time"
	case r.Status == transport.StatusCompleted:
		if by == "" && r.Decision != "" {
			who += " (on the review page)"
		}
		s := decidedText(r.Decision, word, who)
		if r.Decision == transport.DecisionReject {
			s += reason
		}
		return s
	case r.Status == transport.StatusCancelled:
		return "🚫 *Cancelled*" + reason
	case r.Status == transport.StatusRejected:
		return "❌ *Rejected*" + who + reason
	case r.Status == transport.StatusFailed:
		return "⚠️ *Failed*" + reason
	}
	return "❔ *" + escape(clip(title(string(r.Status)), 64)) + "*" + who + reason
}

// decidedText says what a person decided: the mark and word of decision d, then word (the
// protocol's own: Confirm, Edit, an option) where it differs from the decision's, then who.
func decidedText(d transport.Decision, word, who string) string {
	var s string
	same := []string{""}
	switch d {
	case transport.DecisionApprove:
		s, same = "✅ *Approved*", append(same, "approve", "approved")
	case transport.DecisionReject:
		s, same = "❌ *Rejected*", append(same, "reject", "rejected")
	case transport.DecisionAnswer:
		s, same = "💬 *Answered*", append(same, "answer", "answered", "reply", "replied")
	default:
		s = "❔ *Completed without a decision*"
	}
	if !slices.Contains(same, strings.ToLower(word)) {
		s += ": *" + escape(clip(word, 200)) + "*"
	}
	return s + who
}

// clickedText is what a message says once someone decided it in Slack, before the wait's
// Result is known: the same line the Result then shows (see [verdict]).
func clickedText(d transport.Decision, answer, by string) string {
	return decidedText(d, answer, " by <@"+escape(by)+">")
}
