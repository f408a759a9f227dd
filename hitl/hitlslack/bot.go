package hitlslack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/slack-go/slack"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/internal/httpx"
)

// The labels the forwarder puts on an interrupt it posted ([hitl.Interrupt].Labels): the
// message's channel and timestamp, and the agent id of the bot that posted it. They go into
// the client's store with the interrupt, so that a click after a restart finds its case.
const (
	LabelChannel = "slack.channel"
	LabelTS      = "slack.ts"
	LabelAgent   = "slack.agent"
)

// Defaults.
const (
	// DefaultAgentID names the agent in button values when [WithAgentID] is not given.
	DefaultAgentID = "agent"
	// DefaultMaxConcurrent is how many clicks are worked on at once (see [WithMaxConcurrent]).
	DefaultMaxConcurrent = 16
	// maxEnded bounds how many ended messages the bot remembers, to answer a late click with
	// who decided.
	maxEnded = 4096
)

// ErrNotPosted: the interrupt or request has no message of this bot (it was not forwarded
// through it, or its labels name another agent).
var ErrNotPosted = errors.New("hitlslack: no Slack message of this agent for the question")

// Bot puts questions in Slack and turns the clicks on them into decisions. Create it with
// [New]; mount [Bot.Handler] at the Slack app's interactivity request URL; call [Bot.Close]
// when done. A Bot is safe for concurrent use.
type Bot struct {
	api     *slack.Client
	secret  []byte
	agent   string
	store   hitl.Store
	hxp     *hxp.Client
	logger  *slog.Logger
	allowed map[string]bool
	intake  httpx.Intake

	// life bounds the work done after a click was acknowledged; Close ends it and waits.
	life   context.Context
	stop   context.CancelFunc
	work   sync.WaitGroup
	slots  chan struct{}
	closed bool

	mu      sync.Mutex
	open    map[msgKey]*question
	tasks   map[string]msgKey // A2A task (endpoint URL and task id) → its message
	ended   map[msgKey]string // what a late click is told
	order   []msgKey          // ended, oldest first
	dms     map[string]string // user id → direct message channel id
	replays replayCache
	buttons hitl.ButtonTable
	// posting counts the questions being posted; posted is closed and replaced whenever
	// one is registered, so a click that overtakes its own post's answer waits for it.
	posting int
	posted  chan struct{}
}

// msgKey names one Slack message.
type msgKey struct{ channel, ts string }

// Option configures a Bot; an option given a bad value makes New fail.
type Option func(*Bot) error

// New returns a Bot that posts through api (a bot token with the chat:write and im:write
// scopes) and accepts interactivity requests signed with signingSecret (the app's Signing
// Secret). Defaults: agent id DefaultAgentID, no store, no HXP client, anyone who can see
// a message may decide it, no logging.
func New(api *slack.Client, signingSecret string, opts ...Option) (*Bot, error) {
	if api == nil {
		return nil, errors.New("hitlslack: New: nil Slack client")
	}
	if signingSecret == "" {
		return nil, errors.New("hitlslack: New: empty signing secret")
	}
	b := &Bot{
		api:    api,
		secret: []byte(signingSecret),
		agent:  DefaultAgentID,
		logger: slog.New(slog.DiscardHandler),
		open:   make(map[msgKey]*question),
		tasks:  make(map[string]msgKey),
		ended:  make(map[msgKey]string),
		dms:    make(map[string]string),
		posted: make(chan struct{}),
		slots:  make(chan struct{}, DefaultMaxConcurrent),
	}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(b); err != nil {
			return nil, fmt.Errorf("hitlslack: New: %w", err)
		}
	}
	b.life, b.stop = context.WithCancel(context.Background())
	return b, nil
}

// WithAgentID sets the id bound into every button value and label of this bot (at most 64
// characters, no "|"). Two agents that share one Slack app must have different ids: each
// then ignores the other's buttons.
func WithAgentID(id string) Option {
	return func(b *Bot) error {
		if id == "" || len(id) > 64 || strings.ContainsAny(id, "|\n") {
			return errors.New("WithAgentID: empty, over 64 characters or holding | or a newline")
		}
		b.agent = id
		return nil
	}
}

// WithStore makes clicks find their case in s — the store the hitl.Client keeps its
// interrupts in ([hitl.WithStore]) — when this process did not post the message: after a
// restart, or on another replica.
func WithStore(s hitl.Store) Option {
	return func(b *Bot) error {
		if s == nil {
			return errors.New("WithStore: nil store")
		}
		b.store = s
		return nil
	}
}

// WithHXP resolves HXP requests answered in Slack through c, a client holding the human's
// credential ([hxp.WithHumanAuthorization]).
func WithHXP(c *hxp.Client) Option {
	return func(b *Bot) error {
		if c == nil {
			return errors.New("WithHXP: nil client")
		}
		b.hxp = c
		return nil
	}
}

// WithDeciders lets only these Slack users (ids such as "U0123ABC") decide; anyone else's
// click gets an ephemeral refusal and changes nothing. Default: whoever can see the message,
// which in a direct message is the person it was sent to and in a channel every member.
func WithDeciders(userIDs ...string) Option {
	return func(b *Bot) error {
		if len(userIDs) == 0 {
			return errors.New("WithDeciders: no user")
		}
		b.allowed = make(map[string]bool, len(userIDs))
		for _, u := range userIDs {
			if u == "" {
				return errors.New("WithDeciders: empty user id")
			}
			b.allowed[u] = true
		}
		return nil
	}
}

// WithMaxConcurrent bounds the clicks worked on at once (default DefaultMaxConcurrent); a
// click past the bound is answered 503 at once and Slack shows the person an error.
func WithMaxConcurrent(n int) Option {
	return func(b *Bot) error {
		if n < 1 {
			return errors.New("WithMaxConcurrent: needs at least 1")
		}
		b.slots = make(chan struct{}, n)
		return nil
	}
}

// WithLogger sends debug records (channels, message timestamps, case ids; never review
// URLs, tokens or answers) to l. Default: discarded.
func WithLogger(l *slog.Logger) Option {
	return func(b *Bot) error {
		if l == nil {
			return errors.New("WithLogger: nil logger")
		}
		b.logger = l
		return nil
	}
}

// WithMaxBody bounds an interactivity request's body (default 64 KiB); a longer one is
// answered 413 unread.
func WithMaxBody(n int64) Option {
	return func(b *Bot) error {
		if n <= 0 {
			return errors.New("WithMaxBody: size must be positive")
		}
		b.intake.Limit = n
		return nil
	}
}

// Close stops the work begun for clicks already acknowledged (their Slack calls are
// cancelled) and waits for it to end. Clicks that arrive later are answered 503. Close may
// be called more than once.
func (b *Bot) Close() error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.stop()
	b.work.Wait()
	return nil
}

// Target is where a question is posted: a person's direct message with the app ([DM]) or a
// channel ([Channel]).
type Target struct{ user, channel string }

// DM posts to the direct message between the app and the Slack user userID: only that
// person sees the review link, which carries a bearer token.
func DM(userID string) Target { return Target{user: userID} }

// Channel posts to the channel channelID (the app must be a member). Every member of the
// channel sees the message and its review link, which carries a bearer token, and may click
// its buttons unless [WithDeciders] says who may.
func Channel(channelID string) Target { return Target{channel: channelID} }

// rateLimited runs f until Slack stops answering 429, waiting each Retry-After (at least
// 1 s) in between; it gives up when ctx ends. A 429 means Slack did nothing, so no call is
// made twice.
func (b *Bot) rateLimited(ctx context.Context, method string, f func(context.Context) error) error {
	for {
		err := f(ctx)
		var rl *slack.RateLimitedError
		if !errors.As(err, &rl) {
			if err != nil {
				return fmt.Errorf("hitlslack: %s: %w", method, err)
			}
			return nil
		}
		wait := max(rl.RetryAfter, time.Second)
		b.logger.LogAttrs(ctx, slog.LevelDebug, "hitlslack: rate limited", slog.String("method", method), slog.Duration("wait", wait))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("hitlslack: %s: rate limited until the context ended: %w", method, context.Cause(ctx))
		case <-t.C:
		}
	}
}

// channel returns the channel to post to for t, opening the direct message once per user.
func (b *Bot) channel(ctx context.Context, t Target) (string, error) {
	switch {
	case t.channel != "" && t.user == "":
		return t.channel, nil
	case t.user == "" || t.channel != "":
		return "", errors.New("hitlslack: a Target is made with DM or Channel")
	}
	b.mu.Lock()
	ch := b.dms[t.user]
	b.mu.Unlock()
	if ch != "" {
		return ch, nil
	}
	err := b.rateLimited(ctx, "conversations.open", func(ctx context.Context) error {
		c, _, _, err := b.api.OpenConversationContext(ctx, &slack.OpenConversationParameters{Users: []string{t.user}})
		if err == nil {
			ch = c.ID
		}
		return err
	})
	if err != nil {
		return "", err
	}
	if ch == "" {
		return "", errors.New("hitlslack: conversations.open: no channel in the answer")
	}
	b.mu.Lock()
	b.dms[t.user] = ch
	b.mu.Unlock()
	return ch, nil
}

// post posts a message and returns its timestamp.
func (b *Bot) post(ctx context.Context, channel string, m message, threadTS string) (ts string, err error) {
	opts := []slack.MsgOption{slack.MsgOptionText(m.text, false), slack.MsgOptionBlocks(m.blocks...),
		slack.MsgOptionDisableLinkUnfurl(), slack.MsgOptionDisableMediaUnfurl()}
	if threadTS != "" {
		opts = append(opts, slack.MsgOptionTS(threadTS))
	}
	err = b.rateLimited(ctx, "chat.postMessage", func(ctx context.Context) error {
		var err error
		_, ts, err = b.api.PostMessageContext(ctx, channel, opts...)
		return err
	})
	if err == nil && ts == "" {
		err = errors.New("hitlslack: chat.postMessage: no ts in the answer")
	}
	return ts, err
}

// update replaces a message.
func (b *Bot) update(ctx context.Context, k msgKey, m message) error {
	return b.rateLimited(ctx, "chat.update", func(ctx context.Context) error {
		_, _, _, err := b.api.UpdateMessageContext(ctx, k.channel, k.ts, slack.MsgOptionText(m.text, false), slack.MsgOptionBlocks(m.blocks...))
		return err
	})
}

// tell sends user an ephemeral message in the channel of k.
func (b *Bot) tell(ctx context.Context, k msgKey, user, text string) {
	err := b.rateLimited(ctx, "chat.postEphemeral", func(ctx context.Context) error {
		_, err := b.api.PostEphemeralContext(ctx, k.channel, user, slack.MsgOptionText(text, false))
		return err
	})
	if err != nil {
		b.logger.LogAttrs(ctx, slog.LevelDebug, "hitlslack: ephemeral not sent", slog.String("channel", k.channel), slog.String("err", err.Error()))
	}
}
