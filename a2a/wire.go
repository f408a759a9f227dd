package a2a

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Role is who wrote a message, in canonical form.
type Role string

// Message roles (0.3 "user"/"agent", 1.0 ROLE_USER/ROLE_AGENT).
const (
	RoleUser  Role = "user"
	RoleAgent Role = "agent"
)

// Part is one piece of a message or artifact, whatever the version: exactly one of Text,
// Data, URL or Raw is set. Data is the part's JSON value byte for byte (for 0.3 REST, the
// value inside its data.data wrapper).
type Part struct {
	Text      string          `json:"text,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	URL       string          `json:"url,omitempty"`
	Raw       []byte          `json:"raw,omitempty"`
	Filename  string          `json:"filename,omitempty"`
	MediaType string          `json:"media_type,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

// TextPart returns a text part.
func TextPart(s string) Part { return Part{Text: s} }

// DataPart returns a data part holding v marshalled to JSON; it panics only if v cannot be
// marshalled, which a map or struct of plain values never is.
func DataPart(v any) Part {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("a2a.DataPart: %v", err))
	}
	return Part{Data: b}
}

// Message is one message of a conversation.
type Message struct {
	MessageID string          `json:"message_id,omitempty"`
	Role      Role            `json:"role,omitempty"`
	Parts     []Part          `json:"parts,omitempty"`
	TaskID    string          `json:"task_id,omitempty"`
	ContextID string          `json:"context_id,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

// Text joins the message's text parts with newlines.
func (m *Message) Text() string {
	if m == nil {
		return ""
	}
	var b bytes.Buffer
	for _, p := range m.Parts {
		if p.Text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// Artifact is an output of a task.
type Artifact struct {
	ArtifactID string          `json:"artifact_id,omitempty"`
	Name       string          `json:"name,omitempty"`
	Parts      []Part          `json:"parts,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
}

