// Package hitlmcp puts an MCP server's elicitations in front of the agent's human through
// hitlkit, for clients built on github.com/modelcontextprotocol/go-sdk.
//
// [ElicitationHandler] is a handler for mcp.ClientOptions.ElicitationHandler: a URL-mode
// elicitation (the server sends the human to a page of its own) is forwarded like a review
// link, through the same [hitl.Forwarder] the agent uses for HITL cases; a form-mode
// elicitation goes to a [FormAsker] — an HXP PROVIDE, an HI interaction, a chat — and the
// answer is checked against the requested schema before it goes back to the server.
//
// [Tool] is the server side: a tool whose backend may answer with a HITL 202 returns MCP's
// "input required" with the review URL, the pending case sealed in requestState, and the
// client's retry returns the person's decision as the tool's result.
//
// [Paused] and [Retry] keep a client's paused tool call (an input-required result, or a
// -32042 error) as a [hitl.Interrupt] that survives a restart, and call the tool again later.
package hitlmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl"
)

// KindURLElicitation is the kind of the Interrupt a URL-mode elicitation is forwarded as.
const KindURLElicitation hitl.Kind = "mcp-url-elicitation"

// Form is a form-mode elicitation put to the human: what to ask, and the flat JSON Schema
// the answer must satisfy.
type Form struct {
	Message string
	Schema  json.RawMessage
}

// Answer is the human's answer to a Form: Action is "accept" (with Content), "decline" or
// "cancel", as MCP defines them.
type Answer struct {
	Action  string
	Content map[string]any
}

// FormAsker collects the human's answer to a form. It is called once per elicitation and
// should return when ctx ends.
type FormAsker func(ctx context.Context, f *Form) (Answer, error)

// ErrBadAnswer: the human's accepted answer does not satisfy the requested schema; nothing
// is sent to the server.
var ErrBadAnswer = errors.New("hitlmcp: the answer does not match the requested schema")

// ErrNoAsker: a form-mode elicitation arrived and no FormAsker was given.
var ErrNoAsker = errors.New("hitlmcp: form elicitation without a FormAsker")

// ElicitationHandler returns a handler for mcp.ClientOptions.ElicitationHandler.
//
// A URL-mode elicitation becomes an Interrupt of kind KindURLElicitation — its Case holds the
// elicitation id as CaseID, the message as Prompt and the URL as ReviewURL — passed to
// forward; once forwarded it is answered "accept" (the human continues on the server's page,
// and the server says when it is done). A form-mode elicitation goes to ask; an accepted
// answer is validated against the requested schema, and one that does not satisfy it is
// ErrBadAnswer. Either may be nil, refusing its mode with an error.
func ElicitationHandler(forward hitl.Forwarder, ask FormAsker) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		p := req.Params
		if p == nil {
			return nil, errors.New("hitlmcp: elicitation without params")
		}
		if p.Mode == "url" || (p.Mode == "" && p.URL != "") {
			if forward == nil {
				return nil, errors.New("hitlmcp: URL elicitation without a Forwarder")
			}
			it := &hitl.Interrupt{Kind: KindURLElicitation, Message: p.Message, Case: &hitl.Case{
				CaseID: p.ElicitationID, Type: "x-mcp-url", Prompt: p.Message, ReviewURL: p.URL}}
			if err := forward(ctx, it); err != nil {
				return nil, fmt.Errorf("hitlmcp: forward elicitation %s: %w", p.ElicitationID, err)
			}
			return &mcp.ElicitResult{Action: "accept"}, nil
		}
		if ask == nil {
			return nil, ErrNoAsker
		}
		schema, err := json.Marshal(p.RequestedSchema)
		if err != nil {
			return nil, fmt.Errorf("hitlmcp: requested schema: %w", err)
		}
		a, err := ask(ctx, &Form{Message: p.Message, Schema: schema})
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
		if err := check(schema, a.Content); err != nil {
			return nil, err
		}
		return &mcp.ElicitResult{Action: "accept", Content: a.Content}, nil
	}
}

// check validates content against the requested schema (none: anything goes).
func check(schema json.RawMessage, content map[string]any) error {
	if len(schema) == 0 || string(schema) == "null" {
		return nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return fmt.Errorf("hitlmcp: requested schema: %w", err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return fmt.Errorf("hitlmcp: requested schema: %w", err)
	}
	if err := resolved.Validate(content); err != nil {
		return fmt.Errorf("%w: %v", ErrBadAnswer, err)
	}
	return nil
}
