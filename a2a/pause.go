package a2a

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Binding is a protocol binding at a protocol version: how requests are spelled.
type Binding string

// The four bindings hitlkit speaks (A2A 0.3 §3.2 and 1.0 §3.2; gRPC is not spoken).
const (
	JSONRPC03 Binding = "jsonrpc/0.3" // POST, methods message/send, tasks/get, …; 0.x JSON
	JSONRPC10 Binding = "jsonrpc/1.0" // POST, methods SendMessage, GetTask, …; ProtoJSON
	REST03    Binding = "rest/0.3"    // /v1/message:send, /v1/tasks/{id}; proto JSON with "content"
	REST10    Binding = "rest/1.0"    // /message:send, /tasks/{id}; ProtoJSON
)

func (b Binding) valid() bool {
	switch b {
	case JSONRPC03, JSONRPC10, REST03, REST10:
		return true
	}
	return false
}

func (b Binding) rest() bool { return b == REST03 || b == REST10 }
func (b Binding) v10() bool  { return b == JSONRPC10 || b == REST10 }

// Endpoint is where an agent is reached: the interface URL of its agent card (for REST, the
// base the paths are appended to) and the binding spoken there.
type Endpoint struct {
	URL     string  `json:"url"`
	Binding Binding `json:"binding"`
}

// Class is what a task means for its client.
type Class string

// Classes, as [Classify] assigns them.
const (
	// ClassDone: the task reached a terminal state.
	ClassDone Class = "done"
	// ClassWorking: submitted or working; wait.
	ClassWorking Class = "working"
	// ClassInputRequired: the agent asks a question; answer and resume.
	ClassInputRequired Class = "input-required"
	// ClassAuthRequired: the agent needs authorisation, which usually arrives out of band;
	// keep waiting (a resume is allowed).
	ClassAuthRequired Class = "auth-required"
	// ClassRelay: "working" with metadata.relay_task (or relay_reason): a relay holds the
	// task until a human administrator approves or rejects it. Not progress: a human decides.
	ClassRelay Class = "relay"
	// ClassRelayPending: "completed" with metadata.hitl_pending: a relay's legacy form of the
	// same. Not done.
	ClassRelayPending Class = "relay-pending"
	// ClassMessage: the agent answered with a message; there is no task.
	ClassMessage Class = "message"
	// ClassUnknown: a state no version defines, or none. Neither resumable nor terminal.
	ClassUnknown Class = "unknown"
)

// Paused reports whether c means a human must act before the task can go on.
func (c Class) Paused() bool {
	switch c {
	case ClassInputRequired, ClassAuthRequired, ClassRelay, ClassRelayPending:
		return true
	}
	return false
}

// relayMeta is the relay's metadata (relay seed; the hitl_pending members are the seed's,
// unconfirmed by public material, so every one is optional).
type relayMeta struct {
	RelayTask   json.RawMessage `json:"relay_task"`
	RelayReason json.RawMessage `json:"relay_reason"`
	HITLPending json.RawMessage `json:"hitl_pending"`
}

// Relay is what a relay said about a task it holds.
type Relay struct {
	// Reason is metadata.relay_reason, raw (a policy escalation's details).
	Reason json.RawMessage `json:"reason,omitempty"`
	// The members of metadata.hitl_pending, when it is an object. SinkAgentID names the agent
	// that asked; polls still go to the endpoint that was called.
	HITLRequestID   string `json:"hitl_request_id,omitempty"`
	TaskID          string `json:"task_id,omitempty"`
	ContextID       string `json:"context_id,omitempty"`
	SinkAgentID     string `json:"sink_agent_id,omitempty"`
	DetectionSource string `json:"detection_source,omitempty"`
}

// truthy accepts JSON true and, leniently, the string "true" in any case: relays written in
// dynamic languages send both. Anything else (false, "false", null, absent) is false.
func truthy(raw json.RawMessage) bool {
	s := string(bytes.TrimSpace(raw))
	return s == "true" || strings.EqualFold(s, `"true"`)
}

