package hitl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/internal/clientcfg"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/transport"
)

// The kinds of A2A interrupts (A2A 0.3 and 1.0 task states; the relay forms of the relay
// seed).
const (
	// KindA2AInput is an A2A task in input-required: the agent asks a question, which an
	// [a2a.Asker] answers.
	KindA2AInput Kind = "a2a-input-required"
	// KindA2AAuth is an A2A task in auth-required: credentials are needed, usually out of band.
	KindA2AAuth Kind = "a2a-auth-required"
	// KindA2ARelay is a task a relay holds for its administrator ("working" with
	// metadata.relay_task or relay_reason).
	KindA2ARelay Kind = "a2a-relay"
	// KindA2ARelayPending is a relay's legacy hold ("completed" with metadata.hitl_pending).
	KindA2ARelayPending Kind = "a2a-relay-pending"
)

// ErrNoAsker: an A2A task asks a question and the wait was given no WaitOptions.Ask to
// collect the human's answer; nothing was sent, and no forwarder was told. [Client.Do] and
// [Client.Transport] return it in a [*WaitError] holding the Interrupt.
var ErrNoAsker = errors.New("hitl: the A2A task asks for input and no Asker was given")

func kindOf(c a2a.Class) Kind {
	switch c {
	case a2a.ClassInputRequired:
		return KindA2AInput
	case a2a.ClassAuthRequired:
		return KindA2AAuth
	case a2a.ClassRelay:
		return KindA2ARelay
	default:
		return KindA2ARelayPending
	}
}

// a2aSignal is how a 2xx says it may carry an A2A task.
type a2aSignal int

const (
	notA2A      a2aSignal = iota
	markedA2A             // marked as A2A, or the caller said so (WithA2A)
	unmarkedRPC           // the answer to a JSON-RPC call of a2aTaskMethods, marked no other way
)

// a2aSignalOf reports whether a 2xx may carry an A2A task: the caller said so (always), the
// response is application/a2a+json, the request negotiated an A2A version or went to an A2A
// REST send (…/message:send, which 0.3 agents answer unmarked, some with 201); or, when rpc
// is set, it was a JSON-RPC call of a2aTaskMethods (see sentA2ARPC). Only headers and the
// path are read, so a plain 200 costs no allocation — but for a JSON answer to a JSON POST,
// whose request body is looked at again when rpc is set.
func a2aSignalOf(resp *http.Response, always, rpc bool) a2aSignal {
	switch {
	case always, hasMediaType(resp.Header, "application/a2a+json"):
		return markedA2A
	case resp.Request == nil:
		return notA2A
	// The canonical form of A2A-Version, looked up directly: Header.Get would allocate it.
	case len(resp.Request.Header["A2a-Version"]) > 0,
		resp.Request.URL != nil && strings.HasSuffix(resp.Request.URL.Path, "/message:send"):
		return markedA2A
	case rpc && sentA2ARPC(resp):
		return unmarkedRPC
	}
	return notA2A
}

// hasMediaType reports whether h's Content-Type is mt, whatever its parameters, without
// allocating.
func hasMediaType(h http.Header, mt string) bool {
	got, _, _ := strings.Cut(h.Get("Content-Type"), ";")
	return strings.EqualFold(strings.TrimSpace(got), mt)
}

// a2aTaskMethods are the JSON-RPC methods whose answer is a task that may be paused for a
// human: send and get, by their 0.3 (§7) and 1.0 (§9.4) names.
var a2aTaskMethods = [...]string{"message/send", "tasks/get", "SendMessage", "GetTask"}

// rpcPrefix is how much of a request body sentA2ARPC reads to find its JSON-RPC method.
// Clients write jsonrpc, id and method before params (in that order, or sorted by name), so
// the method is near the start whatever the size of the params.
const rpcPrefix = 4 << 10

// rpcPrefixes holds the buffers sentA2ARPC reads request bodies into.
var rpcPrefixes = sync.Pool{New: func() any { return new([rpcPrefix]byte) }}

