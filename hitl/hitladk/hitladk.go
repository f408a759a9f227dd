// Package hitladk connects ADK Go agents (google.golang.org/adk/v2) to hitlkit on the host
// side: [Pending] finds the confirmations a run paused on (adk_request_confirmation, and a
// workflow's adk_request_input), the host puts each in front of a human through hitlkit (a
// HITL service, an HXP request, an HI fan-out: any way that yields a [transport.Result]), and
// [Response] turns the Result into the function response ADK resumes the run with. Only an
// approval ([transport.Result.Approved]) confirms a tool: a person's answer (a choice such as
// "keep the file", values, an edit), a no, an expiry (whatever its default action), a
// cancellation or a failure answers confirmed:false, and the tool does not run. An input
// request gets the person's input from an answer or an approval, and no input (nil) from
// anything else.
//
// On the tool side, a tool whose backend answers with a HITL 202 calls [Ask] with the
// interrupt and returns; the host finds the service's case in the pause
// ([Request.Interrupt]), waits on it with hitl, and answers with Response; the re-run tool
// reads the person's Result with [Decision].
package hitladk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

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
				// In process the argument is a ToolConfirmation; from a wire, a JSON object.
				var tc toolconfirmation.ToolConfirmation
				if b, err := json.Marshal(fc.Args["toolConfirmation"]); err == nil && json.Unmarshal(b, &tc) == nil {
					r.Hint, r.Payload = tc.Hint, tc.Payload
				}
			} else {
				r.Hint, _ = fc.Args["message"].(string)
			}
			out = append(out, r)
		}
	}
	return out
}

// Response is the message that resumes the run paused on req with the person's Result; r
// may be nil (no one was asked). What it says depends on the pause:
//
//   - A tool confirmation (adk_request_confirmation, and any name but [InputCallName]) is
//     confirmed only when [transport.Result.Approved]: a person approved and the case
//     completed. Anything else answers confirmed:false — an answer (select, submit, edit,
//     or any other DecisionAnswer: a choice is not a go-ahead, whichever option it names),
//     a rejection, an expiry (whatever its default action), a cancellation, a failure, a nil
//     Result — and ADK then refuses the tool call. The confirmation's payload holds the
//     Result's status, decision, action, default action and data, the whole Result (for
//     [Decision]) and, when not confirmed, a reason in plain words.
//   - An input request (InputCallName, a workflow's adk_request_input) is answered with the
//     person's input when a person answered or approved (Status completed, Decision answer
//     or approve, no default applied): status, action, data (the Result's Data as a JSON
//     string) and the whole Result. Anything else — a
//     rejection, an expiry (whatever its default action), a cancellation, a failure, a nil
//     Result — is no input: the response is {"payload": null}, which ADK hands the waiting
//     node as its resumed input, nil. The node takes nil as "the person gave none"; what
//     happened is the host's Result.
//
// Neither holds a review URL or a token: the Result carries none.
func Response(req Request, r *transport.Result) *genai.Content {
	var response map[string]any
	if req.Name == InputCallName {
		response = inputResponse(r)
	} else {
		response = confirmationResponse(r)
	}
	return &genai.Content{Role: string(genai.RoleUser), Parts: []*genai.Part{{
		FunctionResponse: &genai.FunctionResponse{ID: req.CallID, Name: req.Name, Response: response}}}}
}

// confirmationResponse is the ToolConfirmation JSON ADK reads (confirmed, payload): confirmed
// only on an approval.
func confirmationResponse(r *transport.Result) map[string]any {
	payload := outcome(r)
	withData(payload, r)
	confirmed := r.Approved()
	if !confirmed {
		payload["reason"] = why(r)
	}
	return map[string]any{"confirmed": confirmed, "payload": payload}
}

// inputResponse is the person's input to an adk_request_input pause, or no input: a null
// payload and nothing else.
func inputResponse(r *transport.Result) map[string]any {
	if gaveInput(r) {
		response := map[string]any{"status": string(r.Status)}
		if r.Action != "" {
			response["action"] = r.Action
		}
		withData(response, r)
		return response
	}
	// A sole "payload" member is what every ADK v2.0.0 reader of a resume unwraps (the
	// workflow agent, the runner's node path, the rebuild from history): the node gets nil.
	return map[string]any{"payload": nil}
}