func present(raw json.RawMessage) bool {
	s := string(bytes.TrimSpace(raw))
	return s != "" && s != "null" && s != "false" && s != `""` && s != "{}"
}

// Classify says what a task means for its client. It is the one place states are read:
//
//	state                          metadata                     class
//	working, submitted             relay_task true or "true"    ClassRelay
//	working, submitted             relay_reason present         ClassRelay
//	working, submitted             —                            ClassWorking
//	input-required                                              ClassInputRequired
//	auth-required                                               ClassAuthRequired
//	completed                      hitl_pending present         ClassRelayPending
//	completed                      a pending graph interrupt    ClassInputRequired
//	completed, failed, canceled, rejected                       ClassDone
//	unknown, unspecified, missing, anything else                ClassUnknown
//
// A pending graph interrupt is trpc-agent-go's: metadata.state_delta._pregel_metadata of an
// artifact, of the task or of its status message, holding an interruptKey (see
// [Checkpoint]). Only these states ask: a message, a status without a state and progress
// of any kind never make a pause.
func Classify(t *Task) Class {
	if t == nil {
		return ClassUnknown
	}
	var m relayMeta
	if len(t.Metadata) > 0 {
		_ = json.Unmarshal(t.Metadata, &m) // metadata that is not an object carries no relay signal
	}
	switch t.State {
	case StateSubmitted, StateWorking:
		if truthy(m.RelayTask) || present(m.RelayReason) {
			return ClassRelay
		}
		return ClassWorking
	case StateInputRequired:
		return ClassInputRequired
	case StateAuthRequired:
		return ClassAuthRequired
	case StateCompleted:
		if present(m.HITLPending) {
			return ClassRelayPending
		}
		if checkpointOf(t) != nil {
			// trpc-agent-go completes the task of a graph that waits for a resume.
			return ClassInputRequired
		}
		return ClassDone
	case StateFailed, StateCanceled, StateRejected:
		return ClassDone
	default:
		return ClassUnknown
	}
}

// Pause is a task waiting for a human, with what is needed to answer it and follow it. It
// marshals to JSON and back, so one process can save it and another carry on.
type Pause struct {
	Class    Class    `json:"class"`
	Endpoint Endpoint `json:"endpoint"`
	TaskID   string   `json:"task_id"`
	// ContextID is empty when the agent sent none (1.0 §6.3's example); a resume then sends
	// the task id alone.
	ContextID string `json:"context_id,omitempty"`
	// Question is the task's status message: the agent's question, text and data parts.
	Question *Message `json:"question,omitempty"`
	// Metadata is the task's metadata, raw (Hector v2 puts long_running_tool_ids there).
	Metadata json.RawMessage `json:"metadata,omitempty"`
	// Relay is set for ClassRelay and ClassRelayPending.
	Relay *Relay `json:"relay,omitempty"`
	// Task is the task as last seen.
	Task *Task `json:"task,omitempty"`
	// Checkpoint is set for a graph interrupt a framework reported as a completed task
	// (trpc-agent-go); answer it with [TRPCResume] (or [Approve], [Reject]).
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
	// NotTaken is set by [Client.Run] when the agent asks again about the tool call it was
	// just answered on: the answer it did not take. [Pause.Prompt] says so.
	NotTaken *Answer `json:"not_taken,omitempty"`
}