// sentA2ARPC reports whether resp is a JSON answer to an A2A JSON-RPC call of
// a2aTaskMethods, which 0.3 agents answer unmarked: a POST of application/json whose body
// can be read again (GetBody, as http.NewRequest sets for in-memory bodies) and names the
// method within its first rpcPrefix bytes.
func sentA2ARPC(resp *http.Response) bool {
	req := resp.Request
	if req.Method != http.MethodPost || req.GetBody == nil || !hasMediaType(resp.Header, "application/json") || !hasMediaType(req.Header, "application/json") {
		return false
	}
	rc, err := req.GetBody()
	if err != nil || rc == nil {
		return false
	}
	defer rc.Close()
	buf := rpcPrefixes.Get().(*[rpcPrefix]byte)
	defer rpcPrefixes.Put(buf)
	n, err := io.ReadFull(rc, buf[:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return false
	}
	head := buf[:n]
	if !bytes.Contains(head, []byte(`"jsonrpc"`)) {
		return false
	}
	return slices.Contains(a2aTaskMethods[:], rpcMethod(head))
}

// rpcMethod returns the method of the JSON-RPC request that head begins, or "" when head
// begins no JSON-RPC request, names anything but jsonrpc and id before the method, or
// spells a member's name or the method with escapes or beyond ASCII. It reads head as far as the method
// only, so head may be cut anywhere after it, and allocates nothing but the method.
func rpcMethod(head []byte) string {
	r := rpcReader{b: head}
	if !r.byte('{') {
		return ""
	}
	for {
		k, ok := r.plainString()
		if !ok || !r.byte(':') {
			return ""
		}
		switch string(k) {
		case "method":
			m, _ := r.plainString()
			return string(m)
		case "jsonrpc", "id":
			if !r.scalar() {
				return ""
			}
		default:
			return ""
		}
		if !r.byte(',') {
			return ""
		}
	}
}

// rpcReader reads the few JSON tokens rpcMethod needs from the start of a body.
type rpcReader struct {
	b []byte
	i int
}

// byte skips white space and then c, reporting whether c was there.
func (r *rpcReader) byte(c byte) bool {
	for r.i < len(r.b) && (r.b[r.i] == ' ' || r.b[r.i] == '\t' || r.b[r.i] == '\n' || r.b[r.i] == '\r') {
		r.i++
	}
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// plainString reads a string of printable ASCII without escapes (ok false for any other
// token): every name rpcMethod looks for is one.
func (r *rpcReader) plainString() (s []byte, ok bool) {
	if !r.byte('"') {
		return nil, false
	}
	for j := r.i; j < len(r.b); j++ {
		switch c := r.b[j]; {
		case c == '"':
			s, r.i = r.b[r.i:j], j+1
			return s, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
	}
	return nil, false
}

// scalar reads a string, number, true, false or null; an object or array is refused.
func (r *rpcReader) scalar() bool {
	if _, ok := r.plainString(); ok {
		return true
	}
	start := r.i
	for r.i < len(r.b) && strings.IndexByte("+-.0123456789Eaeflnrstu", r.b[r.i]) >= 0 {
		r.i++
	}
	return r.i > start
}

// detectA2A reads an A2A answer. A task paused for a human is an interrupt; anything else
// (working, done, a message, an agent's error) is no interrupt; a body that is not A2A is an
// *a2a.MalformedError, never a pause.
func detectA2A(resp *http.Response, opts *DetectOptions) (*Interrupt, error) {
	body, err := readAndRestore(resp, opts)
	if err != nil {
		return nil, fmt.Errorf("hitl: read A2A body: %w", httpx.StripURL(err))
	}
	return decodeA2A(resp, body)
}

// decodeA2A reads body as an A2A answer to resp's request.
func decodeA2A(resp *http.Response, body []byte) (*Interrupt, error) {
	ev, err := a2a.Decode(body)
	var ae *a2a.Error
	switch {
	case errors.As(err, &ae):
		return nil, nil
	case err != nil:
		return nil, err
	}
	p := a2a.NewPause(a2a.InferBinding(resp.Request, ev), ev.Task)
	if p == nil {
		return nil, nil
	}
	return interruptOf(p, resp), nil
}

func interruptOf(p *a2a.Pause, resp *http.Response) *Interrupt {
	it := &Interrupt{Kind: kindOf(p.Class), Task: p}
	if resp != nil && resp.Request != nil {
		it.Origin = httpx.CalledOrigin(resp)
	} else {
		it.Origin = httpx.OriginOf(p.Endpoint.URL)
	}
	return it
}

// waitA2A carries an A2A interrupt to its end with [a2a.Client.Run]: questions go to
// o.Ask; later holds (auth-required, a relay) are forwarded as new interrupts. The first
// interrupt is not forwarded again: Do (or the caller) did.
func (c *Client) waitA2A(ctx context.Context, it *Interrupt, o *WaitOptions, auth func(context.Context) (string, error), forward Forwarder) (*transport.Result, error) {
	if o == nil {
		o = &WaitOptions{}
	}
	if it.Kind == KindA2AInput && o.Ask == nil {
		return nil, ErrNoAsker
	}
	// One a2a.Client per wait (its credential is the interrupt's); their task queries share
	// this client's bound on polls in flight.
	opts := []transport.Option{clientcfg.Share(c.cfg)}
	if a := c.authorizer(it, it.Task.Endpoint.URL, auth); a != nil {
		opts = append(opts, a2a.WithAuthorize(a))
	}
	ac, err := a2a.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	first := *it.Task
	var ro a2a.RunOptions
	if o.A2A != nil {
		ro = *o.A2A
	}
	theirs := ro.Notify
	ro.Notify = func(ctx context.Context, p *a2a.Pause) {
		if theirs != nil {
			theirs(ctx, p)
		}
		if forward == nil || (p.TaskID == first.TaskID && p.Class == first.Class) {
			return
		}
		if err := forward(ctx, interruptOf(p, nil)); err != nil {
			c.logger.LogAttrs(ctx, slog.LevelWarn, "hitl: forward A2A hold failed", slog.String("err", err.Error()))
		}
	}
	ask := o.Ask
	if ask == nil {
		ask = func(context.Context, *a2a.Pause) (a2a.Answer, error) { return a2a.Answer{}, ErrNoAsker }
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if ways := c.callerWays(o); len(ways) > 0 {
		// The caller's ways and its own Wake, if any, wake the task's wait through one channel.
		wake := make(chan struct{}, 1)
		kick := func() {
			select {
			case wake <- struct{}{}:
			default:
			}
		}
		if theirs := ro.Wait.Wake; theirs != nil {
			wg.Go(func() {
				for {
					select {
					case <-ctx.Done():
						return
					case _, ok := <-theirs:
						if !ok {
							return
						}
						kick()
					}
				}
			})
		}
		ro.Wait.Wake = wake
		for _, w := range ways {
			push := c.pushOf(w, it)
			wg.Go(func() { _ = push(ctx, kick, nil) })
		}
	}
	return ac.Run(ctx, it.Task, ask, &ro)
}

// a2aReply is the body a Transport answers an A2A call with once its run ended: the final
// task, spelled as the agent's answer in the binding the caller spoke, so that the SDK
// client that sent the call reads it; the Result's data when the task cannot be spelled so
// (a JSON-RPC request whose body cannot be read again for its id).
func a2aReply(req *http.Request, it *Interrupt, r *transport.Result) []byte {
	t, err := a2a.TaskOf(r)
	if err != nil {
		return r.Data
	}
	body, err := a2a.Reply(req, it.Task.Endpoint, t)
	if err != nil {
		return r.Data
	}
	return body
}
