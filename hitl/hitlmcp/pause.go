package hitlmcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl"
)

// KindMCPInput is the kind of the Interrupt a tool call waiting for a person becomes (see
// [Paused]).
const KindMCPInput hitl.Kind = "mcp-input-required"

var (
	// ErrNotPaused: the call's outcome asks for no input (or fails for another reason).
	ErrNotPaused = errors.New("hitlmcp: the tool call is not waiting for a person")
	// ErrFormInput: the call waits for a form-mode input, which does not outlive the
	// connection; answer it through ElicitationHandler instead.
	ErrFormInput = errors.New("hitlmcp: the tool call waits for a form; only URL elicitations are kept")
)

// pending is what Retry needs, kept in the Interrupt's Case.Context.
type pending struct {
	Tool         string          `json:"tool"`
	Arguments    json.RawMessage `json:"arguments,omitempty"`
	RequestState string          `json:"request_state,omitempty"`
	Inputs       []string        `json:"inputs,omitempty"` // input request ids, answered "accept"
}

// Paused turns a tool call that waits for a person into an Interrupt that can be kept (its
// JSON, a hitl.Store) and retried after a restart with [Retry]. The call's outcome is either
// res, an input-required result (the client's automatic loop off:
// mcp.ClientOptions.MultiRoundTrip.Disabled), or err, its -32042 "URL elicitation required"
// error (a client without an ElicitationHandler). The Interrupt's Case holds the first URL
// elicitation — ReviewURL its URL, Prompt its message — to forward to the person like a
// review link; its Context holds the call, the requestState and the input ids. Its CaseID
// (the Interrupt's ID, its key in a hitl.Store) is a new random id, whether or not the
// server sent an elicitationId: two paused calls never share one. Any other outcome is ErrNotPaused; a form-mode input request is ErrFormInput.
func Paused(call *mcp.CallToolParams, res *mcp.CallToolResult, err error) (*hitl.Interrupt, error) {
	if call == nil {
		return nil, errors.New("hitlmcp: Paused needs the call")
	}
	var (
		urls []*mcp.ElicitParams
		p    = pending{Tool: call.Name}
	)
	var rpcErr *jsonrpc.Error
	switch {
	case err != nil && errors.As(err, &rpcErr) && rpcErr.Code == mcp.CodeURLElicitationRequired:
		var data struct {
			Elicitations []*mcp.ElicitParams `json:"elicitations"`
		}
		if json.Unmarshal(rpcErr.Data, &data) != nil {
			return nil, fmt.Errorf("%w: unreadable -32042 data", ErrNotPaused)
		}
		urls = data.Elicitations
	case err == nil && res != nil && res.NeedsInput():
		p.RequestState = res.RequestState
		for _, id := range sortedKeys(res.InputRequests) {
			e, ok := res.InputRequests[id].(*mcp.ElicitParams)
			if !ok || (e.Mode != "url" && e.URL == "") {
				return nil, fmt.Errorf("%w (input %q)", ErrFormInput, id)
			}
			urls = append(urls, e)
			p.Inputs = append(p.Inputs, id)
		}
	default:
		return nil, ErrNotPaused
	}
	if len(urls) == 0 || urls[0] == nil || urls[0].URL == "" {
		return nil, fmt.Errorf("%w: no URL elicitation", ErrNotPaused)
	}
	if call.Arguments != nil {
		b, err := json.Marshal(call.Arguments)
		if err != nil {
			return nil, err
		}
		p.Arguments = b
	}
	ctx, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	first := urls[0]
	return &hitl.Interrupt{Kind: KindMCPInput, Message: first.Message, Case: &hitl.Case{
		CaseID: "mcp-" + rand.Text(), Type: "x-mcp-url", Prompt: first.Message, ReviewURL: first.URL, Context: ctx}}, nil
}

// Retry calls the tool of it (from [Paused]) again on cs, with its requestState and "accept"
// for each URL elicitation, once the person has finished on the page. The result may ask
// again: pass it to Paused. A [Tool] asks one chain of retries 9 times at most, then answers
// that the decision is still pending; retrying the Interrupt first kept (its requestState
// stays valid until the case expires) never lengthens the chain.
func Retry(ctx context.Context, cs *mcp.ClientSession, it *hitl.Interrupt) (*mcp.CallToolResult, error) {
	if it == nil || it.Kind != KindMCPInput || it.Case == nil {
		return nil, errors.New("hitlmcp: Retry needs an interrupt from Paused")
	}
	var p pending
	if err := json.Unmarshal(it.Case.Context, &p); err != nil || p.Tool == "" {
		return nil, errors.New("hitlmcp: the interrupt holds no tool call")
	}
	call := &mcp.CallToolParams{Name: p.Tool, RequestState: p.RequestState}
	if len(p.Arguments) > 0 {
		call.Arguments = p.Arguments
	}
	if len(p.Inputs) > 0 {
		call.InputResponses = mcp.InputResponseMap{}
		for _, id := range p.Inputs {
			call.InputResponses[id] = &mcp.ElicitResult{Action: "accept"}
		}
	}
	return cs.CallTool(ctx, call)
}

func sortedKeys(m mcp.InputRequestMap) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