// Task is a task as the agent reported it, normalised. State is canonical; RawState is the
// spelling on the wire. Question is status.message: what the agent says in its current
// state (the question, for input-required). History is not kept: a2a-go appends the
// question after the user's reply, so the question is read from the status only.
type Task struct {
	ID        string          `json:"id"`
	ContextID string          `json:"context_id,omitempty"`
	State     State           `json:"state"`
	RawState  string          `json:"raw_state,omitempty"`
	Question  *Message        `json:"question,omitempty"`
	Timestamp string          `json:"timestamp,omitempty"`
	Artifacts []Artifact      `json:"artifacts,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

// StatusUpdate is a stream's or push notification's status-update event. Final is 0.3's
// final flag; 1.0 has none.
type StatusUpdate struct {
	TaskID    string
	ContextID string
	State     State
	RawState  string
	Message   *Message
	Metadata  json.RawMessage
	Final     bool
}

// ArtifactUpdate is a stream's artifact-update event.
type ArtifactUpdate struct {
	TaskID, ContextID string
	Artifact          Artifact
	Append, LastChunk bool
}

// Event is one decoded answer: exactly one of Task, Message, Status and Artifact is set.
type Event struct {
	Task     *Task
	Message  *Message
	Status   *StatusUpdate
	Artifact *ArtifactUpdate
	// Envelope reports that the body was a JSON-RPC envelope.
	Envelope bool
	// ProtoJSON reports the 1.0/REST spelling (TASK_STATE_*, ROLE_*), as opposed to 0.x JSON.
	ProtoJSON bool
	// Content reports 0.3 REST's proto shape: message parts under "content", data parts
	// wrapped as {"data":{"data":…}}.
	Content bool
}

// TaskID returns the id of the task the event concerns; empty for a message without one.
func (e *Event) TaskID() string {
	switch {
	case e.Task != nil:
		return e.Task.ID
	case e.Status != nil:
		return e.Status.TaskID
	case e.Artifact != nil:
		return e.Artifact.TaskID
	case e.Message != nil:
		return e.Message.TaskID
	}
	return ""
}

// Decode reads one A2A body: a JSON-RPC response envelope (0.3 or 1.0), a REST body
// ({"task"}, {"message"}, {"statusUpdate"}, {"artifactUpdate"}), a bare Task or Message (0.3
// with "kind", or without), a 0.3 status-update or artifact-update, or one stream event's
// data. An error reported by the agent, in an envelope or as a REST error body, is an
// [*Error]; a body that is none of these is a [*MalformedError]. Decode never panics on any
// input.
func Decode(body []byte) (*Event, error) {
	return decode(body, nil)
}

// probe reads, in one pass, the members that say what a body is: a JSON-RPC envelope
// (JSON-RPC 2.0 §5), a REST error, a 1.0 wrapper, a 0.3 kind-tagged object, or a bare task
// or message. Members stay raw so that presence, null included, is seen.
type probe struct {
	JSONRPC        *string         `json:"jsonrpc"`
	ID             json.RawMessage `json:"id"`
	Result         json.RawMessage `json:"result"`
	Error          json.RawMessage `json:"error"`
	Kind           json.RawMessage `json:"kind"`
	Task           json.RawMessage `json:"task"`
	Message        json.RawMessage `json:"message"`
	StatusUpdate   json.RawMessage `json:"statusUpdate"`
	ArtifactUpdate json.RawMessage `json:"artifactUpdate"`
	Status         json.RawMessage `json:"status"`
	MessageID      json.RawMessage `json:"messageId"`
	TaskID         json.RawMessage `json:"taskId"`
	Type           json.RawMessage `json:"type"`
	Title          json.RawMessage `json:"title"`
	Code           json.RawMessage `json:"code"`
}

// readProbe reads body's probe in one pass.
func readProbe(body []byte) (p probe, err error) {
	if err := json.Unmarshal(body, &p); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) || errors.Is(err, io.ErrUnexpectedEOF) {
			return p, malformed(ErrNotJSON, "")
		}
		if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '{' {
			return p, malformed(errUnrecognised, "not a JSON object")
		}
		return p, malformed(errUnrecognised, fieldOf(err))
	}
	return p, nil
}

// decode reads body; wantID, when not nil, is the id the request carried.
func decode(body []byte, wantID json.RawMessage) (*Event, error) {
	p, err := readProbe(body)
	if err != nil {
		return nil, err
	}
	switch {
	case p.JSONRPC != nil || (p.ID != nil && (p.Result != nil || p.Error != nil)):
		return decodeEnvelope(&p, wantID)
	case p.Error != nil:
		return nil, restError(p.Error, 0)
	case p.Code != nil && jsonKind(p.Message) == '"' && p.ID == nil && p.Status == nil:
		// A bare JSON-RPC error object, {"code":-32001,"message":…}, as the JavaScript SDK's
		// REST 0.3 binding sends it with 404 or 400.
		err := rpcError(body)
		var ae *Error
		if errors.As(err, &ae) {
			ae.HTTPStatus = 0
		}
		return nil, err

	case p.Status != nil && p.Type != nil && p.Title != nil:
		return nil, problemError(body, 0)
	}
	return decodeValue(&p, body)
}

func decodeEnvelope(env *probe, wantID json.RawMessage) (*Event, error) {
	if env.JSONRPC == nil || *env.JSONRPC != "2.0" {
		return nil, malformed(errNotJSONRPC, "")
	}
	hasResult := len(env.Result) > 0
	hasError := len(env.Error) > 0 && string(env.Error) != "null"
	switch {
	case hasResult && hasError:
		return nil, malformed(ErrResultAndError, "")
	case !hasResult && !hasError:
		return nil, malformed(errNoResult, "")
	}
	// An error answering an unparsable request carries id null (JSON-RPC 2.0 §5).
	if wantID != nil && !sameID(env.ID, wantID) && !(hasError && (len(env.ID) == 0 || string(env.ID) == "null")) {
		return nil, malformed(errIDMismatch, "")
	}
	if hasError {
		return nil, rpcError(env.Error)
	}
	p, err := readProbe(env.Result)
	if err != nil {
		return nil, malformed(errUnrecognised, "result is not an object")
	}
	ev, err := decodeValue(&p, env.Result)
	if err != nil {
		return nil, err
	}
	ev.Envelope = true
	return ev, nil
}

// sameID compares two JSON-RPC ids as values: "1" and 1 differ, 1 and 1.0 do not.
func sameID(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return fmt.Sprint(x) == fmt.Sprint(y) && fmt.Sprintf("%T", x) == fmt.Sprintf("%T", y)
}

// rpcError reads a JSON-RPC error object (JSON-RPC 2.0 §5.1). Its data may be any value: an
// array of google.rpc detail objects (1.0, and a2a-go everywhere), an object, a string.
func rpcError(raw json.RawMessage) error {
	var e struct {
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return malformed(errBadErrorObject, "not an object")
	}
	code, err := strconv.Atoi(string(e.Code))
	if err != nil {
		return malformed(errBadErrorObject, "code is not an integer")
	}
	return &Error{Code: code, Message: e.Message, HTTPStatus: 200, Data: e.Data, Reason: errorReason(e.Data)}
}

// errorReason finds the reason of a google.rpc.ErrorInfo among details.
func errorReason(details json.RawMessage) string {
	var list []struct {
		Type   string `json:"@type"`
		Reason string `json:"reason"`
	}
	if json.Unmarshal(details, &list) != nil {
		return ""
	}
	for _, d := range list {
		if d.Reason != "" {
			return d.Reason
		}
	}
	return ""
}

// restError reads a google.rpc.Status JSON error ({"error":{"code":404,"status":"NOT_FOUND",
// "message":…,"details":[ErrorInfo]}}, A2A 1.0 §11.6).
func restError(raw json.RawMessage, httpStatus int) error {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		// {"error":"Task not found"}: a bare message. The code comes from the HTTP status
		// once it is known (see Error.withStatus).
		out := &Error{Message: text, HTTPStatus: httpStatus}
		if httpStatus != 0 {
			out.Code = restCode("", httpStatus)
		}
		return out
	}
	var e struct {
		Code    json.RawMessage `json:"code"`
		Status  string          `json:"status"`
		Message string          `json:"message"`
		Details json.RawMessage `json:"details"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return malformed(errBadErrorObject, "not an object")
	}
	status, err := strconv.Atoi(string(e.Code))
	if err != nil && len(e.Code) > 0 {
		return malformed(errBadErrorObject, "code is not an integer")
	}
	if httpStatus == 0 {
		httpStatus = status
	}
	out := &Error{Message: e.Message, HTTPStatus: httpStatus, Data: e.Details, Reason: errorReason(e.Details)}
	out.Code = restCode(out.Reason, status)
	return out
}

