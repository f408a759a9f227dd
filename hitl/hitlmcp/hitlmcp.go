// Package hitlmcp puts an MCP server's elicitations in front of the agent's human through
// hitlkit, for clients built on github.com/modelcontextprotocol/go-sdk, and a person in front
// of an MCP server's tools. The module's README.md is its front page.
//
// [ElicitationHandler] is a handler for mcp.ClientOptions.ElicitationHandler, for 2025-11-25
// elicitation/create requests and 2026-07-28 input requests alike: a URL-mode elicitation
// (the server sends the human to a page of its own) is forwarded like a review link, through
// the same [hitl.Forwarder] the agent uses for HITL cases; a form-mode elicitation goes to a
// [FormAsker] — an HXP PROVIDE, an HI interaction, a chat — and an answer that breaks the
// requested schema is put back to the human with every problem ([Form.Problems]), up to
// [DefaultRounds] rounds, before anything goes back to the server.
//
// [Tool] is the server side: a tool whose backend may answer with a HITL 202 sends the
// review URL to a client that declared URL elicitation (an input-required result with the
// pending case sealed in requestState on 2026-07-28, elicitation/create on 2025-11-25), and
// returns the person's decision as the tool's result; only an approval is a success. A
// repeat of a call joins its open case.
//
// # Which HTTP handler
//
// Over stdio every revision works. Over HTTP, go-sdk v1.8.0's mcp.NewStreamableHTTPHandler
// with sessions (the default) speaks 2025-11-25: the review link reaches those clients as
// elicitation/create, but a client on 2026-07-28 that took any server/discover answer as
// agreement (mark3labs/mcp-go at its defaults) fails every tools/call. Without sessions
// (mcp.StreamableHTTPOptions{Stateless: true}) it serves 2026-07-28 clients and any
// replica can take a retry, while 2025-11-25 clients get no elicitation/create: the link
// only in the isError result after [Tool.Check], and a repeat of the call joins the case.
// Serve stateless for 2026-07-28 and mcp-go clients, stateful for 2025-11-25 clients that
// should be shown the link as an elicitation, or both on two endpoints.
//
// [Paused] and [Retry] keep a client's paused tool call (an input-required result, or a
// -32042 error) as a [hitl.Interrupt] that survives a restart, and call the tool again later.
//
// # Bounded work
//
// A server's requested schema costs [Form.Check] work linear in its size: a reference
// keyword, a key named twice, objects and arrays nested over 32 deep, a pattern over 1,000
// bytes or 1,000 compiled instructions, or patterns over 20,000 instructions together are
// refused before the validator (github.com/google/jsonschema-go) reads the schema, and an
// answer whose text could cost over 8,388,608 steps of matching is put back unmatched; before,
// 2 KiB of short patterns that compile large ("(?i:a…z){1000}") took 0.3 s of CPU, 16 KiB
// of nested anyOf 17 s, and a 64 KiB answer against a 998-instruction pattern 0.4 s.
// Measured with
//
//	cd hitl/hitlmcp && go test -run '^$' -bench FormCheck -benchtime 3x .
//
// (2026-11-26, a 2-core machine at load average about 1) on schemas of many fields with
// patterns, the largest patterns accepted, many plain fields, one long enum, unknown
// keywords, a long digit run and deep nesting, the CPU time per byte (cpu-ns/B) at 1 KiB,
// 64 KiB and 1 MiB, over the shapes: 50–956, 0.7–592, 0.1–779. No shape costs more per byte
// at 1 MiB than at 1 KiB; the dearest there, plain fields, is about 0.8 s of CPU for 1 MiB.
// A sealed requestState is read only up to 64 KiB.
//
// Before [ElicitationHandler] is called, go-sdk v1.8.0's client reads the requested schema
// itself with jsonschema-go, whose reading grows with depth × size within go-sdk's nesting
// limit of 1,000: a schema of 32 subtrees nested 980 deep (245 KiB) took 12 s before
// the handler refused it. That work is go-sdk's, done before this package sees the request.
package hitlmcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/mail"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl"
)

// KindURLElicitation is the kind of the Interrupt a URL-mode elicitation is forwarded as.
const KindURLElicitation hitl.Kind = "mcp-url-elicitation"

// Form is a form-mode elicitation put to the human: what to ask, and the flat JSON Schema
// the answer must satisfy. When the previous answer broke the schema, the form comes back
// with Problems and a higher Round: show the problems with the question.
type Form struct {
	Message string
	Schema  json.RawMessage
	// Problems is every way the human's previous answer broke the schema; empty on the
	// first round.
	Problems []Problem
	// Round counts the times this form has been put to the human, from 1.
	Round int
}

// Answer is the human's answer to a Form: Action is "accept" (with Content), "decline" or
// "cancel", as MCP defines them.
type Answer struct {
	Action  string
	Content map[string]any
}

// FormAsker collects the human's answer to a form. It is called once per round of an
// elicitation — again, with the problems, while the accepted answers break the schema (see
// [ElicitationHandler]) — and should return when ctx ends. It may validate with
// [Form.Check] and re-prompt by itself.
type FormAsker func(ctx context.Context, f *Form) (Answer, error)

