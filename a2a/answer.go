package a2a

import (
	"context"
	"encoding/json"
	"errors"
)

// Answer is the human's reply to a paused task: the parts sent back to the agent, and the
// action it stands for, which becomes the Result's Action ("approve", "deny", …; may be
// empty, when the Result's Decision is DecisionAnswer).
type Answer struct {
	Action string
	Parts  []Part
}

// Asker collects the human's answer to a task paused for input. It is called once per
// question, from the goroutine running [Client.Run], and should return when ctx ends. An
// error ends the run with that error; the task stays paused, and its [Pause] can be resumed
// later.
type Asker func(ctx context.Context, p *Pause) (Answer, error)

// HectorDecision is the answer a Hector v1 tool-approval pause expects: a text part and a
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

// HectorToolApproval is the answer a Hector v2 pause expects: a data part
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

// ADKConfirmation is the answer an ADK agent expects to a tool-confirmation pause: a data
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
