// Package acme is a complete client of a protocol hitlkit does not ship — an in-house
// approval service — written on hitlkit's public packages alone, as a framework or
// protocol maintainer would write one (it imports no internal package):
//
//   - POST /approvals {"prompt","callback_url"} answers 201 {"id","poll_url"}, with a
//     Retry-After for the first poll;
//   - GET poll_url answers {"state":"pending"} (with Retry-After) until a person decides:
//     "approved", or "denied" with a reason, each with "by"; or "expired";
//   - when a person decides, the service POSTs {"id","event","sent_at"} to callback_url,
//     signed with X-Acme-Signature: sha256=<hex HMAC-SHA256 of the body>.
//
// The client takes the options every hitlkit client takes ([transport.Option]: HTTP client,
// credential, logger, bounds, address rules) through [transport.NewConfig], so it refuses
// the same bad values with the same errors, sends its credential to the service's origin
// only, and keeps the address rules on every URL the service hands back. Its wait is a
// [transport.Wait]: polls paced by the service, backoff on failures and cut bodies
// ([transport.Temporary]), a bound on polls in flight, and the signed webhook
// ([transport.Webhook]) waking the wait at once, observed ([transport.Config.Observe]: a
// span, metrics and an audit record, as every hitlkit client's wait). Its question is a [hitl.Interrupt] of its
// own kind, so a hitl.Client with a Store keeps it and, after a restart, resumes it
// ([hitl.WithKindWaiter], [hitl.Client.Resume]).
package acme

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

// Kind is the kind of an acme approval's Interrupt.
const Kind hitl.Kind = "acme-approval"

// SignatureHeader carries the webhook's signature.
const SignatureHeader = "X-Acme-Signature"

// Client asks the acme service for approvals and waits for them. Safe for concurrent use.
type Client struct {
	cfg   *transport.Config
	base  *url.URL
	hooks *transport.Webhook
}

// NewClient returns a client of the service at baseURL, configured by opts: transport's
// options and this package's.
func NewClient(baseURL string, opts ...transport.Option) (*Client, error) {
	c := &Client{}
	cfg, err := transport.NewConfig("acme", c, opts...)
	if err != nil {
		return nil, err
	}
	if err := cfg.CheckURL(baseURL); err != nil {
		return nil, fmt.Errorf("acme: NewClient: base URL: %w", err)
	}
	c.cfg = cfg
	c.base, _ = url.Parse(strings.TrimSuffix(baseURL, "/"))
	return c, nil
}

// WithWebhook makes the client's waits listen to wh (see [NewWebhook]): a verified
// notification for an approval wakes its wait, which confirms it with a poll at once.
func WithWebhook(wh *transport.Webhook) transport.Option {
	return transport.Own("acme", "WithWebhook", func(c *Client) error {
		if wh == nil {
			return errors.New("nil webhook")
		}
		c.hooks = wh
		return nil
	})
}

// NewWebhook returns the receiver of the service's notifications, signed with secret; mount
// it at the URL given as callback_url.
func NewWebhook(secret []byte) (*transport.Webhook, error) {
	return transport.NewWebhook(transport.WebhookOptions{
		Secret: secret, Header: SignatureHeader, Prefix: "sha256=",
		Parse: func(body []byte) (string, string, error) {
			var n struct{ ID, Event string }
			if err := json.Unmarshal(body, &n); err != nil || n.ID == "" || n.Event == "" {
				return "", "", errors.New("not an acme notification")
			}
			return n.ID, n.Event, nil
		},
		Time: func(_ http.Header, body []byte) (time.Time, bool) {
			var n struct {
				SentAt time.Time `json:"sent_at"`
			}
			return n.SentAt, json.Unmarshal(body, &n) == nil && !n.SentAt.IsZero()
		},
	})
}

// pause is the Data of an acme Interrupt: what a wait needs after a restart.
type pause struct {
	PollURL   string    `json:"poll_url"`
	PollAfter time.Time `json:"poll_after,omitzero"`
}

