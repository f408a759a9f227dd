// Package hitladk connects ADK Go agents (google.golang.org/adk/v2) to hitlkit on the host
// side: [Pending] finds the confirmations a run paused on (adk_request_confirmation, and a
// workflow's adk_request_input), the host puts each in front of a human through hitlkit (a
// HITL service, an HXP request, an HI fan-out: any way that yields a [hitl.Result]), and
// [Response] turns the Result into the function response ADK resumes the run with.
package hitladk

import (
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool/toolconfirmation"
	"google.golang.org/genai"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

// InputCallName is the function call a workflow pauses on for a person's input.
const InputCallName = "adk_request_input"

// Request is one pause of an ADK run waiting for a person.
type Request struct {
	// CallID is the id of the pausing function call; the response must carry it.
	CallID string
	// Name is toolconfirmation.FunctionCallName or InputCallName.
	Name string
	// Tool and Args are the call being confirmed (the original function call); empty for
	// an input request.
	Tool string
	Args map[string]any
	// Hint is what the agent asks the person.
	Hint string
	// Payload is the confirmation's payload, as the tool gave it.
	Payload any
}

// Pending lists the pauses in a run's events, in order, each once (a call answered later in
// the same events is not pending).
func Pending(events []*session.Event) []Request {
	var out []Request
	answered := map[string]bool{}
	for _, ev := range events {
		if ev == nil || ev.Content == nil {
			continue
		}
		for _, p := range ev.Content.Parts {
			if fr := p.FunctionResponse; fr != nil {
				answered[fr.ID] = true
			}
		}
	}
	for _, ev := range events {
		if ev == nil || ev.Content == nil {
			continue
		}
		for _, p := range ev.Content.Parts {
			fc := p.FunctionCall
			if fc == nil || answered[fc.ID] || (fc.Name != toolconfirmation.FunctionCallName && fc.Name != InputCallName) {
				continue
			}
			r := Request{CallID: fc.ID, Name: fc.Name}
			if fc.Name == toolconfirmation.FunctionCallName {
				if orig, err := toolconfirmation.OriginalCallFrom(fc); err == nil && orig != nil {
					r.Tool, r.Args = orig.Name, orig.Args
				}
				if tc, ok := fc.Args["toolConfirmation"].(map[string]any); ok {
					r.Hint, _ = tc["hint"].(string)
					r.Payload = tc["payload"]
				}
			} else {
				r.Hint, _ = fc.Args["message"].(string)
			}
			out = append(out, r)
		}
	}
	return out
}

// Response is the message that resumes the run paused on req with the person's Result. A
// confirmation is confirmed only when a person completed the case with an approving action
// (approve, confirm, submit, select); a rejection, an expiry (whatever its default action)
// or a cancellation answers confirmed:false, with what happened in the payload — never a
// confirmation. An input request gets the Result's action and data.
func Response(req Request, r *hitl.Result) *genai.Content {
	payload := map[string]any{"status": string(statusOf(r))}
	if r != nil {
		if r.Action != "" {
			payload["action"] = r.Action
		}
		if r.DefaultApplied {
			payload["default_action"] = r.DefaultAction
		}
		if len(r.Data) > 0 {
			payload["data"] = string(r.Data)
		}
	}
	response := map[string]any{"confirmed": approving(r), "payload": payload}
	if req.Name == InputCallName {
		response = payload
	}
	return &genai.Content{Role: string(genai.RoleUser), Parts: []*genai.Part{{
		FunctionResponse: &genai.FunctionResponse{ID: req.CallID, Name: req.Name, Response: response}}}}
}

func statusOf(r *hitl.Result) transport.Status {
	if r == nil {
		return transport.StatusFailed
	}
	return r.Status
}

func approving(r *hitl.Result) bool {
	if !r.DecidedByHuman() {
		return false
	}
	switch r.Action {
	case "approve", "confirm", "submit", "select":
		return true
	}
	return false
}
