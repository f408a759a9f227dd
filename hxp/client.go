package hxp

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
	"strconv"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/internal/clientcfg"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/transport"
)

// defaultAPIPrefix is where the HTTP binding mounts its endpoints (§5.1, §10).
const defaultAPIPrefix = "/hxp/v1"

// Defaults.
const (
	// defaultPollInterval paces polls; HXP defines no Retry-After, and the reference SDK
	// polls every 2 s.
	defaultPollInterval = 5 * time.Second
	// defaultMessageLimit bounds one WebSocket message.
	defaultMessageLimit = 1 << 20
	// defaultRequestTimeout bounds every request — create, poll, cancel, list, inbox,
	// resolve — and the WebSocket handshake.
	defaultRequestTimeout = 30 * time.Second
)

// Client talks to one HXP server, as an agent (create, wait, cancel, list) and, with a human
// token, as a human client (inbox, resolve). Create it with [NewClient]; it is safe for
// concurrent use and holds no per-request state. The methods of a nil *Client return an
// error saying to call NewClient.
type Client struct {
	cfg          *clientcfg.Config // telemetry, audit, the waits open
	base         *url.URL
	prefix       string
	http         *http.Client
	agent        transport.Credential // the Authorization value of the agent's endpoints
	human        transport.Credential // the Authorization value of the human's endpoints
	maxBody      int64
	logger       *slog.Logger
	interval     time.Duration
	timeout      time.Duration
	allowPrivate bool
	polls        *transport.Slots // bound on polls in flight: WithMaxPollsInFlight's, or the default
}

// NewClient returns a client for the server at baseURL (scheme and host, e.g.
// "https://hxp.example", and a path only where a proxy mounts the server under one, e.g.
// "https://gw.example/team"), configured by opts. The endpoints are at baseURL's path, then
// the API prefix (/hxp/v1, see WithAPIPrefix), then /requests…; a base URL whose path ends
// with the API prefix already is refused, saying what to give. Options: the common options of package transport
// (WithHTTPClient, WithAuthorization for the agent's key, WithAllowPrivateAddresses, …) and this
// package's With functions. Defaults: http.DefaultClient, endpoints under /hxp/v1, polls
// every 5 s, every request and the WebSocket handshake bounded by 30 s, answers up to 1 MiB,
// no credentials, silent, HTTPS only (§7) at public addresses, no redirect followed (a 3xx is
// an [*APIError]: it would carry the agent's key or the human's token to wherever it points).
// A base URL the address rules refuse is an error matching [transport.ErrRefusedAddress]. A
// nil option is skipped; a bad value, or an option of
// another client, is an error matching [transport.ErrInvalidOption].
func NewClient(baseURL string, opts ...transport.Option) (*Client, error) {
	c := &Client{prefix: defaultAPIPrefix}
	cfg, err := clientcfg.New("hxp", c, clientcfg.Defaults{PollInterval: defaultPollInterval, RequestTimeout: defaultRequestTimeout}, opts)
	if err != nil {
		return nil, err
	}
	if c.base, err = clientcfg.CheckBase(cfg, "hxp", baseURL); err != nil {
		return nil, err
	}
	if path := strings.TrimSuffix(c.base.Path, "/"); c.prefix != "" && strings.HasSuffix(path, c.prefix) {
		give := *c.base
		give.Path, give.RawPath, give.User, give.RawQuery, give.Fragment = strings.TrimSuffix(path, c.prefix), "", nil, "", ""
		return nil, fmt.Errorf("hxp: NewClient: the base URL's path ends with the API prefix %s, which the client adds itself (the endpoints would be under %s%s): give %s, or add hxp.WithAPIPrefix(\"\") to keep this path",
			c.prefix, path, c.prefix, give.String())
	}
	c.cfg = cfg
	c.http, c.logger, c.polls, c.agent = cfg.Service, cfg.Logger, cfg.Polls, cfg.Credential
	c.interval, c.timeout, c.maxBody = cfg.PollInterval, cfg.RequestTimeout, cfg.MaxBody
	c.allowPrivate = cfg.AllowPrivateAddresses
	return c, nil
}