// Prompt returns what to show the human: the question's text parts; a question carried in
// a graph interrupt's value or in the tool call's arguments ({"question": …}, as
// trpc-agent-go's interrupt and an ADK long-running ask_human call send it) in their place; and, when the question names a tool call
// its text does not mention (Mastra's "Additional input is required to continue this
// task."), the call after the text. A question without text (ADK's confirmation is a data
// part alone) gets one built from what it carries: the confirmation's hint, Hector v2's
// metadata.input_prompt, or its tool call's name and arguments; a relay's hold and an
// auth-required pause without text are described. A pause that asks for input always has a
// prompt, so a forwarder has something to show. When the agent did not take the previous
// answer (NotTaken), the prompt begins by saying so.
func (p *Pause) Prompt() string {
	q := p.prompt()
	if p.NotTaken != nil && p.Class == ClassInputRequired {
		return fmt.Sprintf("Your previous answer (%s) was not taken by the agent. %s", p.NotTaken.said(), q)
	}
	return q
}

func (p *Pause) prompt() string {
	if c := p.Checkpoint; c != nil && p.Class == ClassInputRequired {
		var v struct {
			Question string `json:"question"`
		}
		if json.Unmarshal(c.Value, &v) == nil && strings.TrimSpace(v.Question) != "" {
			return v.Question
		}
	}
	if p.Class == ClassInputRequired {
		if tc, ok := p.ToolCall(); ok {
			var args struct {
				Question string `json:"question"`
			}
			if json.Unmarshal(tc.Arguments, &args) == nil && strings.TrimSpace(args.Question) != "" {
				return args.Question
			}
			if t := p.Question.Text(); t != "" && tc.Name != "" && !strings.Contains(t, tc.Name) {
				return t + "\n" + p.builtPrompt()
			}
		}
	}
	if t := p.Question.Text(); t != "" {
		return t
	}
	switch p.Class {
	case ClassRelay, ClassRelayPending:
		return "An administrator must approve this request before it continues."
	case ClassAuthRequired:
		return "The agent needs authorisation before it continues."
	case ClassInputRequired:
		return p.builtPrompt()
	}
	return ""
}

// maxSaid bounds the previous answer quoted in a prompt.
const maxSaid = 200

// said quotes what an answer said: its action, else its text, bounded.
func (a *Answer) said() string {
	s := a.Action
	if s == "" {
		s = (&Message{Parts: a.Parts}).Text()
	}
	if s == "" {
		return "without text"
	}
	if len(s) > maxSaid {
		s = strings.ToValidUTF8(s[:maxSaid], "") + "…"
	}
	return strconv.Quote(s)
}

// maxPromptArguments bounds the arguments quoted in a built prompt.
const maxPromptArguments = 400

// builtPrompt words the question of a pause that sent no text.
func (p *Pause) builtPrompt() string {
	var meta struct {
		Prompt string `json:"input_prompt"`
	}
	_ = json.Unmarshal(p.Metadata, &meta)
	if meta.Prompt != "" {
		return meta.Prompt
	}
	if p.Question != nil {
		for _, part := range p.Question.Parts {
			var d struct {
				Args struct {
					Confirmation struct {
						Hint string `json:"hint"`
					} `json:"toolConfirmation"`
				} `json:"args"`
			}
			if json.Unmarshal(part.Data, &d) == nil && d.Args.Confirmation.Hint != "" {
				return d.Args.Confirmation.Hint
			}
		}
	}
	tc, ok := p.ToolCall()
	switch {
	case !ok:
		return "The agent asks for input."
	case tc.Name == "":
		return "The agent asks to approve a tool call."
	}
	var args bytes.Buffer
	if json.Compact(&args, tc.Arguments) != nil || args.Len() == 0 {
		return fmt.Sprintf("Approve the call of %s?", tc.Name)
	}
	a := args.String()
	if len(a) > maxPromptArguments {
		a = strings.ToValidUTF8(a[:maxPromptArguments], "") + "…"
	}
	return fmt.Sprintf("Approve the call of %s with arguments %s?", tc.Name, a)
}

// String describes the pause without its question's data.
func (p Pause) String() string {
	return fmt.Sprintf("a2a %s task %s at %s", p.Class, p.TaskID, p.Endpoint.Binding)
}

