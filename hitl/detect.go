package hitl

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/internal/httpx"
)

// statusHumanInputRequired is the 202 envelope's status (HITL Protocol §6).
const statusHumanInputRequired = "human_input_required"

// DetectOptions tunes detection. A nil *DetectOptions means the defaults.
type DetectOptions struct {
	// AllowPrivateAddresses accepts URLs whose host is localhost or a loopback, private or
	// link-local IP literal, in any spelling (127.1, 2130706433, 0x7f.1, localhost.), and
	// plain http on http://localhost and http://127.0.0.1, which HITL Protocol v0.7+ permits
	// for development. Default false: every URL must be HTTPS, and such a poll, events,
	// callback or submit URL makes the hitl object invalid, so a hostile service cannot point the agent (and its credentials) into
	// the agent's own network. Detect does not resolve host names; a [Client] checks what they
	// resolve to where it dials (see [transport.WithAllowPrivateAddresses]).
	AllowPrivateAddresses bool
	// Strict turns recommendations into problems: a prompt over 500 characters is invalid
	// instead of a warning. Default false.
	Strict bool
	// A2A makes every 2xx a candidate A2A answer (a JSON-RPC envelope, a REST body, a bare
	// task), for A2A 0.3 agents and relays, which mark their answers neither way (a 202 with
	// a "hitl" member stays a HITL case). Default false: a 2xx is read as A2A only when it is
	// application/a2a+json, the request sent an A2A-Version header, it went to a REST send
	// path (…/message:send), or — for Detect and Client.Do, not Client.Transport — it was a
	// JSON-RPC message/send or tasks/get (SendMessage, GetTask) POSTed as application/json
	// with a body that can be read again (Request.GetBody, which http.NewRequest sets for
	// in-memory bodies) and names its method within its first 4 KiB. Such an answer that is
	// not A2A after all (another protocol's tasks/get) is no interrupt. The answer to any
	// other request is left unread.
	A2A bool
	// MaxBody is the largest 202 body read; 0 means 1 MiB. A longer body fails with
	// transport.ErrBodyTooLarge and is still restored whole for the caller.
	MaxBody int64
	// ReadTimeout bounds reading the 202 (or A2A) body, which Detect reads whatever the
	// caller's context: a service that trickles its answer, or stops mid-body, makes
	// Detect fail with ErrBodyTimeout (the body is then closed). 0 means
	// 30 s.
	ReadTimeout time.Duration
}

// defaultReadTimeout is how long Detect may take to read a 202 or A2A body.
const defaultReadTimeout = 30 * time.Second

// ErrBodyTimeout: the body Detect had to read did not arrive within
// [DetectOptions].ReadTimeout.
var ErrBodyTimeout = errors.New("hitl: response body not read within the read timeout")

// Detect reports whether resp asks for a human.
//
// An A2A answer (any 2xx read as A2A, see DetectOptions.A2A: 200, and the 201 a REST agent
// may answer a send with) whose task is paused for a human yields an [*Interrupt] of kind KindA2AInput, KindA2AAuth, KindA2ARelay or
// KindA2ARelayPending holding the [a2a.Pause]; a task that is working or finished, a
// message, or an agent's error yields (nil, nil); a body that is not A2A yields an
// [*a2a.MalformedError], never an interrupt.
//
// A HITL Protocol 202 (status 202 and a JSON body with a "hitl" key, §6) yields an
// [*Interrupt]. Every other response, a 202 without "hitl" included, yields (nil, nil): no
// human is needed, and the response is left untouched. A "hitl" that is present but broken
// yields an [*InvalidError] naming each field (errors.Is(err, ErrInvalid)), with the partial
// case kept on it: the signal is never ignored.
//
// A text/event-stream response is never read: it yields (nil, nil). When Detect reads the
// body it puts an equivalent one back, so the caller can read it again
// and must still close it. Detect does not block beyond reading the body and is safe to call
// from any goroutine.
func Detect(resp *http.Response, opts *DetectOptions) (*Interrupt, error) {
	return detect(resp, opts, true)
}

