// Package hitlslacktest is a fake Slack for testing an app that asks its humans in Slack
// through hitlslack: it answers the Web API calls the bot makes and logs each one, and it
// plays the person — a click on a button, the submission of a modal — as requests signed
// the way Slack signs them, for the app's interactivity handler.
//
// The fakes of hitlkit (hitltest, a2atest, hxptest and this one) share one shape,
// net/http/httptest's with a testing.TB: [NewServer] binds loopback and closes the server
// when the test ends; [NewMemoryServer] serves through an in-memory transport, with no
// socket, so it works inside a testing/synctest bubble; [NewUnstartedServer] with
// [Server.Start] is for programs and Examples, which call Close themselves.
// [Server.Requests] is the log of what it received.
//
// The Web API: [Server.API] is a slack-go client of the fake, holding its bot token. The
// fake answers chat.postMessage, chat.update, chat.postEphemeral, conversations.open and
// views.open as Slack does (a new message gets a timestamp "1700000000.000001", then
// …000002; the direct message with user U… is channel "DU…"), refuses a call without the
// bot token (not_authed, invalid_auth), an update of a message it never posted
// (message_not_found) and any other method (unknown_method). [Server.RateLimit],
// [Server.Fail] and [Server.Stall] script Slack's bad days: a 429 with Retry-After, an
// error answer, no answer at all. Tokens are never logged.
//
// The person: [Server.Click] is the signed request of a click on a posted message's
// button, [Server.Submit] that of a modal's submission, to hand to the interactivity
// handler (handler.ServeHTTP). [ClickBody], [SubmitBody] and [Sign] build the same requests
// piece by piece, for a test that forges, alters or replays one.
//
// All methods are safe for concurrent use.
package hitlslacktest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/hitlkit/hitlkit/internal/memhttp"
)

// Defaults of the credentials.
const (
	// DefaultSigningSecret signs the interactivity requests unless [WithSigningSecret].
	DefaultSigningSecret = "8f742231b10e8888abcd99yyyzzz85a5"
	// DefaultBotToken is the bot token the Web API accepts unless [WithBotToken].
	DefaultBotToken = "xoxb-hitlslacktest"
)

// methods are the Web API methods the fake answers; any other is answered unknown_method.
var methods = []string{"chat.postMessage", "chat.update", "chat.postEphemeral", "conversations.open", "views.open"}

// maxBody bounds a Web API call's body read by the fake.
const maxBody = 1 << 20

type config struct {
	secret, token string
}

// Option configures a Server.
type Option func(*config)

// WithSigningSecret sets the signing secret of the requests [Server.Click] and
// [Server.Submit] make: the app's Signing Secret, as given to hitlslack.New. Default
// [DefaultSigningSecret].
func WithSigningSecret(secret string) Option { return func(c *config) { c.secret = secret } }

// WithBotToken sets the only bot token the Web API accepts, the one [Server.API] holds.
// Default [DefaultBotToken].
func WithBotToken(token string) Option { return func(c *config) { c.token = token } }

// Server is a running fake Slack.
type Server struct {
	// URL is the Web API's base URL, ending in "/api/": http://127.0.0.1:port/api/ for a
	// loopback server, https://slack.test/api/ for an in-memory one. Give it to slack-go
	// with slack.OptionAPIURL, or use [Server.API].
	URL string

	cfg     config
	handler http.Handler
	srv     *httptest.Server
	client  *http.Client
	stop    context.Context
	cancel  context.CancelFunc
	once    sync.Once

	mu       sync.Mutex
	requests []Request
	changed  chan struct{}
	seq      int
	messages map[[2]string]bool // channel, ts
	limited  map[string][]time.Duration
	failing  map[string][]string
	stalled  map[string]bool
}

// Request is one Web API call the server received, for assertions. It never holds the
// token the call carried.
type Request struct {
	// Method is the Web API method, such as "chat.postMessage".
	Method string
	// Channel, TS, User and Text are the call's arguments of those names (User holds
	// conversations.open's users); for chat.postMessage, TS is the new message's timestamp
	// as the fake answered it, "" when it answered an error.
	Channel, TS, User, Text string
	// ThreadTS is the thread a posted message replies to; "" for a message of its own.
	ThreadTS string
	// Blocks is the call's Block Kit blocks, raw JSON; for views.open, the view.
	Blocks json.RawMessage
	// TriggerID is views.open's trigger_id.
	TriggerID string
	// Status is the HTTP status answered: 200, 429 when rate limited, 0 for a stalled call
	// not answered yet.
	Status int
	// Error is the error of an ok:false answer ("channel_not_found", …); "" when ok.
	Error string
	// Time is when the call arrived.
	Time time.Time
}