// option is an option of hxp clients.
func option(name string, set func(*Client) error) transport.Option {
	return clientcfg.Own("hxp", name, set)
}

// WithHumanAuthorization sets the human's credential (their token, as
// transport.StaticToken(…)), sent on Inbox and Resolve only, and only to the server's origin.
// It is called per request and must be safe for concurrent use. Default: none. A nil cred
// is refused.
func WithHumanAuthorization(cred transport.Credential) transport.Option {
	return option("WithHumanAuthorization", func(c *Client) error {
		if cred == nil {
			return errors.New("nil credential")
		}
		c.human = cred
		return nil
	})
}

// WithAPIPrefix mounts the endpoints under prefix instead of /hxp/v1 (the OpenAPI file of
// the reference implementation puts them at the server root under /v1, for one). Default
// "/hxp/v1". prefix must be empty or start with /.
func WithAPIPrefix(prefix string) transport.Option {
	return option("WithAPIPrefix", func(c *Client) error {
		if prefix != "" && !strings.HasPrefix(prefix, "/") {
			return errors.New("prefix must start with /")
		}
		c.prefix = strings.TrimSuffix(prefix, "/")
		return nil
	})
}

// ErrMalformed: an answer that is not the JSON the operation expects (a field of the wrong
// type, say). It is permanent: the same record would fail again. A body cut short (invalid
// JSON) is retried while waiting.
var ErrMalformed = errors.New("hxp: malformed answer")

// malformedAnswer types a decode error: a JSON syntax error or a cut body is transient for a
// poll; anything else is ErrMalformed.
func malformedAnswer(op string, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) || errors.Is(err, io.ErrUnexpectedEOF) {
		return httpx.Temporary(fmt.Errorf("hxp: %s: answer is not JSON: %w", op, err))
	}
	return fmt.Errorf("%w: %s: %w", ErrMalformed, op, err)
}

// The error categories of §5.3; match with errors.Is (401 and 404 are
// [transport.ErrUnauthorized] and [transport.ErrNotFound]). The concrete error is an
// [*APIError].
var (
	// ErrBadRequest: 400, the server found the request invalid.
	ErrBadRequest = errors.New("hxp: bad request")
	// ErrTimedOut: 408, the request timed out.
	ErrTimedOut = errors.New("hxp: request timed out")
	// ErrAlreadyResolved: 409, the request was already resolved (or cancelled).
	ErrAlreadyResolved = errors.New("hxp: request already resolved")
	// ErrInvalidResolution: 422, the result does not fit the request.
	ErrInvalidResolution = errors.New("hxp: invalid resolution")
)

// errNilClient is what a method of a nil *Client returns, where it would otherwise panic.
var errNilClient = errors.New("hxp: nil *Client: build one with hxp.NewClient")

// APIError is an error answer of the server. Code is the server's error code when it sent
// one ("reason_required"); Message its message. Neither ever holds a credential.
// URL is the URL called, without its user info, query or fragment. A 401 to a client given
// no credential for the endpoint adds, in the message, which option gives one.
type APIError struct {
	Op         string
	URL        string // "" in an APIError not made by the client
	StatusCode int
	Code       string
	Message    string
	advice     string // what to do, when the client knows
}