// gaveInput reports whether r is a person's answer to an input request: completed, decided
// by a person (an answer or an approval), no default applied.
func gaveInput(r *transport.Result) bool {
	return r != nil && r.Status == transport.StatusCompleted && !r.DefaultApplied &&
		(r.Decision == transport.DecisionAnswer || r.Decision == transport.DecisionApprove)
}

// outcome is what happened, without the person's data: status, decision, action, default.
func outcome(r *transport.Result) map[string]any {
	m := map[string]any{"status": string(statusOf(r))}
	if r == nil {
		return m
	}
	if r.Decision != "" {
		m["decision"] = string(r.Decision)
	}
	if r.Action != "" {
		m["action"] = r.Action
	}
	if r.DefaultApplied {
		m["default_action"] = r.DefaultAction
	}
	return m
}

// withData adds r's data (as a JSON string) and the whole Result, which Decision reads back.
func withData(m map[string]any, r *transport.Result) {
	if r == nil {
		return
	}
	if len(r.Data) > 0 {
		m["data"] = string(r.Data)
	}
	var whole map[string]any
	if b, err := json.Marshal(r); err == nil && json.Unmarshal(b, &whole) == nil {
		m["result"] = whole
	}
}

// why says in plain words why r does not confirm a tool.
func why(r *transport.Result) string {
	switch {
	case r == nil:
		return "no one was asked"
	case r.DefaultApplied:
		return fmt.Sprintf("no person decided: the case %s and its default action %q was applied", r.Status, r.DefaultAction)
	case r.Status == transport.StatusExpired:
		return "no person decided: the case expired"
	case r.Status == transport.StatusCancelled:
		return withReason("the case was cancelled", r.Reason)
	case r.Status == transport.StatusRejected:
		return withReason("the service refused the case", r.Reason)
	case r.Status == transport.StatusFailed:
		return withReason("the case failed", r.Reason)
	case r.Status != transport.StatusCompleted:
		return fmt.Sprintf("the case ended %q", r.Status)
	case r.Decision == transport.DecisionReject:
		return withReason(fmt.Sprintf("the person said no (%q)", r.Action), r.Reason)
	case r.Decision == transport.DecisionAnswer:
		return fmt.Sprintf("the person answered %q, which is not an approval: only an approval confirms", r.Action)
	default:
		return "the case completed without a person's decision"
	}
}

func withReason(s, reason string) string {
	if reason == "" {
		return s
	}
	return s + ": " + strconv.Quote(reason)
}

// Asker puts one pause in front of a person and returns the person's Result: a HITL service
// call ([hitl.Client.Do], with hitl.CallOptions.EveryDecisionOK so that a rejection is a
// Result rather than an error), an HXP request, an HI fan-out — whichever way the host
// chooses. Every decision is a Result, a no included, and [Response] turns each into the
// pause's answer: a tool confirmation is confirmed only by an approval, an input request gets
// the person's input only from an answer or an approval. An error means the outcome is
// unknown, and [Answer] then answers nothing.
type Asker func(ctx context.Context, req Request) (*transport.Result, error)