// problemError reads an RFC 9457 problem (A2A 1.0 §3.6's version error example).
func problemError(body []byte, httpStatus int) error {
	var p struct {
		Type   string `json:"type"`
		Title  string `json:"title"`
		Status int    `json:"status"`
		Detail string `json:"detail"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return malformed(errBadErrorObject, "problem details malformed")
	}
	if httpStatus == 0 {
		httpStatus = p.Status
	}
	msg := p.Title
	if p.Detail != "" {
		msg = p.Detail
	}
	reason := ""
	if bytes.Contains([]byte(p.Type), []byte("version")) {
		reason = "VERSION_NOT_SUPPORTED"
	}
	return &Error{Code: restCode(reason, p.Status), Message: msg, Reason: reason, HTTPStatus: httpStatus, Data: json.RawMessage(body)}
}

// restCode derives the JSON-RPC code of a REST error: from its reason, else its HTTP status
// (1.0 §5.4's mapping, read backwards where it is one-to-one).
func restCode(reason string, httpStatus int) int {
	if c, ok := reasons[reason]; ok {
		return c
	}
	switch httpStatus {
	case 404:
		return -32001
	case 401:
		return -31401
	case 403:
		return -31403
	case 400:
		return -32602
	default:
		return -32603
	}
}

// decodeValue reads a result: wrapper, kind-tagged object, bare Task or bare Message. raw is
// the object p was read from.
func decodeValue(p *probe, raw []byte) (*Event, error) {
	var kind string
	if p.Kind != nil && json.Unmarshal(p.Kind, &kind) != nil {
		return nil, malformed(errUnrecognised, "kind is not a string")
	}
	set := func(v json.RawMessage) bool { return len(v) > 0 && string(v) != "null" }
	bare := p.ID == nil && p.Status == nil
	switch {
	case kind == "task":
		return taskEvent(raw)
	case kind == "message":
		return messageEvent(raw)
	case kind == "status-update":
		return statusEvent(raw)
	case kind == "artifact-update":
		return artifactEvent(raw)
	case kind != "":
		return nil, malformed(errUnrecognised, fmt.Sprintf("unknown kind %q", kind))
	case bare && set(p.Task):
		return taskEvent(p.Task)
	case bare && set(p.StatusUpdate):
		return statusEvent(p.StatusUpdate)
	case bare && set(p.ArtifactUpdate):
		return artifactEvent(p.ArtifactUpdate)
	case bare && p.MessageID == nil && set(p.Message):
		return messageEvent(p.Message)
	case p.ID != nil && p.Status != nil:
		return taskEvent(raw)
	case p.TaskID != nil && p.Status != nil:
		return statusEvent(raw)
	case p.MessageID != nil:
		return messageEvent(raw)
	}
	return nil, malformed(errUnrecognised, "")
}

type wirePart struct {
	Kind      string          `json:"kind"`
	Text      *string         `json:"text"`
	Data      json.RawMessage `json:"data"`
	URL       string          `json:"url"`
	Raw       []byte          `json:"raw"`
	Filename  string          `json:"filename"`
	MediaType string          `json:"mediaType"`
	Metadata  json.RawMessage `json:"metadata"`
	File      *struct {
		URI           string `json:"uri"`
		Bytes         []byte `json:"bytes"`
		Name          string `json:"name"`
		MimeType      string `json:"mimeType"`
		FileWithURI   string `json:"fileWithUri"`
		FileWithBytes []byte `json:"fileWithBytes"`
	} `json:"file"`
}

type wireMessage struct {
	MessageID string          `json:"messageId"`
	Role      string          `json:"role"`
	Parts     []wirePart      `json:"parts"`
	Content   []wirePart      `json:"content"` // 0.3 REST (proto field "content")
	TaskID    string          `json:"taskId"`
	ContextID string          `json:"contextId"`
	Metadata  json.RawMessage `json:"metadata"`
}

type wireStatus struct {
	State     *string      `json:"state"`
	Message   *wireMessage `json:"message"`
	Timestamp string       `json:"timestamp"`
}

type wireArtifact struct {
	ArtifactID string          `json:"artifactId"`
	Name       string          `json:"name"`
	Parts      []wirePart      `json:"parts"`
	Metadata   json.RawMessage `json:"metadata"`
}

type wireTask struct {
	ID        string          `json:"id"`
	ContextID string          `json:"contextId"`
	Status    *wireStatus     `json:"status"`
	Artifacts []wireArtifact  `json:"artifacts"`
	Metadata  json.RawMessage `json:"metadata"`
}

type wireStatusUpdate struct {
	TaskID    string          `json:"taskId"`
	ContextID string          `json:"contextId"`
	Status    *wireStatus     `json:"status"`
	Final     bool            `json:"final"`
	Metadata  json.RawMessage `json:"metadata"`
}

type wireArtifactUpdate struct {
	TaskID    string       `json:"taskId"`
	ContextID string       `json:"contextId"`
	Artifact  wireArtifact `json:"artifact"`
	Append    bool         `json:"append"`
	LastChunk bool         `json:"lastChunk"`
}

// dialect collects what the spelling of one object says about its version and binding.
type dialect struct{ proto, content bool }

func (d *dialect) state(raw *string) (State, string) {
	if raw == nil {
		return StateUnknown, ""
	}
	if len(*raw) > 11 && (*raw)[:11] == "TASK_STATE_" {
		d.proto = true
	}
	return parseState(*raw), *raw
}

func (d *dialect) message(w *wireMessage) *Message {
	if w == nil {
		return nil
	}
	m := &Message{MessageID: w.MessageID, TaskID: w.TaskID, ContextID: w.ContextID, Metadata: w.Metadata}
	switch w.Role {
	case "ROLE_USER":
		m.Role, d.proto = RoleUser, true
	case "ROLE_AGENT":
		m.Role, d.proto = RoleAgent, true
	case "user", "agent":
		m.Role = Role(w.Role)
	}
	parts := w.Parts
	if parts == nil && w.Content != nil {
		parts, d.content, d.proto = w.Content, true, true
	}
	m.Parts = d.parts(parts, w.Parts == nil && w.Content != nil)
	return m
}

// parts converts wire parts; nested marks 0.3 REST, whose data parts are {"data":{"data":…}}.
// A data part of any binding that holds only a "data" object is unwrapped too: older agents
// (the previous Hector generation) keep the protobuf wrapper in JSON.
func (d *dialect) parts(ws []wirePart, nested bool) []Part {
	out := make([]Part, 0, len(ws))
	for _, w := range ws {
		p := Part{URL: w.URL, Raw: w.Raw, Filename: w.Filename, MediaType: w.MediaType, Metadata: w.Metadata}
		if w.Text != nil {
			p.Text = *w.Text
		}
		if len(w.Data) > 0 && string(w.Data) != "null" {
			p.Data = w.Data
			if inner, ok := wrapped(w.Data); ok || nested {
				if len(inner) > 0 {
					p.Data = inner
				}
			}
		}
		if f := w.File; f != nil {
			p.URL = firstOf(f.URI, f.FileWithURI)
			p.Raw = f.Bytes
			if p.Raw == nil {
				p.Raw = f.FileWithBytes
			}
			p.Filename, p.MediaType = f.Name, f.MimeType
		}
		out = append(out, p)
	}
	return out
}

// wrapped returns the object inside a data part's wrapper, {"data":{…}}, when that is all the
// part holds.
func wrapped(data json.RawMessage) (json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil || len(obj) != 1 {
		return nil, false
	}
	inner, ok := obj["data"]
	if !ok || jsonKind(inner) != '{' {
		return nil, false
	}
	return inner, true
}

// jsonKind is the first non-space byte of raw: '{' for an object, '[' for an array, ….
func jsonKind(raw json.RawMessage) byte {
	for _, b := range raw {
		switch b {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return b
	}
	return 0
}

// nonNull returns raw, or nil for JSON null.
func nonNull(raw json.RawMessage) json.RawMessage {
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	return raw
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func taskEvent(raw json.RawMessage) (*Event, error) {
	var w wireTask
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, malformed(errUnrecognised, "task: "+fieldOf(err))
	}
	if w.ID == "" {
		return nil, malformed(errUnrecognised, "task has no id")
	}
	var d dialect
	t := &Task{ID: w.ID, ContextID: w.ContextID, State: StateUnknown, Metadata: w.Metadata}
	if w.Status != nil {
		t.State, t.RawState = d.state(w.Status.State)
		t.Question = d.message(w.Status.Message)
		t.Timestamp = w.Status.Timestamp
	}
	for _, a := range w.Artifacts {
		t.Artifacts = append(t.Artifacts, Artifact{ArtifactID: a.ArtifactID, Name: a.Name, Parts: d.parts(a.Parts, d.content), Metadata: nonNull(a.Metadata)})
	}
	return &Event{Task: t, ProtoJSON: d.proto, Content: d.content}, nil
}

func messageEvent(raw json.RawMessage) (*Event, error) {
	var w wireMessage
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, malformed(errUnrecognised, "message: "+fieldOf(err))
	}
	var d dialect
	m := d.message(&w)
	return &Event{Message: m, ProtoJSON: d.proto, Content: d.content}, nil
}

func statusEvent(raw json.RawMessage) (*Event, error) {
	var w wireStatusUpdate
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, malformed(errUnrecognised, "status update: "+fieldOf(err))
	}
	if w.TaskID == "" {
		return nil, malformed(errUnrecognised, "status update has no taskId")
	}
	var d dialect
	s := &StatusUpdate{TaskID: w.TaskID, ContextID: w.ContextID, State: StateUnknown, Metadata: w.Metadata, Final: w.Final}
	if w.Status != nil {
		s.State, s.RawState = d.state(w.Status.State)
		s.Message = d.message(w.Status.Message)
	}
	return &Event{Status: s, ProtoJSON: d.proto, Content: d.content}, nil
}

func artifactEvent(raw json.RawMessage) (*Event, error) {
	var w wireArtifactUpdate
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, malformed(errUnrecognised, "artifact update: "+fieldOf(err))
	}
	var d dialect
	a := &ArtifactUpdate{TaskID: w.TaskID, ContextID: w.ContextID, Append: w.Append, LastChunk: w.LastChunk,
		Artifact: Artifact{ArtifactID: w.Artifact.ArtifactID, Name: w.Artifact.Name, Parts: d.parts(w.Artifact.Parts, false), Metadata: nonNull(w.Artifact.Metadata)}}
	return &Event{Artifact: a, ProtoJSON: d.proto, Content: d.content}, nil
}

// fieldOf names the field of a JSON type error, never quoting the value.
func fieldOf(err error) string {
	if te, ok := err.(*json.UnmarshalTypeError); ok {
		return fmt.Sprintf("field %q has the wrong type", te.Field)
	}
	return "wrong shape"
}