func (e *APIError) Error() string {
	s := "hxp: " + e.Op + ": "
	if e.URL != "" {
		s += e.URL + ": "
	}
	s += fmt.Sprintf("%d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.Code != "" {
		s += " (" + e.Code + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.advice != "" {
		s += "; " + e.advice
	}
	return s
}

// Is matches the sentinel of the status's category (§5.3).
func (e *APIError) Is(target error) bool {
	switch e.StatusCode {
	case http.StatusBadRequest:
		return target == ErrBadRequest
	case http.StatusUnauthorized:
		return target == transport.ErrUnauthorized
	case http.StatusNotFound:
		return target == transport.ErrNotFound
	case http.StatusRequestTimeout:
		return target == ErrTimedOut
	case http.StatusConflict:
		return target == ErrAlreadyResolved
	case http.StatusUnprocessableEntity:
		return target == ErrInvalidResolution
	}
	return false
}

type who int

const (
	asAgent who = iota
	asHuman
)

// call sends one request and decodes a 2xx JSON answer into out.
func (c *Client) call(ctx context.Context, op, method, target string, as who, in, out any) (http.Header, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("hxp: %s: %w", op, err)
		}
		body = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, fmt.Errorf("hxp: %s: %w", op, httpx.StripURL(err))
	}
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if err := c.authorize(ctx, req, as); err != nil {
		return nil, fmt.Errorf("hxp: %s: %w", op, err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("hxp: %s %s: %w", op, httpx.Redact(target), httpx.StripURL(err))
	}
	defer httpx.DrainClose(resp.Body)
	raw, err := httpx.ReadLimited(resp.Body, c.maxBody)
	if err != nil {
		return nil, fmt.Errorf("hxp: %s: read answer: %w", op, httpx.StripURL(err))
	}
	c.logger.LogAttrs(ctx, slog.LevelDebug, "hxp", slog.String("op", op),
		slog.String("url", httpx.Redact(target)), slog.Int("status", resp.StatusCode))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := apiError(op, resp.StatusCode, raw, c.secrets(ctx, req))
		e.URL = httpx.Redact(target)
		if resp.StatusCode == http.StatusUnauthorized {
			e.advice = c.noCredential(as)
		}
		return nil, e
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return nil, malformedAnswer(op, err)
		}
	}
	return resp.Header, nil
}

// noCredential says, when the client was given no credential for as's endpoints, that it
// sends none and which option gives one; "" when it has one.
func (c *Client) noCredential(as who) string {
	switch {
	case as == asAgent && c.agent == nil:
		return "the client sends none (it was given no agent key): give transport.WithAuthorization(transport.StaticToken(key)) to hxp.NewClient"
	case as == asHuman && c.human == nil:
		return "the client sends none (it was given no human token): give hxp.WithHumanAuthorization(transport.StaticToken(token)) to hxp.NewClient"
	}
	return ""
}

// secrets lists what must never reach an error string: what req carries, and the agent's
// key and the human's token (a server may echo either, whichever was sent).
func (c *Client) secrets(ctx context.Context, req *http.Request) []string {
	out := httpx.Secrets(req)
	for _, cred := range []transport.Credential{c.agent, c.human} {
		if cred == nil {
			continue
		}
		if v, err := cred(ctx); err == nil {
			out = append(out, v)
			if _, token, ok := strings.Cut(v, " "); ok {
				out = append(out, token)
			}
		}
	}
	return out
}

