// Package hitlmcpgo is hitlmcp for servers and clients built on github.com/mark3labs/mcp-go:
// a person in front of an mcp-go server's tools ([Tool]), and an mcp-go client whose
// elicitations go to hitlkit ([ElicitationHandler], [ClientOptions]). Both behave as
// hitlmcp's do — the same sealed requestState, the same open cases a repeat joins, the same
// schema checks and put-back rounds — and talk to go-sdk peers on 2026-07-28 and
// 2025-11-25 alike. The module's README.md is its front page.
//
// The forms, answers and options are hitlmcp's ([hitlmcp.Form], [hitlmcp.Answer],
// [hitlmcp.FormAsker], [hitlmcp.WithRounds], [hitlmcp.Ledger]): one API for both
// libraries.
package hitlmcpgo

import (
	"context"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
)

// ElicitationHandler returns an mcp-go client.ElicitationHandler that does what
// [hitlmcp.ElicitationHandler] does, for 2025-11-25 elicitation/create requests and
// 2026-07-28 input requests alike (the mcp-go client hands both to it): a URL-mode
// elicitation becomes an Interrupt of kind [hitlmcp.KindURLElicitation] given to forward,
// then answered "accept"; a form-mode elicitation goes to ask, and an accepted answer that
// breaks the requested schema is put back to the human with every problem, up to
// [hitlmcp.DefaultRounds] rounds ([hitlmcp.WithRounds] sets another bound); the last one
// is an error matching [hitlmcp.ErrBadAnswer] ([*hitlmcp.AnswerError]). A decline or
// cancel goes to the server as it is. Either forward or ask may be nil, refusing its mode
// with an error ([hitlmcp.ErrNoAsker] for forms). mcp-go sends every error of a handler to
// the server as a JSON-RPC error; which code is mcp-go's choice. Safe for concurrent use; a
// call ends when ctx does.
func ElicitationHandler(forward hitl.Forwarder, ask hitlmcp.FormAsker, opts ...hitlmcp.HandlerOption) client.ElicitationHandler {
	return handler{h: hitlmcp.ElicitationHandler(forward, ask, opts...)}
}

// handler hands mcp-go's elicitation to hitlmcp's, in go-sdk's types.
type handler struct {
	h func(context.Context, *gomcp.ElicitRequest) (*gomcp.ElicitResult, error)
}

// Elicit implements client.ElicitationHandler.
func (h handler) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	p := req.Params
	res, err := h.h(ctx, &gomcp.ElicitRequest{Params: &gomcp.ElicitParams{
		Mode: p.Mode, Message: p.Message, RequestedSchema: p.RequestedSchema, ElicitationID: p.ElicitationID, URL: p.URL}})
	if err != nil {
		return nil, err
	}
	out := &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseAction(res.Action)}}
	if res.Content != nil {
		out.Content = res.Content
	}
	return out, nil
}

// ClientOptions returns options for mcp-go's client.NewClient (or
// client.NewInProcessClientWithOptions) whose elicitations go to
// ElicitationHandler(forward, ask, opts...), declaring the modes it takes: URL mode when
// forward is set, form mode when ask is — a server sends a URL question only to a client
// that declared URL elicitation. It sets the client's capabilities
// (client.WithClientCapabilities): to declare others too, pass a later
// client.WithClientCapabilities that keeps Elicitation.
func ClientOptions(forward hitl.Forwarder, ask hitlmcp.FormAsker, opts ...hitlmcp.HandlerOption) []client.ClientOption {
	caps := &mcp.ElicitationCapability{}
	if forward != nil {
		caps.URL = &struct{}{}
	}
	if ask != nil {
		caps.Form = &struct{}{}
	}
	return []client.ClientOption{
		client.WithElicitationHandler(ElicitationHandler(forward, ask, opts...)),
		client.WithClientCapabilities(mcp.ClientCapabilities{Elicitation: caps}),
	}
}