// OK reports whether Slack did what the call asked: answered 200 with ok:true.
func (r Request) OK() bool { return r.Status == http.StatusOK && r.Error == "" }

// Button is a button of a message's blocks.
type Button struct {
	// Label is the button's text; ActionID and BlockID name it and its actions block.
	Label, ActionID, BlockID string
	// Value is what a click sends back; "" for a link button.
	Value string
	// URL is a link button's address; "" for another.
	URL string
}

// Buttons returns the buttons of the call's blocks (a message's, or a view's), in order.
func (r Request) Buttons() []Button {
	raw := r.Blocks
	var view struct {
		Blocks json.RawMessage `json:"blocks"`
	}
	if len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &view) == nil {
		raw = view.Blocks
	}
	var bs slack.Blocks
	if len(raw) == 0 || json.Unmarshal(raw, &bs) != nil {
		return nil
	}
	var out []Button
	for _, b := range bs.BlockSet {
		a, ok := b.(*slack.ActionBlock)
		if !ok || a.Elements == nil {
			continue
		}
		for _, e := range a.Elements.ElementSet {
			if btn, ok := e.(*slack.ButtonBlockElement); ok {
				label := ""
				if btn.Text != nil {
					label = btn.Text.Text
				}
				out = append(out, Button{Label: label, ActionID: btn.ActionID, BlockID: a.BlockID, Value: btn.Value, URL: btn.URL})
			}
		}
	}
	return out
}

// Button returns the button labelled label, and whether there is one.
func (r Request) Button(label string) (Button, bool) {
	for _, b := range r.Buttons() {
		if b.Label == label {
			return b, true
		}
	}
	return Button{}, false
}

// String prints the call for a test's failure message: the method, the answer when it was
// not ok, the arguments and the buttons' labels.
func (r Request) String() string {
	s := r.Method
	if r.Status != http.StatusOK {
		s += fmt.Sprintf(" → %d", r.Status)
	}
	if r.Error != "" {
		s += " → " + r.Error
	}
	for _, kv := range [][2]string{{"channel", r.Channel}, {"ts", r.TS}, {"user", r.User}, {"text", r.Text}} {
		if kv[1] != "" {
			s += fmt.Sprintf(" %s=%q", kv[0], kv[1])
		}
	}
	var labels []string
	for _, b := range r.Buttons() {
		labels = append(labels, b.Label)
	}
	if len(labels) > 0 {
		s += " buttons=" + strings.Join(labels, ",")
	}
	return s
}

func newServer(opts []Option) *Server {
	s := &Server{
		cfg:      config{secret: DefaultSigningSecret, token: DefaultBotToken},
		changed:  make(chan struct{}),
		messages: make(map[[2]string]bool),
		limited:  make(map[string][]time.Duration),
		failing:  make(map[string][]string),
		stalled:  make(map[string]bool),
	}
	for _, o := range opts {
		if o != nil {
			o(&s.cfg)
		}
	}
	s.stop, s.cancel = context.WithCancel(context.Background())
	mux := http.NewServeMux()
	mux.HandleFunc("/api/", s.serve)
	s.handler = mux
	return s
}

// NewUnstartedServer returns a server that is not yet listening, for programs and
// Examples: call [Server.Start], and Close when done.
func NewUnstartedServer(opts ...Option) *Server { return newServer(opts) }

// Start starts the server on a loopback port. It panics if the server was already started.
func (s *Server) Start() {
	if s.URL != "" {
		panic("hitlslacktest: Server already started")
	}
	s.srv = httptest.NewServer(s.handler)
	s.URL, s.client = s.srv.URL+"/api/", s.srv.Client()
}

// NewServer starts a server on a loopback port and closes it when tb's test ends.
func NewServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := newServer(opts)
	s.Start()
	tb.Cleanup(s.Close)
	return s
}

// NewMemoryServer returns a server reached only through [Server.Client] (and
// [Server.API]), over an in-memory transport: no socket, usable inside a testing/synctest
// bubble. Its URL is https://slack.test/api/.
func NewMemoryServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := newServer(opts)
	s.URL = "https://slack.test/api/"
	s.client = &http.Client{Transport: &memhttp.Transport{Handler: s.handler}}
	tb.Cleanup(s.Close)
	return s
}

// Client returns an HTTP client that reaches the server; nil before Start.
func (s *Server) Client() *http.Client { return s.client }

// API returns a slack-go client of the server holding its bot token, the client to give
// hitlslack.New. Call it after Start.
func (s *Server) API() *slack.Client {
	return slack.New(s.cfg.token, slack.OptionAPIURL(s.URL), slack.OptionHTTPClient(s.client))
}