// Answer asks every pause in reqs at once, each with ask, and returns one message holding all
// the responses (in the order of reqs), each made by [Response], for the run to resume with:
// a run paused on several confirmations resumes when each has its response. Only a Result
// that [transport.Result.Approved] confirms a tool; a person's answer (a choice, values, an
// edit), a no, an expiry, a cancellation or a failure answers confirmed:false. If any ask fails, Answer returns no
// message and the errors, once every ask has returned; nothing was answered. Cancelling ctx
// cancels the asks.
func Answer(ctx context.Context, reqs []Request, ask Asker) (*genai.Content, error) {
	if ask == nil {
		return nil, errors.New("hitladk: Answer needs an Asker")
	}
	results := make([]*transport.Result, len(reqs))
	errs := make([]error, len(reqs))
	var wg sync.WaitGroup
	for i, req := range reqs {
		wg.Go(func() {
			results[i], errs[i] = ask(ctx, req)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("hitladk: ask %s (call %s): %w", req.Tool, req.CallID, errs[i])
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	msg := &genai.Content{Role: string(genai.RoleUser)}
	for i, req := range reqs {
		msg.Parts = append(msg.Parts, Response(req, results[i]).Parts...)
	}
	return msg, nil
}

// The label keys Labels puts on an interrupt.
const (
	labelSession = "adk.session"
	labelCall    = "adk.call_id"
	labelName    = "adk.name"
)

// Labels are the keys to open a pause's case with (hitl.CallOptions.Labels): the ADK session
// and the pausing call. The interrupt keeps them, in its JSON and in a hitl.Store, so that a
// host that restarts answers the right pause: [PauseOf] reads them back in a
// hitl.ResumeHandler.
func Labels(sessionID string, req Request) map[string]string {
	return map[string]string{labelSession: sessionID, labelCall: req.CallID, labelName: req.Name}
}

// PauseOf is the session and the pause an interrupt was opened for, from its Labels — enough
// for [Response] — and false when it carries none.
func PauseOf(it *hitl.Interrupt) (sessionID string, req Request, ok bool) {
	if it == nil || it.Labels[labelCall] == "" || it.Labels[labelName] == "" {
		return "", Request{}, false
	}
	return it.Labels[labelSession], Request{CallID: it.Labels[labelCall], Name: it.Labels[labelName]}, true
}

func statusOf(r *transport.Result) transport.Status {
	if r == nil {
		return transport.StatusFailed
	}
	return r.Status
}

// Interrupt returns the HITL case a tool put before the host with [Ask], when this pause is
// one: the host waits on it (hitl.Client.Wait) and answers with Response.
func (r Request) Interrupt() (*hitl.Interrupt, bool) {
	m, ok := r.Payload.(map[string]any)
	if !ok || m["interrupt"] == nil {
		return nil, false
	}
	b, err := json.Marshal(m["interrupt"])
	if err != nil {
		return nil, false
	}
	var it hitl.Interrupt
	if json.Unmarshal(b, &it) != nil || it.ID() == "" {
		return nil, false
	}
	return &it, true
}

// ToolContext is what Ask and Decision need of a tool's context (agent.Context has it).
type ToolContext interface {
	ToolConfirmation() *toolconfirmation.ToolConfirmation
	RequestConfirmation(hint string, payload any) error
}

// Ask is for a tool whose backend answered with a HITL 202: it asks the ADK host for a
// confirmation carrying the interrupt (see Request.Interrupt), so that the person decides on
// the service's own case. The tool returns right after; the run pauses until the host
// answers, and re-runs the tool, which then reads the Result with Decision.
func Ask(ctx ToolContext, it *hitl.Interrupt) error {
	if it == nil {
		return errors.New("hitladk: Ask needs an interrupt")
	}
	return ctx.RequestConfirmation(it.Prompt(), map[string]any{"interrupt": it})
}

// ErrNoResult: the tool was re-run with a confirmation that carries no Result (the host
// answered without Response).
var ErrNoResult = errors.New("hitladk: the confirmation carries no result")

// Decision returns the person's Result when the tool is re-run after the host answered, and
// false on the tool's first run (call the backend, then Ask). Go ahead only when the Result
// is [transport.Result.Approved]. A tool made with functiontool is re-run only when the host
// confirmed, which [Response] does only for an approval: on anything else ADK refuses the
// call (tool.ErrConfirmationRejected) before the tool's function runs, so such a tool sees
// only approvals here; a tool that implements Run itself sees every Result.
func Decision(ctx ToolContext) (*transport.Result, bool, error) {
	tc := ctx.ToolConfirmation()
	if tc == nil {
		return nil, false, nil
	}
	m, _ := tc.Payload.(map[string]any)
	raw, ok := m["result"]
	if !ok {
		return nil, true, ErrNoResult
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, true, err
	}
	var r transport.Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, true, err
	}
	return &r, true, nil
}