// detect is Detect; rpc says whether the answer to an unmarked JSON-RPC call is looked at
// (see a2aSignalOf).
func detect(resp *http.Response, opts *DetectOptions, rpc bool) (*Interrupt, error) {
	if resp == nil || resp.Body == nil || resp.Body == http.NoBody {
		return nil, nil
	}
	if hasMediaType(resp.Header, "text/event-stream") {
		return nil, nil // a stream (an A2A message/stream, say) is the caller's to read as it comes
	}
	signal := notA2A
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		signal = a2aSignalOf(resp, opts != nil && opts.A2A, rpc)
	}
	if resp.StatusCode != http.StatusAccepted && signal == notA2A {
		return nil, nil
	}
	if opts == nil {
		opts = &DetectOptions{}
	}
	if resp.StatusCode != http.StatusAccepted {
		it, err := detectA2A(resp, opts)
		if signal == unmarkedRPC && errors.Is(err, a2a.ErrMalformed) {
			return nil, nil // another protocol's JSON-RPC answer (MCP has a tasks/get too)
		}
		return it, err
	}
	body, err := readAndRestore(resp, opts)
	if err != nil {
		return nil, fmt.Errorf("hitl: read 202 body: %w", httpx.StripURL(err))
	}
	it, err := detectBody(resp, body, opts)
	if it == nil && err == nil && signal != notA2A && !hasHITL(body) {
		// A 202 that is no HITL case but an A2A answer: a task it carries is read as A2A;
		// a body that is not A2A stays plain asynchronous work.
		it, err = decodeA2A(resp, body)
		if errors.Is(err, a2a.ErrMalformed) {
			return nil, nil
		}
	}
	return it, err
}

// hasHITL reports whether body is an object with a "hitl" member.
func hasHITL(body []byte) bool {
	var env envelope
	return json.Unmarshal(body, &env) == nil && len(env.HITL) > 0
}

// envelope is the 202 body (§6). hitl stays raw so that its presence, null included, is seen.
type envelope struct {
	Status  string          `json:"status"`
	Message string          `json:"message"`
	HITL    json.RawMessage `json:"hitl"`
}

func detectBody(resp *http.Response, body []byte, opts *DetectOptions) (*Interrupt, error) {
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) || errors.Is(err, io.ErrUnexpectedEOF) {
			if bytes.Contains(body, []byte(`"hitl"`)) {
				return nil, &InvalidError{Object: "hitl", Problems: []FieldError{{Field: "hitl", Problem: "202 body is not valid JSON"}}}
			}
			return nil, nil // text or other non-JSON 202: plain async
		}
		// The body is JSON but not an object, or a field has the wrong type.
		if len(env.HITL) == 0 {
			return nil, nil
		}
	}
	if len(env.HITL) == 0 {
		return nil, nil
	}
	c, problems, warnings := parseCase(env.HITL, opts)
	if env.Status != statusHumanInputRequired {
		warnings = append(warnings, `envelope status is not "human_input_required"`)
	}
	if len(problems) > 0 {
		return nil, &InvalidError{Object: "hitl", Problems: problems, Case: c}
	}
	it := &Interrupt{Kind: KindHITL, Message: env.Message, Case: c, Warnings: warnings, ReceivedAt: time.Now()}
	if d, ok := httpx.RetryAfter(resp.Header, it.ReceivedAt); ok && d > 0 {
		it.PollAfter = it.ReceivedAt.Add(d) // HITL §8: the 202's Retry-After paces the first poll
	}
	it.Origin = httpx.CalledOrigin(resp)
	return it, nil
}

// readAndRestore reads at most opts.MaxBody bytes of resp.Body within opts.ReadTimeout and
// replaces the body with one that yields the same bytes, followed by the unread rest when the
// limit was hit. When the deadline passes first the body is closed (which ends a blocked read
// in net/http's transports) and the error is ErrBodyTimeout.
func readAndRestore(resp *http.Response, opts *DetectOptions) ([]byte, error) {
	limit := cmp.Or(max(opts.MaxBody, 0), httpx.DefaultBodyLimit)
	orig := resp.Body
	var late atomic.Bool
	deadline := time.AfterFunc(cmp.Or(max(opts.ReadTimeout, 0), defaultReadTimeout), func() {
		late.Store(true)
		_ = orig.Close()
	})
	body, err := io.ReadAll(io.LimitReader(orig, limit+1))
	if !deadline.Stop() && late.Load() {
		resp.Body = http.NoBody
		return nil, ErrBodyTimeout
	}
	if int64(len(body)) > limit {
		resp.Body = &restoredBody{Reader: io.MultiReader(bytes.NewReader(body), orig), closer: orig}
		return nil, fmt.Errorf("%w (%d bytes)", httpx.ErrBodyTooLarge, limit)
	}
	_ = orig.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return body, err
}

type restoredBody struct {
	io.Reader
	closer io.Closer
}

func (b *restoredBody) Close() error { return b.closer.Close() }