// SigningSecret returns the secret the server signs interactivity requests with.
func (s *Server) SigningSecret() string { return s.cfg.secret }

// Close ends stalled calls and shuts the server down; it returns when every call has been
// answered. It may be called more than once.
func (s *Server) Close() {
	s.once.Do(func() {
		s.cancel()
		if s.srv != nil {
			s.srv.Close()
		}
	})
}

// Requests returns a copy of every Web API call received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Await waits until the server has received n calls of method (whatever their answer) and
// returns every call of method so far. It returns ctx's cause, with the calls so far, if
// ctx ends first, or an error once the server is closed.
func (s *Server) Await(ctx context.Context, method string, n int) ([]Request, error) {
	for {
		s.mu.Lock()
		var got []Request
		for _, r := range s.requests {
			if r.Method == method {
				got = append(got, r)
			}
		}
		ch := s.changed
		s.mu.Unlock()
		if len(got) >= n {
			return got, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return got, fmt.Errorf("hitlslacktest: %d %s calls of %d: %w", len(got), method, n, context.Cause(ctx))
		case <-s.stop.Done():
			return got, fmt.Errorf("hitlslacktest: %d %s calls of %d: server closed", len(got), method, n)
		}
	}
}

// RateLimit makes the next len(retryAfter) calls of method answer 429 with these
// Retry-After durations (whole seconds, at least 1), as Slack does when an app calls too
// often; the calls after them are answered as usual.
func (s *Server) RateLimit(method string, retryAfter ...time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limited[method] = append(s.limited[method], retryAfter...)
}

// Fail makes the next call of method answer ok:false with the error code (such as
// "channel_not_found"); given again, the calls after it too, in order.
func (s *Server) Fail(method, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failing[method] = append(s.failing[method], code)
}

// Stall makes every later call of method go unanswered until its request ends (the
// caller's context) or the server closes; each is logged on arrival, with Status 0.
func (s *Server) Stall(method string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stalled[method] = true
}

// log appends r to the log and wakes Await; it returns r's index. Guarded by s.mu.
func (s *Server) log(r Request) int {
	s.requests = append(s.requests, r)
	close(s.changed)
	s.changed = make(chan struct{})
	return len(s.requests) - 1
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	}
	call, token := readCall(method, r.Header.Get("Content-Type"), body)
	call.Time = time.Now()
	if t, bearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); bearer {
		token = t // Slack reads the header first, then a form's token field
	}

	s.mu.Lock()
	if s.stalled[method] {
		s.log(call)
		s.mu.Unlock()
		select {
		case <-r.Context().Done():
		case <-s.stop.Done():
		}
		return
	}
	call.Status = http.StatusOK
	var answer map[string]any
	switch {
	case len(s.limited[method]) > 0:
		d := s.limited[method][0]
		s.limited[method] = s.limited[method][1:]
		call.Status = http.StatusTooManyRequests
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(d/time.Second))))
	case token == "":
		call.Error = "not_authed"
	case token != s.cfg.token:
		call.Error = "invalid_auth"
	case !known(method):
		call.Error = "unknown_method"
	case len(s.failing[method]) > 0:
		call.Error = s.failing[method][0]
		s.failing[method] = s.failing[method][1:]
	default:
		answer, call.Error = s.answer(&call)
	}
	s.log(call)
	s.mu.Unlock()

	switch {
	case call.Status != http.StatusOK:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(call.Status)
		_, _ = io.WriteString(w, `{"ok":false,"error":"ratelimited"}`)
		return
	case call.Error != "":
		answer = map[string]any{"ok": false, "error": call.Error}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(answer)
}

func known(method string) bool {
	for _, m := range methods {
		if m == method {
			return true
		}
	}
	return false
}