// NewPause returns the pause t is in, reached at ep, or nil when t is not paused.
func NewPause(ep Endpoint, t *Task) *Pause {
	c := Classify(t)
	if !c.Paused() {
		return nil
	}
	p := &Pause{Class: c, Endpoint: ep, TaskID: t.ID, ContextID: t.ContextID, Question: t.Question, Metadata: t.Metadata, Task: t}
	if c == ClassInputRequired && t.State == StateCompleted {
		p.Checkpoint = checkpointOf(t)
	}
	if c == ClassRelay || c == ClassRelayPending {
		var m relayMeta
		_ = json.Unmarshal(t.Metadata, &m)
		r := &Relay{}
		if present(m.RelayReason) {
			r.Reason = m.RelayReason
		}
		_ = json.Unmarshal(m.HITLPending, r) // an object fills the ids; true or a string leaves them empty
		p.Relay = r
	}
	return p
}

// Track returns the handle [Client.Wait] and [Client.Run] take for task t at ep, whatever its
// state: for a task paused for a human the same as NewPause; for a task submitted, working or
// in an unknown state (as a non-blocking send answers), a Pause of ClassWorking (Run then
// waits for what the task does next). It returns nil for a nil or finished task.
func Track(ep Endpoint, t *Task) *Pause {
	if t == nil {
		return nil
	}
	if p := NewPause(ep, t); p != nil {
		return p
	}
	switch c := Classify(t); c {
	case ClassWorking, ClassUnknown:
		return &Pause{Class: c, Endpoint: ep, TaskID: t.ID, ContextID: t.ContextID, Metadata: t.Metadata, Task: t}
	}
	return nil
}

// InferBinding guesses the binding a response was spoken in, from the request that produced
// it and the body's spelling: a JSON-RPC envelope is JSON-RPC, anything else REST; 1.0 when
// the request sent A2A-Version 1.x or the body is ProtoJSON outside 0.3 REST's shapes, 0.3
// otherwise. The URL is the request's, trimmed of the REST operation path.
func InferBinding(req *http.Request, ev *Event) Endpoint {
	var ep Endpoint
	v1 := false
	if req != nil {
		v1 = strings.HasPrefix(req.Header.Get("A2A-Version"), "1")
		if req.URL != nil {
			ep.URL = req.URL.String()
		}
	}
	switch {
	case ev.Envelope && (v1 || (ev.ProtoJSON && !ev.Content)):
		ep.Binding = JSONRPC10
	case ev.Envelope:
		ep.Binding = JSONRPC03
	case ev.Content || strings.Contains(ep.URL, "/v1/message:") || strings.Contains(ep.URL, "/v1/tasks/"):
		ep.Binding = REST03
	default:
		ep.Binding = REST10
	}
	if ep.Binding.rest() {
		ep.URL = restBase(ep.URL)
	}
	return ep
}

// restBase trims a REST operation path (…/message:send, …/tasks/{id}) off u, leaving the
// interface URL.
func restBase(u string) string {
	if i := strings.Index(u, "?"); i >= 0 {
		u = u[:i]
	}
	for _, suffix := range []string{"/v1/message:send", "/v1/message:stream", "/message:send", "/message:stream"} {
		if strings.HasSuffix(u, suffix) {
			return strings.TrimSuffix(u, suffix)
		}
	}
	for _, marker := range []string{"/v1/tasks/", "/tasks/"} {
		if i := strings.LastIndex(u, marker); i >= 0 {
			return u[:i]
		}
	}
	return u
}

// Class classifies the event: a task or status update by its task's state and metadata
// ([Classify]), a message as ClassMessage, an artifact update as ClassWorking.
func (e *Event) Class() Class {
	switch {
	case e.Task != nil:
		return Classify(e.Task)
	case e.Status != nil:
		return Classify(applyStatus(nil, e.Status))
	case e.Message != nil:
		return ClassMessage
	case e.Artifact != nil:
		return ClassWorking
	}
	return ClassUnknown
}