// ErrBadAnswer: the human's accepted answers did not satisfy the requested schema (the
// string formats email, uri, date and date-time included) in the rounds allowed; the server
// gets JSON-RPC invalid params (-32602) instead of an answer. The error is an
// [*AnswerError] naming every problem of the last answer.
var ErrBadAnswer = errors.New("hitlmcp: the answer does not match the requested schema")

// ErrNoAsker: a form-mode elicitation arrived and no FormAsker was given; the server gets
// JSON-RPC invalid params (-32602).
var ErrNoAsker = errors.New("hitlmcp: form elicitation without a FormAsker")

// ElicitationHandler returns a handler for mcp.ClientOptions.ElicitationHandler. It takes
// 2025-11-25 elicitation/create requests and 2026-07-28 input requests alike (the go-sdk
// client hands both to it).
//
// A URL-mode elicitation becomes an Interrupt of kind KindURLElicitation — its Case holds the
// elicitation id as CaseID (when the server sent none, as 2026-07-28 input requests do, an
// id derived from the URL, the same each time), the message as Prompt and the URL as
// ReviewURL — passed to forward; once forwarded it is answered "accept" (the human continues
// on the server's page, and the server says when it is done). The same link asked for again
// within 10 minutes (a 2026-07-28 tool call retried while the person takes their time) is
// answered "accept" without forwarding it again; later, it is forwarded again as a reminder
// (Interrupt.Reminder counts them). A handler remembers the last 1,024 links. A form-mode elicitation goes to ask; an accepted
// answer is validated against the requested schema ([Form.Check]). One that breaks it is put
// back to the human — the same form, with every problem and the next Round — up to
// [DefaultRounds] rounds in all ([WithRounds] sets another bound); the last one is an
// [*AnswerError] ([ErrBadAnswer]) and reaches the server as JSON-RPC invalid params. A
// decline or cancel in any round is sent as it is. Either forward or ask may be nil,
// refusing its mode with an error. [ClientOptions] declares the modes to the server.
func ElicitationHandler(forward hitl.Forwarder, ask FormAsker, opts ...HandlerOption) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	c := handlerConfig{rounds: DefaultRounds}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	seen := &forwarded{links: make(map[string]*link)}
	return func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		if c.err != nil {
			return nil, withCode(c.err, jsonrpc.CodeInternalError)
		}
		res, err := elicit(ctx, req, forward, ask, c.rounds, seen)
		return res, withCode(err, jsonrpc.CodeInternalError)
	}
}

// The links a handler forwarded lately: a link asked for again within linkQuiet is not
// forwarded again; at most maxLinks are remembered (the oldest forgotten first).
const (
	linkQuiet = 10 * time.Minute
	maxLinks  = 1024
)

type forwarded struct {
	mu    sync.Mutex
	links map[string]*link
}

type link struct {
	last      time.Time // when it was last forwarded
	reminders int
}

// due reports whether key's link is to be forwarded now, and as which reminder; a forward
// that then fails calls undo.
func (f *forwarded) due(key string, now time.Time) (reminder int, forward bool, undo func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, ok := f.links[key]
	switch {
	case ok && now.Sub(l.last) < linkQuiet:
		return 0, false, nil
	case ok:
		prev := *l
		l.last, l.reminders = now, l.reminders+1
		return l.reminders, true, func() { f.mu.Lock(); *l = prev; f.mu.Unlock() }
	}
	if len(f.links) >= maxLinks {
		oldest := ""
		for k, v := range f.links {
			if oldest == "" || v.last.Before(f.links[oldest].last) {
				oldest = k
			}
		}
		delete(f.links, oldest)
	}
	f.links[key] = &link{last: now}
	return 0, true, func() { f.mu.Lock(); delete(f.links, key); f.mu.Unlock() }
}

// HandlerOption configures [ElicitationHandler] and [ClientOptions].
type HandlerOption func(*handlerConfig)

type handlerConfig struct {
	rounds int
	err    error // a bad option: every elicitation fails with it, before anyone is asked
}

// WithRounds sets how many times a form is put to the human while their accepted answers
// break its schema: n ≥ 1 (1 asks once and never again). With n < 1 the handler refuses
// every elicitation with an error naming WithRounds (internal error, -32603), before the
// human is asked.
func WithRounds(n int) HandlerOption {
	return func(c *handlerConfig) {
		if n < 1 {
			c.err = fmt.Errorf("hitlmcp: WithRounds(%d): a form is put to the human at least once; use 1 or more", n)
			return
		}
		c.rounds = n
	}
}