// answer does what a call asks and returns Slack's answer, or an error code. Guarded by
// s.mu.
func (s *Server) answer(c *Request) (map[string]any, string) {
	switch c.Method {
	case "conversations.open":
		if c.User == "" || strings.Contains(c.User, ",") {
			return nil, "user_not_found"
		}
		return map[string]any{"ok": true, "channel": map[string]any{"id": "D" + c.User}}, ""
	case "chat.postMessage":
		if c.Channel == "" {
			return nil, "channel_not_found"
		}
		if c.Text == "" && len(c.Blocks) == 0 {
			return nil, "no_text"
		}
		if c.ThreadTS != "" && !s.messages[[2]string{c.Channel, c.ThreadTS}] {
			return nil, "thread_not_found"
		}
		s.seq++
		c.TS = fmt.Sprintf("1700000000.%06d", s.seq)
		s.messages[[2]string{c.Channel, c.TS}] = true
		return map[string]any{"ok": true, "channel": c.Channel, "ts": c.TS}, ""
	case "chat.update":
		if !s.messages[[2]string{c.Channel, c.TS}] {
			return nil, "message_not_found"
		}
		return map[string]any{"ok": true, "channel": c.Channel, "ts": c.TS, "text": c.Text}, ""
	case "chat.postEphemeral":
		if c.Channel == "" || c.User == "" {
			return nil, "channel_not_found"
		}
		s.seq++
		return map[string]any{"ok": true, "message_ts": fmt.Sprintf("1700000000.%06d", s.seq)}, ""
	case "views.open":
		if c.TriggerID == "" {
			return nil, "invalid_arguments"
		}
		s.seq++
		return map[string]any{"ok": true, "view": map[string]any{"id": fmt.Sprintf("V%06d", s.seq)}}, ""
	}
	return nil, "unknown_method"
}

// readCall reads a call's arguments from its form or JSON body, and the token of a form's
// token field; what it cannot read stays empty, and the call is answered as one missing
// them.
func readCall(method, contentType string, body []byte) (c Request, token string) {
	c.Method = method
	if strings.HasPrefix(contentType, "application/json") {
		var v struct {
			Channel   string          `json:"channel"`
			TS        string          `json:"ts"`
			ThreadTS  string          `json:"thread_ts"`
			User      string          `json:"user"`
			Text      string          `json:"text"`
			Blocks    json.RawMessage `json:"blocks"`
			TriggerID string          `json:"trigger_id"`
			View      json.RawMessage `json:"view"`
		}
		if json.Unmarshal(body, &v) != nil {
			return c, ""
		}
		c.Channel, c.TS, c.ThreadTS, c.User, c.Text, c.TriggerID = v.Channel, v.TS, v.ThreadTS, v.User, v.Text, v.TriggerID
		c.Blocks = v.Blocks
		if method == "views.open" {
			c.Blocks = v.View
		}
		return c, ""
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return c, ""
	}
	c.Channel, c.TS, c.ThreadTS, c.Text, c.TriggerID = form.Get("channel"), form.Get("ts"), form.Get("thread_ts"), form.Get("text"), form.Get("trigger_id")
	c.User = form.Get("user") + form.Get("users")
	if b := form.Get("blocks"); b != "" && json.Valid([]byte(b)) {
		c.Blocks = json.RawMessage(b)
	}
	if v := form.Get("view"); method == "views.open" && v != "" && json.Valid([]byte(v)) {
		c.Blocks = json.RawMessage(v)
	}
	return c, form.Get("token")
}

// ErrNoButton: the message has no button of that label, or the call is not a message.
var ErrNoButton = errors.New("hitlslacktest: no such button")

// Click returns the request Slack sends to the app's interactivity URL when user (a Slack
// user id such as "U0REVIEWER") clicks the button labelled label on the message msg posted
// (a chat.postMessage or chat.update from [Server.Requests] or [Server.Await]): a
// block_actions payload, signed with the server's signing secret at the current time. Hand
// it to the interactivity handler (handler.ServeHTTP). It returns ErrNoButton when the
// message has no such button, or when it is a link button, which Slack opens rather than
// sends.
func (s *Server) Click(msg Request, label, user string) (*http.Request, error) {
	b, ok := msg.Button(label)
	if !ok || b.URL != "" {
		return nil, fmt.Errorf("%w: %q on %s (buttons: %v)", ErrNoButton, label, msg.Method, labels(msg))
	}
	return Sign(ClickBody(user, msg.Channel, msg.TS, b), s.cfg.secret, time.Now()), nil
}

func labels(msg Request) []string {
	var out []string
	for _, b := range msg.Buttons() {
		out = append(out, b.Label)
	}
	return out
}

// Submit returns the request Slack sends when user submits the modal that view opened (a
// views.open from [Server.Requests] or [Server.Await]) with text typed in each of its text
// inputs: a view_submission payload carrying the view's private_metadata and callback_id,
// signed with the server's signing secret at the current time. It returns an error when the
// call is not a views.open.
func (s *Server) Submit(view Request, user, text string) (*http.Request, error) {
	if view.Method != "views.open" || len(view.Blocks) == 0 {
		return nil, fmt.Errorf("hitlslacktest: Submit: %s is not a views.open call", view.Method)
	}
	return Sign(SubmitBody(user, view.Blocks, text), s.cfg.secret, time.Now()), nil
}