// ToolCall is the tool call a paused task asks a human to approve, as [Pause.ToolCall] reads
// it from whichever shape the agent used.
type ToolCall struct {
	// Name is the tool's name ("delete_file"); empty when the agent does not say.
	Name string
	// Arguments are the call's arguments as JSON, an object as a rule. Arguments sent as a
	// string holding JSON (the previous Hector generation's tool_input) are parsed; any
	// other string is kept as a JSON string.
	Arguments json.RawMessage
	// CallID identifies the call, where the agent gives an id: ADK's confirmation
	// function-call id (the one [ADKConfirmation] answers), Hector's tool_call_id or the
	// first of metadata.long_running_tool_ids.
	CallID string
	// Options are the answers the agent offers ("approve", "deny"), when it lists them.
	Options []string
	// LongRunning reports an ADK long-running function call (part metadata
	// adk_is_long_running): the agent takes only a function response for CallID as the
	// answer ([ADKFunctionResponse]).
	LongRunning bool
}

// ToolCall returns the tool call the task asks about, and false when it names none. It reads,
// in order: a graph interrupt's value ({"tool","arguments"}, trpc-agent-go); a data part of
// the question in Hector's tool_approval shape
// ({"interaction_type":"tool_approval","tool_name","tool_input","options"}), an ADK
// adk_request_confirmation function call or its arguments alone (the originalFunctionCall's
// name and args), Mastra's suspendPayload ({"toolName","args","toolCallId"}, the id also
// from metadata.suspendedToolCallId), or an ADK long-running function call (a bare
// {"id","name","args"} whose part metadata says adk_is_long_running); a data part of the
// task's artifacts in any of these shapes or as a bare function call ({"name","args"}, or
// Hector v2's {"name","arguments"}); and Hector v2's metadata (long_running_tool_ids,
// tool_name).
func (p *Pause) ToolCall() (*ToolCall, bool) {
	if p == nil {
		return nil, false
	}
	if c := p.Checkpoint; c != nil {
		var v struct {
			Tool      string          `json:"tool"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal(c.Value, &v) == nil && v.Tool != "" {
			return &ToolCall{Name: v.Tool, Arguments: jsonArguments(v.Arguments), CallID: c.Key}, true
		}
	}
	var meta struct {
		IDs       []string `json:"long_running_tool_ids"`
		ToolName  string   `json:"tool_name"`
		Suspended string   `json:"suspendedToolCallId"`
	}
	_ = json.Unmarshal(p.Metadata, &meta)
	if p.Question != nil && meta.Suspended == "" {
		var qm struct {
			Suspended string `json:"suspendedToolCallId"`
		}
		_ = json.Unmarshal(p.Question.Metadata, &qm)
		meta.Suspended = qm.Suspended
	}
	var parts []Part
	if p.Question != nil {
		parts = append(parts, p.Question.Parts...)
	}
	fromQuestion := len(parts)
	if p.Task != nil {
		for _, a := range p.Task.Artifacts {
			parts = append(parts, a.Parts...)
		}
	}
	for i, part := range parts {
		if tc, ok := toolCallOf(part, i >= fromQuestion); ok {
			if tc.CallID == "" && meta.Suspended != "" {
				tc.CallID = meta.Suspended
			}
			if tc.CallID == "" && len(meta.IDs) > 0 {
				tc.CallID = meta.IDs[0]
			}
			return tc, true
		}
	}
	if len(meta.IDs) > 0 {
		return &ToolCall{Name: meta.ToolName, CallID: meta.IDs[0]}, true
	}
	return nil, false
}

// longRunning reports part metadata that marks an ADK long-running function call.
func longRunning(meta json.RawMessage) bool {
	var m struct {
		LongRunning json.RawMessage `json:"adk_is_long_running"`
		Type        string          `json:"adk_type"`
	}
	return json.Unmarshal(meta, &m) == nil && truthy(m.LongRunning) && (m.Type == "" || m.Type == "function_call")
}

// toolCallOf reads one data part; bare function calls ({"name","args"}) count only in
// artifacts, where agents put the call they hold, and in the question when ADK marks them
// long-running.
func toolCallOf(part Part, artifact bool) (*ToolCall, bool) {
	data := part.Data
	if len(data) == 0 {
		return nil, false
	}
	var d struct {
		InteractionType string          `json:"interaction_type"`
		ToolName        string          `json:"tool_name"`
		ToolInput       json.RawMessage `json:"tool_input"`
		ToolCallID      string          `json:"tool_call_id"`
		Options         []string        `json:"options"`
		ID              string          `json:"id"`
		Name            string          `json:"name"`
		Args            json.RawMessage `json:"args"`
		Arguments       json.RawMessage `json:"arguments"`
		Original        *functionCall   `json:"originalFunctionCall"`
		Suspend         *struct {
			ToolName   string          `json:"toolName"`
			Args       json.RawMessage `json:"args"`
			ToolCallID string          `json:"toolCallId"`
		} `json:"suspendPayload"`
	}
	if json.Unmarshal(data, &d) != nil {
		return nil, false
	}
	switch {
	case d.Suspend != nil && d.Suspend.ToolName != "":
		// Mastra: {"suspendPayload":{"toolName","args","toolCallId"}}.
		return &ToolCall{Name: d.Suspend.ToolName, Arguments: jsonArguments(d.Suspend.Args), CallID: d.Suspend.ToolCallID}, true
	case !artifact && d.Name != "" && d.Name != adkConfirmation && d.ID != "" && longRunning(part.Metadata):
		fc := functionCall{Name: d.Name, Args: d.Args, Arguments: d.Arguments}
		return &ToolCall{Name: d.Name, Arguments: fc.arguments(), CallID: d.ID, LongRunning: true}, true
	case d.InteractionType == "tool_approval" || (d.ToolName != "" && len(d.ToolInput) > 0):
		return &ToolCall{Name: d.ToolName, Arguments: jsonArguments(d.ToolInput), CallID: firstOf(d.ToolCallID, d.ID), Options: d.Options}, true
	case d.Name == adkConfirmation:
		var args struct {
			Original functionCall `json:"originalFunctionCall"`
		}
		_ = json.Unmarshal(d.Args, &args)
		return &ToolCall{Name: args.Original.Name, Arguments: args.Original.arguments(), CallID: d.ID}, true
	case d.Original != nil && d.Original.Name != "":
		// The confirmation's arguments alone: {"originalFunctionCall":…,"toolConfirmation":…}.
		return &ToolCall{Name: d.Original.Name, Arguments: d.Original.arguments(), CallID: d.Original.ID}, true
	case artifact && d.Name != "" && (len(d.Args) > 0 || len(d.Arguments) > 0):
		fc := functionCall{Name: d.Name, Args: d.Args, Arguments: d.Arguments}
		return &ToolCall{Name: d.Name, Arguments: fc.arguments(), CallID: firstOf(d.ID, d.ToolCallID)}, true
	case artifact && d.ToolName != "" && len(d.Arguments) > 0:
		return &ToolCall{Name: d.ToolName, Arguments: jsonArguments(d.Arguments), CallID: firstOf(d.ToolCallID, d.ID)}, true
	}
	return nil, false
}

// functionCall is a function call as agents spell it: genai's {"id","name","args"}, or
// {"name","arguments"} (Hector v2).
type functionCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args"`
	Arguments json.RawMessage `json:"arguments"`
}

func (f functionCall) arguments() json.RawMessage {
	if a := jsonArguments(f.Args); a != nil {
		return a
	}
	return jsonArguments(f.Arguments)
}

// jsonArguments returns raw, or the JSON a string in raw holds.
func jsonArguments(raw json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(raw, &s) == nil && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}