// elicit is ElicitationHandler's work; a refusal of the request is JSON-RPC invalid params
// (-32602), anything else goes out as internal error (-32603).
func elicit(ctx context.Context, req *mcp.ElicitRequest, forward hitl.Forwarder, ask FormAsker, rounds int, seen *forwarded) (*mcp.ElicitResult, error) {
	if req == nil || req.Params == nil {
		return nil, refusal(errors.New("hitlmcp: elicitation without params"))
	}
	p := req.Params
	if p.Mode == "url" || (p.Mode == "" && p.URL != "") {
		if forward == nil {
			// A mode the client did not declare (MCP 2025-11-25 "Elicitation", "Error Handling").
			return nil, refusal(errors.New("hitlmcp: URL elicitation without a Forwarder"))
		}
		id := p.ElicitationID
		if id == "" { // 2026-07-28 URL input requests carry no elicitationId: one from the URL
			sum := sha256.Sum256([]byte(p.URL))
			id = "mcp-" + hex.EncodeToString(sum[:12])
		}
		reminder, due, undo := seen.due(id+" "+p.URL, time.Now())
		if !due {
			return &mcp.ElicitResult{Action: "accept"}, nil // forwarded lately: the person has it
		}
		it := &hitl.Interrupt{Kind: KindURLElicitation, Message: p.Message, Reminder: reminder, Case: &hitl.Case{
			CaseID: id, Type: "x-mcp-url", Prompt: p.Message, ReviewURL: p.URL}}
		if err := forward(ctx, it); err != nil {
			undo()
			return nil, fmt.Errorf("hitlmcp: forward elicitation %s: %w", id, err)
		}
		return &mcp.ElicitResult{Action: "accept"}, nil
	}
	if ask == nil {
		return nil, refusal(ErrNoAsker)
	}
	schema, err := json.Marshal(p.RequestedSchema)
	if err != nil {
		return nil, refusal(fmt.Errorf("hitlmcp: requested schema: %w", err))
	}
	form := &Form{Message: p.Message, Schema: schema, Round: 1}
	if err := form.Check(nil); err != nil && !errors.Is(err, ErrBadAnswer) {
		return nil, refusal(err) // a schema that cannot be read: the human is not bothered
	}
	for {
		a, err := ask(ctx, form)
		if err != nil {
			return nil, err
		}
		switch a.Action {
		case "decline", "cancel":
			return &mcp.ElicitResult{Action: a.Action}, nil
		case "accept":
		default:
			return nil, fmt.Errorf("hitlmcp: answer action %q is not accept, decline or cancel", a.Action)
		}
		err = form.Check(a.Content)
		if err == nil {
			// The SDK fills the schema's defaults into the content in place: give it a copy,
			// so the map the FormAsker answered with is never written behind its back.
			return &mcp.ElicitResult{Action: "accept", Content: maps.Clone(a.Content)}, nil
		}
		var bad *AnswerError
		if !errors.As(err, &bad) {
			return nil, refusal(err)
		}
		if form.Round >= rounds {
			bad.Rounds = form.Round
			return nil, refusal(bad)
		}
		form = &Form{Message: p.Message, Schema: schema, Problems: bad.Problems, Round: form.Round + 1}
	}
}

// withCode makes err travel as a JSON-RPC error with code (JSON-RPC 2.0 §5.1) and err's
// text, while errors.Is still finds err; an error that has a code keeps it.
func withCode(err error, code int64) error {
	var rpc *jsonrpc.Error
	if err == nil || errors.As(err, &rpc) {
		return err
	}
	return fmt.Errorf("%w%w", err, &jsonrpc.Error{Code: code})
}

// refusal makes err travel as JSON-RPC invalid params (-32602).
func refusal(err error) error { return withCode(err, jsonrpc.CodeInvalidParams) }

// formatOK reports whether v has the string format an elicitation schema may ask for
// (MCP 2025-11-25 "Elicitation", "Supported Schema Types": email, uri, date, date-time, as
// JSON Schema 2020-12 §7.3 defines them). Any other format is not checked.
func formatOK(format, v string) bool {
	switch format {
	case "email": // RFC 5321 Mailbox, a bare address
		a, err := mail.ParseAddress(v)
		return err == nil && a.Name == "" && a.Address == v
	case "uri": // RFC 3986 URI: a scheme, no spaces
		u, err := url.Parse(v)
		return err == nil && u.Scheme != "" && !strings.ContainsAny(v, " \t\n\r")
	case "date": // RFC 3339 full-date
		_, err := time.Parse(time.DateOnly, v)
		return err == nil
	case "date-time": // RFC 3339 date-time
		_, err := time.Parse(time.RFC3339, v)
		return err == nil
	}
	return true
}

// ClientOptions returns options for mcp.NewClient whose elicitations go to
// ElicitationHandler(forward, ask, opts...), declaring the modes it takes: URL mode when
// forward is set, form mode when ask is. Other options may be set on the result.
func ClientOptions(forward hitl.Forwarder, ask FormAsker, opts ...HandlerOption) *mcp.ClientOptions {
	caps := &mcp.ElicitationCapabilities{}
	if forward != nil {
		caps.URL = &mcp.URLElicitationCapabilities{}
	}
	if ask != nil {
		caps.Form = &mcp.FormElicitationCapabilities{}
	}
	return &mcp.ClientOptions{
		ElicitationHandler: ElicitationHandler(forward, ask, opts...),
		Capabilities: &mcp.ClientCapabilities{
			RootsV2:     &mcp.RootCapabilities{ListChanged: true}, // the SDK's default
			Elicitation: caps,
		},
	}
}
