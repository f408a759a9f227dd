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

	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/transport"
)

// The illustrative routes of the spec's Node.js example (§4).
const (
	routeAgentOutput  = "/agent-output"
	routeFeedback     = "/human-feedback"
	routeInteractions = "/api/interactions/"
)

// DefaultPollInterval paces Wait's polls; the spec defines no pacing.
const DefaultPollInterval = 5 * time.Second

// Client talks to an HI endpoint at the spec's illustrative routes: POST /agent-output,
// POST /human-feedback, GET /api/interactions/{id}. The zero value is not usable; create it
// with [NewClient]. It is safe for concurrent use.
type Client struct {
	base     *url.URL
	http     *http.Client
	interval time.Duration
	logger   *slog.Logger
}

// NewClient returns a client for the endpoint at baseURL (http or https). hc nil means
// http.DefaultClient; interval 0 means DefaultPollInterval, otherwise at least 1 s.
func NewClient(baseURL string, hc *http.Client, interval time.Duration) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, errors.New("hi: NewClient: base URL must be an absolute http(s) URL")
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	switch {
	case interval == 0:
		interval = DefaultPollInterval
	case interval < time.Second:
		return nil, errors.New("hi: NewClient: poll interval under 1 s")
	}
	return &Client{base: u, http: hc, interval: interval, logger: slog.New(slog.DiscardHandler)}, nil
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
// unknown interaction is ErrNotFound; an action it does not allow, ErrUnsupportedAction.
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
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, fmt.Errorf("hi: %s: %w", op, httpx.StripURL(err))
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("hi: %s %s: %w", op, httpx.Redact(target), httpx.StripURL(err))
	}
	defer httpx.DrainClose(resp.Body)
	raw, err := httpx.ReadLimited(resp.Body, 0)
	if err != nil {
		return nil, fmt.Errorf("hi: %s: %w", op, err)
	}
	switch resp.StatusCode {
	case http.StatusOK, http.StatusCreated:
	case http.StatusNotFound:
		return nil, fmt.Errorf("hi: %s: %w", op, ErrNotFound)
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
// Result saying so. Errors: ErrNotFound, a malformed interaction, an answer for another
// interaction ([*transport.MismatchError]: never another interaction's decision), or
// context.Cause(ctx).
func (c *Client) Wait(ctx context.Context, id string) (*transport.Result, error) {
	if id == "" {
		return nil, errors.New("hi: Wait: empty id")
	}
	p := &transport.Poller{Client: c.http, Interval: c.interval, Logger: c.logger}
	res, err := transport.Poll(ctx, p, c.url(routeInteractions+url.PathEscape(id)), func(body []byte) (*transport.Result, bool, error) {
		it, err := decodeInteraction(body)
		if err != nil {
			return nil, false, err
		}
		if it.InteractionID != id {
			return nil, false, &transport.MismatchError{Object: "interaction", Want: id, Got: it.InteractionID}
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
	})
	if err != nil {
		return nil, fmt.Errorf("hi: wait for %s: %w", id, err)
	}
	return res, nil
}
