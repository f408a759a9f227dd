package hi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/internal/clientcfg"
	"github.com/hitlkit/hitlkit/internal/decision"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/pace"
	"github.com/hitlkit/hitlkit/transport"
)

// The illustrative routes of the spec's Node.js example (§4).
const (
	routeAgentOutput  = "/agent-output"
	routeFeedback     = "/human-feedback"
	routeInteractions = "/api/interactions/"
)

// defaultPollInterval paces Wait's polls; the spec defines no pacing.
const defaultPollInterval = 5 * time.Second

// Client talks to an HI endpoint at the spec's illustrative routes: POST /agent-output,
// POST /human-feedback, GET /api/interactions/{id}. The zero value is not usable; create it
// with [NewClient]. It is safe for concurrent use.
type Client struct {
	cfg        *clientcfg.Config // telemetry, audit, the waits open
	base       *url.URL
	http       *http.Client
	interval   time.Duration
	timeout    time.Duration
	maxBody    int64
	credential transport.Credential
	logger     *slog.Logger
	polls      *transport.Slots // bound on polls in flight: WithMaxPollsInFlight's, or the default
}

// NewClient returns a client for the endpoint at baseURL, configured by the common options
// of package transport (WithHTTPClient, WithAuthorization, WithAllowPrivateAddresses, …). Defaults:
// http.DefaultClient, polls every 5 s, each request bounded by 30 s, answers up to 1 MiB, no
// credentials, silent, no redirect followed, and the address rules every client of this
// module keeps: an https endpoint at a public address (the spec's example endpoint is a
// local server: reach it with transport.WithAllowPrivateAddresses). A base URL the rules refuse is
// an error matching [transport.ErrRefusedAddress]. A nil option
// is skipped; a bad value, or an option of another client, is an error matching [transport.ErrInvalidOption].
func NewClient(baseURL string, opts ...transport.Option) (*Client, error) {
	c := &Client{}
	cfg, err := clientcfg.New("hi", c, clientcfg.Defaults{PollInterval: defaultPollInterval, RequestTimeout: pace.RequestTimeout}, opts)
	if err != nil {
		return nil, err
	}
	if c.base, err = clientcfg.CheckBase(cfg, "hi", baseURL); err != nil {
		return nil, err
	}
	c.cfg = cfg
	c.http, c.logger, c.polls, c.credential = cfg.Service, cfg.Logger, cfg.Polls, cfg.Credential
	c.interval, c.timeout, c.maxBody = cfg.PollInterval, cfg.RequestTimeout, cfg.MaxBody
	return c, nil
}

// authorize adds the credential to a request for the endpoint's own origin.
func (c *Client) authorize(ctx context.Context, req *http.Request) error {
	if httpx.Origin(req.URL) != httpx.Origin(c.base) {
		return nil
	}
	if err := httpx.Authorize(ctx, req, c.credential); err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	return nil
}

func (c *Client) url(path string) string {
	u := *c.base
	u.Path = strings.TrimSuffix(c.base.Path, "/") + path
	return u.String()
}

// Create sends the agent's interaction (after Validate) and returns the endpoint's copy.
func (c *Client) Create(ctx context.Context, it *Interaction) (*Interaction, error) {
	if it == nil {
		return nil, errors.New("hi: Create: nil interaction")
	}
	if err := it.Validate(); err != nil {
		return nil, err
	}
	return c.exchange(ctx, "create", http.MethodPost, c.url(routeAgentOutput), it)
}

// FeedbackRequest is the body of POST /human-feedback (§4.3).
type FeedbackRequest struct {
	InteractionID string `json:"interactionId"`
	ParticipantID string `json:"participantId"`
	Action        string `json:"action"`
	Reason        string `json:"reason,omitempty"`
	InputText     string `json:"inputText,omitempty"`
}

// Feedback posts one participant's response and returns the interaction as updated. An
// unknown interaction is transport.ErrNotFound; an action it does not allow, ErrUnsupportedAction.
func (c *Client) Feedback(ctx context.Context, f FeedbackRequest) (*Interaction, error) {
	if f.InteractionID == "" || f.ParticipantID == "" {
		return nil, errors.New("hi: Feedback: interaction and participant are required")
	}
	return c.exchange(ctx, "feedback", http.MethodPost, c.url(routeFeedback), f)
}