// Request asks for an approval of prompt, to be notified at callbackURL ("" for none), and
// returns the question as an Interrupt of [Kind].
func (c *Client) Request(ctx context.Context, prompt, callbackURL string) (*hitl.Interrupt, error) {
	body, _ := json.Marshal(map[string]string{"prompt": prompt, "callback_url": callbackURL})
	u := c.base.JoinPath("approvals").String()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if err := c.cfg.Authorize(u)(ctx, req); err != nil {
		return nil, err
	}
	resp, err := c.cfg.Service.Do(req)
	if err != nil {
		return nil, fmt.Errorf("acme: request: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return nil, fmt.Errorf("acme: request: %w", &transport.StatusError{StatusCode: resp.StatusCode, URL: u})
	}
	var created struct {
		ID      string `json:"id"`
		PollURL string `json:"poll_url"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, c.cfg.MaxBody)).Decode(&created); err != nil || created.ID == "" {
		return nil, errors.New("acme: request: the answer is not an approval")
	}
	ref, err := url.Parse(created.PollURL)
	if err != nil {
		return nil, errors.New("acme: request: poll_url is not a URL")
	}
	created.PollURL = resp.Request.URL.ResolveReference(ref).String()
	if err := c.cfg.CheckURL(created.PollURL); err != nil {
		return nil, fmt.Errorf("acme: request: poll_url: %w", err)
	}
	p := pause{PollURL: created.PollURL}
	if s, err := time.ParseDuration(resp.Header.Get("Retry-After") + "s"); err == nil {
		p.PollAfter = time.Now().Add(s)
	}
	data, _ := json.Marshal(p)
	return &hitl.Interrupt{Kind: Kind, Message: prompt, Origin: origin(c.base), ReceivedAt: time.Now(),
		Custom: &hitl.CustomPause{ID: created.ID, Data: data}}, nil
}

// Wait waits on an acme Interrupt until a person decides or it expires, and returns the
// Result: a person's no is completed with DecisionReject and its reason in Reason. It is a
// transport.Waiter: give it to hitl.WithKindWaiter(Kind, c) to store and resume acme
// approvals with a hitl.Client.
func (c *Client) Wait(ctx context.Context, it *hitl.Interrupt) (*transport.Result, error) {
	if it == nil || it.Kind != Kind || it.Custom == nil {
		return nil, errors.New("acme: Wait needs an acme interrupt")
	}
	var p pause
	if err := json.Unmarshal(it.Custom.Data, &p); err != nil || p.PollURL == "" {
		return nil, errors.New("acme: Wait: the interrupt holds no poll URL")
	}
	if err := c.cfg.CheckURL(p.PollURL); err != nil {
		return nil, fmt.Errorf("acme: Wait: poll_url: %w", err)
	}
	id := it.Custom.ID
	w := &transport.Wait[*transport.Result]{
		URL:            p.PollURL,
		Client:         c.cfg.Service,
		Authorize:      c.cfg.Authorize(it.Origin), // the credential goes to the service's origin only
		Slots:          c.cfg.Polls,
		MaxBody:        c.cfg.MaxBody,
		Logger:         c.cfg.Logger,
		Interval:       c.cfg.PollInterval,
		RequestTimeout: c.cfg.RequestTimeout,
		FirstDelay:     time.Until(p.PollAfter),
		Decode:         func(body []byte) (*transport.Result, bool, error) { return decode(id, body) },
	}
	if c.hooks != nil {
		w.Watch = []func(func(), func(*transport.Result)) func(){
			func(wake func(), _ func(*transport.Result)) func() { return c.hooks.Watch(id, wake) },
		}
	}
	// Observed as the module's clients observe their waits: a span, the wait metrics, an
	// entry in the Config's Pending while it runs, and one audit Record for its Result.
	q := transport.Question{Protocol: "acme", Kind: string(Kind), ID: id, Prompt: it.Message}
	return c.cfg.Observe(ctx, q, w.Run)
}

// decode reads one poll answer.
func decode(id string, body []byte) (*transport.Result, bool, error) {
	var st struct{ State, By, Reason string }
	if err := json.Unmarshal(body, &st); err != nil {
		return nil, false, transport.Temporary(err) // a body cut short: poll again
	}
	r := &transport.Result{CaseID: id, Status: transport.StatusCompleted, Action: st.State}
	if st.By != "" {
		r.RespondedBy = &transport.Responder{Name: st.By}
	}
	switch st.State {
	case "pending":
		return nil, false, nil
	case "approved":
		r.Decision = transport.DecisionApprove
	case "denied": // the service's own word for a person's no
		r.Decision, r.Reason = transport.DecisionReject, st.Reason
	case "expired":
		r.Status, r.Action, r.RespondedBy = transport.StatusExpired, "", nil
	default:
		return nil, false, fmt.Errorf("acme: unknown state %q", st.State)
	}
	return r, true, nil
}

func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }
