package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Answer is the human's reply to a paused task: the parts sent back to the agent, the
// action it stands for, which becomes the Result's Action ("approve", "deny", …; may be
// empty, when the Result's Decision is DecisionAnswer), and the metadata of the message that
// carries it, for agents that read their resume from there (trpc-agent-go; see [TRPCResume]).
// Most callers build one with [Approve], [Reject] or [Text].
type Answer struct {
	Action   string          `json:"action,omitempty"`
	Parts    []Part          `json:"parts"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// Approve is a yes to p, spelled the way p's agent reads one: the function response an ADK
// confirmation expects ([ADKConfirmation]), the tool approval a Hector v2 pause names
// ([HectorToolApproval]), the function response to an ADK long-running call
// ([ADKFunctionResponse] with {"approved": true}), the resume a trpc-agent-go interrupt
// expects ([TRPCResume]); for any other agent a text part "approve" and a data part
// {"decision":"approve"} ([HectorDecision]), which agents that read text or Hector's
// decision both take. Its Action is "approve": the Result's Decision is DecisionApprove.
// p may be nil (the last form).
func Approve(p *Pause) Answer { return decide(p, true) }

// Reject is a no to p, spelled as [Approve] spells a yes; its Action is "deny", which the
// Result's Decision reads as DecisionReject.
func Reject(p *Pause) Answer { return decide(p, false) }

func decide(p *Pause, yes bool) Answer {
	if p != nil {
		if a, err := ADKConfirmation(p, yes); err == nil {
			return a
		}
		if a, err := HectorToolApproval(p, yes); err == nil {
			return a
		}
		if a, err := TRPCResume(p, yes); err == nil {
			return a
		}
		if tc, ok := p.ToolCall(); ok && tc.LongRunning {
			a, _ := ADKFunctionResponse(p, map[string]any{"approved": yes})
			a.Action = map[bool]string{true: "approve", false: "deny"}[yes]
			return a
		}
	}
	return HectorDecision(yes)
}

// Text is a free answer to p: for an ADK long-running call, the function response
// {"answer": s} ([ADKFunctionResponse]); for any other pause, a text part. Its Action is
// empty: the Result's Decision is DecisionAnswer, and s is in the Result's answers
// ([AnswersOf]). p may be nil.
func Text(p *Pause, s string) Answer {
	if tc, ok := p.ToolCall(); ok && tc.LongRunning {
		if a, err := ADKFunctionResponse(p, map[string]any{"answer": s}); err == nil {
			return a
		}
	}
	return Answer{Parts: []Part{TextPart(s)}}
}

// Asker collects the human's answer to a task paused for input. It is called once per
// question, from the goroutine running [Client.Run], and should return when ctx ends. An
// error ends the run with that error, wrapped with the task's id and the Asker as its source
// (errors.Is and errors.As match the Asker's error); the task stays paused, and its [Pause]
// can be resumed later.
type Asker func(ctx context.Context, p *Pause) (Answer, error)

// HectorDecision is the vendor-specific answer a Hector v1 tool-approval pause expects: a text part and a
// data part {"decision": "approve"|"deny"} (Hector reads the data part first and treats
// anything it does not recognise as deny). The data part also carries the decision inside a
// "data" wrapper, where the previous Hector generation reads it (it ignores a flat one), so
// the decision never depends on the text.
func HectorDecision(approve bool) Answer {
	d := "deny"
	if approve {
		d = "approve"
	}
	return Answer{Action: d, Parts: []Part{TextPart(d), DataPart(withWrapper(map[string]any{"decision": d}))}}
}

// withWrapper returns fields with a copy of themselves under "data", as the previous Hector
// generation reads data parts (the protobuf wrapper kept in JSON).
func withWrapper(fields map[string]any) map[string]any {
	inner := make(map[string]any, len(fields))
	for k, v := range fields {
		inner[k] = v
	}
	fields["data"] = inner
	return fields
}

// ErrNoToolCall: the pause carries no tool call to answer (no long_running_tool_ids for
// Hector v2, no adk_request_confirmation function call for ADK).
var ErrNoToolCall = errors.New("a2a: the question names no tool call to answer")

// HectorToolApproval is the vendor-specific answer a Hector v2 pause expects: a data part
// {"type":"tool_approval","decision":…,"tool_call_id":…,"task_id":…} for the first id in the
// task's metadata.long_running_tool_ids, with the same fields again under "data" for the
// previous generation (see [HectorDecision]).
func HectorToolApproval(p *Pause, approve bool) (Answer, error) {
	var m struct {
		IDs []string `json:"long_running_tool_ids"`
	}
	_ = json.Unmarshal(p.Metadata, &m)
	if len(m.IDs) == 0 {
		return Answer{}, ErrNoToolCall
	}
	d := "deny"
	if approve {
		d = "approve"
	}
	return Answer{Action: d, Parts: []Part{DataPart(withWrapper(map[string]any{
		"type": "tool_approval", "decision": d, "tool_call_id": m.IDs[0], "task_id": p.TaskID,
	}))}}, nil
}

// adkConfirmation is ADK's tool-confirmation function name (toolconfirmation.FunctionCallName).
const adkConfirmation = "adk_request_confirmation"

// ADKConfirmation is the vendor-specific answer an ADK agent expects to a tool-confirmation pause: a data
// part holding the function response {"id","name":"adk_request_confirmation",
// "response":{"confirmed":…}} for the question's function call, with part metadata
// adk_type "function_response".
func ADKConfirmation(p *Pause, confirmed bool) (Answer, error) {
	if p.Question != nil {
		for _, part := range p.Question.Parts {
			var call struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			}
			if json.Unmarshal(part.Data, &call) != nil || call.Name != adkConfirmation || call.ID == "" {
				continue
			}
			action := "deny"
			if confirmed {
				action = "approve"
			}
			reply := DataPart(map[string]any{"id": call.ID, "name": adkConfirmation, "response": map[string]bool{"confirmed": confirmed}})
			reply.Metadata = json.RawMessage(`{"adk_type":"function_response"}`)
			return Answer{Action: action, Parts: []Part{reply}}, nil
		}
	}
	return Answer{}, ErrNoToolCall
}

// ADKFunctionResponse is the vendor-specific answer to an ADK long-running function call (a
// tool that asks the human, such as ask_human, served by ADK's A2A launcher): a data part
// {"id","name","response"} for the call's id and name, with part metadata adk_type
// "function_response" — ADK takes nothing else as the call's result. response is the
// tool's result, marshalled to JSON ({"answer": "…"}, {"approved": true}). The Action is
// empty; set it for a yes or a no. ErrNoToolCall when p holds no long-running call.
func ADKFunctionResponse(p *Pause, response any) (Answer, error) {
	tc, ok := p.ToolCall()
	if !ok || !tc.LongRunning || tc.CallID == "" {
		return Answer{}, ErrNoToolCall
	}
	resp, err := json.Marshal(response)
	if err != nil {
		return Answer{}, fmt.Errorf("a2a: function response: %w", err)
	}
	reply := DataPart(map[string]any{"id": tc.CallID, "name": tc.Name, "response": json.RawMessage(resp)})
	reply.Metadata = json.RawMessage(`{"adk_type":"function_response"}`)
	return Answer{Parts: []Part{reply}}, nil
}