// Get fetches an interaction.
func (c *Client) Get(ctx context.Context, id string) (*Interaction, error) {
	if id == "" {
		return nil, errors.New("hi: Get: empty id")
	}
	return c.exchange(ctx, "get", http.MethodGet, c.url(routeInteractions+url.PathEscape(id)), nil)
}

// exchange sends one request and reads an interaction from the answer, which is either the
// interaction or {"interaction": …} (the example's feedback answer).
func (c *Client) exchange(ctx context.Context, op, method, target string, in any) (*Interaction, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, fmt.Errorf("hi: %s: %w", op, httpx.StripURL(err))
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if err := c.authorize(ctx, req); err != nil {
		return nil, fmt.Errorf("hi: %s: %w", op, err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("hi: %s %s: %w", op, httpx.Redact(target), httpx.StripURL(err))
	}
	defer httpx.DrainClose(resp.Body)
	raw, err := httpx.ReadLimited(resp.Body, c.maxBody)
	if err != nil {
		return nil, fmt.Errorf("hi: %s: %w", op, err)
	}
	switch resp.StatusCode {
	case http.StatusOK, http.StatusCreated:
	case http.StatusNotFound:
		return nil, fmt.Errorf("hi: %s: %w", op, transport.ErrNotFound)
	case http.StatusBadRequest:
		return nil, fmt.Errorf("hi: %s: %w", op, ErrUnsupportedAction)
	default:
		return nil, fmt.Errorf("hi: %s: %w", op, &transport.StatusError{StatusCode: resp.StatusCode, URL: httpx.Redact(target)})
	}
	return decodeInteraction(raw)
}

func decodeInteraction(raw []byte) (*Interaction, error) {
	var wrapped struct {
		Interaction json.RawMessage `json:"interaction"`
	}
	if json.Unmarshal(raw, &wrapped) == nil && len(wrapped.Interaction) > 0 {
		raw = wrapped.Interaction
	}
	return Parse(raw)
}

// Wait polls the interaction until its status is resolved, then evaluates its history by
// its policy and returns the Result (completed with the outcome, or failed with the
// conflict). An endpoint that marks an interaction resolved although its responses do not
// meet the policy — the spec's own example does, counting only approvals — gives a failed
// Result saying so. Errors: transport.ErrNotFound, a malformed interaction, an answer for another
// interaction ([transport.ErrMismatch]: never another interaction's decision), or
// context.Cause(ctx).
func (c *Client) Wait(ctx context.Context, id string) (*transport.Result, error) {
	if id == "" {
		return nil, errors.New("hi: Wait: empty id")
	}
	return c.cfg.Observe(ctx, transport.Question{Protocol: "hi", Kind: "hi", ID: id},
		func(ctx context.Context) (*transport.Result, error) { return c.wait(ctx, id) })
}

// Pending lists the interactions this client is waiting on now, oldest first: one entry per
// running [Client.Wait], removed when it returns. Safe for concurrent use. The client keeps
// no store of its own; an interaction created and not being waited on is not listed.
func (c *Client) Pending() []transport.Pending { return c.cfg.Pending() }

func (c *Client) wait(ctx context.Context, id string) (*transport.Result, error) {
	pollURL := c.url(routeInteractions + url.PathEscape(id))
	w := &transport.Wait[*transport.Result]{URL: pollURL, Client: c.http, Interval: c.interval, Logger: c.logger,
		RequestTimeout: c.timeout, MaxBody: c.maxBody, Authorize: c.authorize, Slots: c.polls}
	w.Decode = func(body []byte) (*transport.Result, bool, error) {
		it, err := decodeInteraction(body)
		if err != nil {
			return nil, false, err
		}
		if it.InteractionID != id {
			return nil, false, decision.Mismatch("interaction", id, it.InteractionID)
		}
		if it.Status != StatusResolved {
			return nil, false, nil
		}
		t := Evaluate(it)
		if r := t.Result(it.InteractionID); r != nil {
			return r, true, nil
		}
		return &transport.Result{CaseID: it.InteractionID, Status: transport.StatusFailed, EndedAt: time.Now(),
			Reason: "resolved by the endpoint, but the responses do not meet the policy: " + t.Explanation}, true, nil
	}
	res, err := w.Run(ctx)
	if err != nil {
		return nil, fmt.Errorf("hi: wait for %s: %w", id, err)
	}
	return res, nil
}