// apiError reads the error body of the reference server ({"error","message"}) leniently. The
// server's code and message are bounded and have every secret in secrets redacted.
func apiError(op string, code int, raw []byte, secrets []string) *APIError {
	e := &APIError{Op: op, StatusCode: code}
	var b struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(raw, &b) == nil {
		if json.Unmarshal(b.Error, &e.Code) != nil {
			var nested struct{ Code, Message string }
			if json.Unmarshal(b.Error, &nested) == nil {
				e.Code, b.Message = nested.Code, nested.Message
			}
		}
		e.Message = b.Message
	}
	e.Code, e.Message = httpx.Scrub(e.Code, 64, secrets...), httpx.Scrub(e.Message, 200, secrets...)
	return e
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// authorize adds the agent's key or the human's token, only for the server's own origin.
func (c *Client) authorize(ctx context.Context, req *http.Request, as who) error {
	cred := c.agent
	if as == asHuman {
		cred = c.human
	}
	if !c.sameOrigin(req.URL) {
		return nil
	}
	if err := httpx.Authorize(ctx, req, cred); err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	return nil
}

// sameOrigin reports whether u (http, https, ws or wss) is on the server's origin.
func (c *Client) sameOrigin(u *url.URL) bool {
	v := *u
	switch v.Scheme {
	case "ws":
		v.Scheme = "http"
	case "wss":
		v.Scheme = "https"
	}
	return httpx.Origin(&v) == httpx.Origin(c.base)
}

func (c *Client) endpoint(path string, q url.Values) string {
	u := *c.base
	u.Path = strings.TrimSuffix(c.base.Path, "/") + c.prefix + path
	u.RawQuery = q.Encode()
	return u.String()
}

// Create validates r and sends it (§5.1). A request that fails validation is a
// [*RequestError] and nothing is sent. The answer's relative URLs are made absolute.
func (c *Client) Create(ctx context.Context, r *Request) (*Created, error) {
	if c == nil {
		return nil, errNilClient
	}
	if r == nil {
		return nil, &RequestError{Problems: []FieldError{{"request", "nil"}}}
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	var out struct {
		RequestID string `json:"request_id"`
		Status    string `json:"status"`
		CreatedAt string `json:"created_at"`
		ExpiresAt string `json:"expires_at"`
		PollURL   string `json:"poll_url"`
		WSURL     string `json:"ws_url"`
	}
	if _, err := c.call(ctx, "create", http.MethodPost, c.endpoint("/requests", nil), asAgent, r, &out); err != nil {
		return nil, err
	}
	if !validID(out.RequestID) {
		return nil, errors.New("hxp: create: answer without a usable request_id")
	}
	cp := *r
	cr := &Created{RequestID: out.RequestID, Status: out.Status, Request: &cp}
	cr.CreatedAt, _ = time.Parse(time.RFC3339Nano, out.CreatedAt)
	cr.ExpiresAt, _ = time.Parse(time.RFC3339Nano, out.ExpiresAt)
	cr.PollURL = c.resolve(out.PollURL, false)
	if cr.PollURL == "" {
		cr.PollURL = c.endpoint("/requests/"+url.PathEscape(out.RequestID), nil)
	}
	cr.WSURL = c.resolve(out.WSURL, true)
	return cr, nil
}

// resolve makes ref absolute against the server; for a WebSocket URL, with a ws(s) scheme.
// It returns "" for an empty or unusable ref.
func (c *Client) resolve(ref string, websocket bool) string {
	if ref == "" {
		return ""
	}
	u, err := c.base.Parse(ref)
	if err != nil || u.Host == "" {
		return ""
	}
	if websocket {
		switch u.Scheme {
		case "https":
			u.Scheme = "wss"
		case "http":
			u.Scheme = "ws"
		}
		if u.Scheme != "wss" && u.Scheme != "ws" {
			return ""
		}
	} else if u.Scheme != "https" && u.Scheme != "http" {
		return ""
	}
	if clientcfg.CheckURL(u, c.allowPrivate) != nil {
		return ""
	}
	return u.String()
}

func validID(id string) bool {
	return id != "" && len(id) <= 128 && !strings.ContainsAny(id, "/?#\\ ") && id != "." && id != ".."
}

// State is a request as the server reports it (§5.1 Poll): its status, and its receipt once
// it has one. Request is the server's echo of the request, when it sends one.
type State struct {
	RequestID  string   `json:"request_id"`
	Status     string   `json:"status"`
	AssignedTo string   `json:"assigned_to,omitempty"`
	Receipt    *Receipt `json:"receipt,omitempty"`
	Request    *Request `json:"-"`
}

// UnmarshalJSON reads a state, and the request echoed beside it when the server sends the
// action and payload (the reference server does).
func (s *State) UnmarshalJSON(b []byte) error {
	type plain State
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*s = State(p)
	var probe struct {
		Action Action `json:"action"`
	}
	if json.Unmarshal(b, &probe) == nil && probe.Action != "" {
		var r Request
		if r.UnmarshalJSON(b) == nil && r.Action() != "" {
			s.Request = &r
		}
	}
	return nil
}

// Get fetches a request's state (§5.1 Poll Request Status).
func (c *Client) Get(ctx context.Context, requestID string) (*State, error) {
	if c == nil {
		return nil, errNilClient
	}
	if !validID(requestID) {
		return nil, errors.New("hxp: get: malformed request id")
	}
	var st State
	if _, err := c.call(ctx, "get", http.MethodGet, c.endpoint("/requests/"+url.PathEscape(requestID), nil), asAgent, nil, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// Cancel cancels a request (reference server: POST /requests/{id}/cancel). A request already
// resolved gives ErrAlreadyResolved.
func (c *Client) Cancel(ctx context.Context, requestID string) error {
	if c == nil {
		return errNilClient
	}
	if !validID(requestID) {
		return errors.New("hxp: cancel: malformed request id")
	}
	_, err := c.call(ctx, "cancel", http.MethodPost, c.endpoint("/requests/"+url.PathEscape(requestID)+"/cancel", nil), asAgent, struct{}{}, nil)
	return err
}

// ListOptions filters [Client.List]. Zero fields do not filter; Limit 0 means the server's
// default (the reference server does not cap a larger limit).
type ListOptions struct {
	AgentID, ProjectID, Status string
	Limit                      int
}

// List returns the agent's requests.
func (c *Client) List(ctx context.Context, o *ListOptions) ([]State, error) {
	if c == nil {
		return nil, errNilClient
	}
	q := url.Values{}
	if o != nil {
		set(q, "agent_id", o.AgentID)
		set(q, "project_id", o.ProjectID)
		set(q, "status", o.Status)
		if o.Limit > 0 {
			q.Set("limit", strconv.Itoa(o.Limit))
		}
	}
	var out struct {
		Requests []State `json:"requests"`
	}
	if _, err := c.call(ctx, "list", http.MethodGet, c.endpoint("/requests", q), asAgent, nil, &out); err != nil {
		return nil, err
	}
	return out.Requests, nil
}

func set(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

// InboxFilter filters [Client.Inbox]; zero fields do not filter.
type InboxFilter struct {
	Status   string
	Priority Priority
	Action   Action
}

// Inbox is the human's list of requests (§5.1 List Pending Requests).
type Inbox struct {
	Requests   []State `json:"requests"`
	Total      int     `json:"total"`
	Unresolved int     `json:"unresolved"`
}

// Inbox lists the requests waiting for the human whose token the client holds.
func (c *Client) Inbox(ctx context.Context, f *InboxFilter) (*Inbox, error) {
	if c == nil {
		return nil, errNilClient
	}
	q := url.Values{}
	if f != nil {
		set(q, "status", f.Status)
		set(q, "priority", string(f.Priority))
		set(q, "action", string(f.Action))
	}
	var out Inbox
	if _, err := c.call(ctx, "inbox", http.MethodGet, c.endpoint("/inbox", q), asHuman, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Resolve answers a request as the human (§5.1 Resolve Request): result is the option, the
// "approved"/"rejected", or the value; reason is optional ("" sends null). A result that does
// not fit is ErrInvalidResolution (422), a second answer ErrAlreadyResolved (409).
func (c *Client) Resolve(ctx context.Context, requestID string, result any, reason string) (*Receipt, error) {
	if c == nil {
		return nil, errNilClient
	}
	if !validID(requestID) {
		return nil, errors.New("hxp: resolve: malformed request id")
	}
	in := struct {
		Result any     `json:"result"`
		Reason *string `json:"reason"`
	}{Result: result}
	if reason != "" {
		in.Reason = &reason
	}
	var out struct {
		Receipt *Receipt `json:"receipt"`
	}
	if _, err := c.call(ctx, "resolve", http.MethodPost, c.endpoint("/requests/"+url.PathEscape(requestID)+"/resolve", nil), asHuman, in, &out); err != nil {
		return nil, err
	}
	if out.Receipt == nil {
		return nil, errors.New("hxp: resolve: answer without a receipt")
	}
	return out.Receipt, nil
}
