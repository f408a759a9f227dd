package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// op is one operation, spelled per binding by newRequest.
type op int

const (
	opSend op = iota
	opStream
	opGet
	opSubscribe
	opCancel
	// opGetByName is opGet with params {"name":"tasks/<id>"}, the resource name of the 0.3
	// proto's GetTaskRequest, which older agents want on JSON-RPC as well.
	opGetByName
	// opCancelByName is opCancel with params {"name":"tasks/<id>"}, for the same agents.
	opCancelByName
)

// rpcMethods are the JSON-RPC method names per version (0.3 §7, 1.0 §9.4).
var rpcMethods = map[op][2]string{
	opSend:         {"message/send", "SendMessage"},
	opStream:       {"message/stream", "SendStreamingMessage"},
	opGet:          {"tasks/get", "GetTask"},
	opSubscribe:    {"tasks/resubscribe", "SubscribeToTask"},
	opCancel:       {"tasks/cancel", "CancelTask"},
	opGetByName:    {"tasks/get", "GetTask"},
	opCancelByName: {"tasks/cancel", "CancelTask"},
}

// versionHeader is the 1.0 version negotiation header (1.0 §3.6); a request without it is
// taken as 0.3.
const versionHeader = "A2A-Version"

// PushConfig asks the agent to POST the task's updates to the agent's webhook (0.3
// PushNotificationConfig, 1.0 TaskPushNotificationConfig).
type PushConfig struct {
	// URL is the webhook, a [PushReceiver].
	URL string
	// Token is echoed by the agent in X-A2A-Notification-Token or A2A-Notification-Token.
	Token string
	// Scheme and Credentials are what the agent sends as "Authorization: Scheme Credentials"
	// (Bearer or Basic); empty Scheme sends none.
	Scheme, Credentials string
}

// rpcRequest is a JSON-RPC 2.0 request (JSON-RPC 2.0 §4).
type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

type sendParams struct {
	Message       any            `json:"message"`
	Configuration map[string]any `json:"configuration,omitempty"`
}

// newRequest builds the HTTP request of o at ep. id is the JSON-RPC id (unused for REST);
// the returned raw id is what the response must echo, nil for REST.
func newRequest(ctx context.Context, ep Endpoint, o op, id int64, taskID string, m *Message, so *SendOptions) (*http.Request, json.RawMessage, error) {
	var (
		method = http.MethodPost
		target = ep.URL
		body   any
		wantID json.RawMessage
	)
	switch {
	case !ep.Binding.valid() || ep.URL == "":
		return nil, nil, ErrNoEndpoint
	case ep.Binding.rest():
		prefix := ""
		if ep.Binding == REST03 {
			prefix = "/v1"
		}
		switch o {
		case opSend, opStream:
			target += prefix + map[op]string{opSend: "/message:send", opStream: "/message:stream"}[o]
			body = sendParams{Message: encodeMessage(ep.Binding, m), Configuration: configuration(ep.Binding, so)}
		case opGet, opGetByName:
			method, target = http.MethodGet, target+prefix+"/tasks/"+url.PathEscape(taskID)
		case opCancel, opCancelByName:
			target, body = target+prefix+"/tasks/"+url.PathEscape(taskID)+":cancel", map[string]string{}
		case opSubscribe:
			method, target = http.MethodGet, target+prefix+"/tasks/"+url.PathEscape(taskID)+":subscribe"
		}
	default:
		v := 0
		if ep.Binding == JSONRPC10 {
			v = 1
		}
		r := rpcRequest{JSONRPC: "2.0", ID: id, Method: rpcMethods[o][v]}
		switch o {
		case opSend, opStream:
			r.Params = sendParams{Message: encodeMessage(ep.Binding, m), Configuration: configuration(ep.Binding, so)}
		case opGetByName, opCancelByName:
			r.Params = map[string]string{"name": "tasks/" + taskID}
		default:
			r.Params = map[string]string{"id": taskID}
		}
		body, wantID = r, json.RawMessage(strconv.FormatInt(id, 10))
	}
	var rd *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, nil, err
		}
		rd = bytes.NewReader(b)
	}
	var req *http.Request
	var err error
	if rd != nil {
		req, err = http.NewRequestWithContext(ctx, method, target, rd)
	} else {
		req, err = http.NewRequestWithContext(ctx, method, target, nil)
	}
	if err != nil {
		return nil, nil, err
	}
	contentType := "application/json"
	if ep.Binding == REST10 {
		contentType = "application/a2a+json" // 1.0 §11.1
	}
	if rd != nil {
		req.Header.Set("Content-Type", contentType)
	}
	if o == opStream || o == opSubscribe {
		req.Header.Set("Accept", "text/event-stream")
	} else {
		req.Header.Set("Accept", contentType+", application/json;q=0.9")
	}
	if ep.Binding.v10() {
		req.Header.Set(versionHeader, "1.0")
	}
	return req, wantID, nil
}

// The message and part shapes of each binding (0.3 types.ts, 0.3 proto, 1.0 proto). Struct
// field order fixes the JSON member order.
type (
	message03 struct {
		Kind      string          `json:"kind"`
		MessageID string          `json:"messageId"`
		Role      string          `json:"role"`
		Parts     []any           `json:"parts"`
		TaskID    string          `json:"taskId,omitempty"`
		ContextID string          `json:"contextId,omitempty"`
		Metadata  json.RawMessage `json:"metadata,omitempty"`
	}
	messageProto struct {
		MessageID string          `json:"messageId"`
		ContextID string          `json:"contextId,omitempty"`
		TaskID    string          `json:"taskId,omitempty"`
		Role      string          `json:"role"`
		Parts     []any           `json:"parts,omitempty"`
		Content   []any           `json:"content,omitempty"`
		Metadata  json.RawMessage `json:"metadata,omitempty"`
	}
	text03 struct {
		Kind     string          `json:"kind"`
		Text     string          `json:"text"`
		Metadata json.RawMessage `json:"metadata,omitempty"`
	}
	data03 struct {
		Kind     string          `json:"kind"`
		Data     json.RawMessage `json:"data"`
		Metadata json.RawMessage `json:"metadata,omitempty"`
	}
	file03 struct {
		Kind string `json:"kind"`
		File struct {
			URI      string `json:"uri,omitempty"`
			Bytes    []byte `json:"bytes,omitempty"`
			Name     string `json:"name,omitempty"`
			MimeType string `json:"mimeType,omitempty"`
		} `json:"file"`
		Metadata json.RawMessage `json:"metadata,omitempty"`
	}
	textProto struct {
		Text     string          `json:"text"`
		Metadata json.RawMessage `json:"metadata,omitempty"`
	}
	dataProto struct {
		Data     json.RawMessage `json:"data"`
		Metadata json.RawMessage `json:"metadata,omitempty"`
	}
	fileProto struct {
		URL       string          `json:"url,omitempty"`
		Raw       []byte          `json:"raw,omitempty"`
		Filename  string          `json:"filename,omitempty"`
		MediaType string          `json:"mediaType,omitempty"`
		Metadata  json.RawMessage `json:"metadata,omitempty"`
	}
	dataREST03 struct {
		Data struct {
			Data json.RawMessage `json:"data"`
		} `json:"data"`
		Metadata json.RawMessage `json:"metadata,omitempty"`
	}
	fileREST03 struct {
		File struct {
			FileWithURI   string `json:"fileWithUri,omitempty"`
			FileWithBytes []byte `json:"fileWithBytes,omitempty"`
			MimeType      string `json:"mimeType,omitempty"`
		} `json:"file"`
		Metadata json.RawMessage `json:"metadata,omitempty"`
	}
)

// encodeMessage spells a user message for b.
func encodeMessage(b Binding, m *Message) any { return encodeMessageAs(b, m, RoleUser) }

// encodeMessageAs spells m for b as written by role.
func encodeMessageAs(b Binding, m *Message, role Role) any {
	parts := encodeParts(b, m.Parts)
	proto := "ROLE_USER"
	if role == RoleAgent {
		proto = "ROLE_AGENT"
	}
	switch b {
	case JSONRPC03:
		return message03{Kind: "message", MessageID: m.MessageID, Role: string(role), Parts: parts, TaskID: m.TaskID, ContextID: m.ContextID, Metadata: m.Metadata}
	case REST03:
		return messageProto{MessageID: m.MessageID, ContextID: m.ContextID, TaskID: m.TaskID, Role: proto, Content: parts, Metadata: m.Metadata}
	default:
		return messageProto{MessageID: m.MessageID, ContextID: m.ContextID, TaskID: m.TaskID, Role: proto, Parts: parts, Metadata: m.Metadata}
	}
}

func encodeParts(b Binding, ps []Part) []any {
	parts := make([]any, 0, len(ps))
	for _, p := range ps {
		parts = append(parts, encodePart(b, p))
	}
	return parts
}

// encodeTask spells t for b, as an agent answers with it.
func encodeTask(b Binding, t *Task) map[string]any {
	state := string(t.State)
	if b != JSONRPC03 {
		state = "TASK_STATE_" + strings.ToUpper(strings.ReplaceAll(state, "-", "_"))
		if t.State == StateUnknown {
			state = "TASK_STATE_UNSPECIFIED"
		}
	}
	status := map[string]any{"state": state}
	if t.Timestamp != "" {
		status["timestamp"] = t.Timestamp
	}
	if t.Question != nil {
		q := *t.Question
		if q.TaskID == "" {
			q.TaskID = t.ID
		}
		status["message"] = encodeMessageAs(b, &q, RoleAgent)
	}
	out := map[string]any{"id": t.ID, "status": status}
	if t.ContextID != "" {
		out["contextId"] = t.ContextID
	}
	if b == JSONRPC03 {
		out["kind"] = "task"
	}
	if len(t.Artifacts) > 0 {
		arts := make([]any, 0, len(t.Artifacts))
		for _, a := range t.Artifacts {
			art := map[string]any{"artifactId": a.ArtifactID, "parts": encodeParts(b, a.Parts)}
			if a.Name != "" {
				art["name"] = a.Name
			}
			if len(a.Metadata) > 0 {
				art["metadata"] = a.Metadata
			}
			arts = append(arts, art)
		}
		out["artifacts"] = arts
	}
	if len(t.Metadata) > 0 {
		out["metadata"] = t.Metadata
	}
	return out
}

// maxReplyRequest bounds the request body Reply reads for its JSON-RPC id.
const maxReplyRequest = 1 << 20

// Reply spells t as the agent's answer to req, a send (message/send, SendMessage, POST
// message:send) made in ep's binding: for JSON-RPC a response echoing req's id whose result
// is the task (0.3: a kind-tagged task; 1.0: {"task": …}), for REST {"task": …}. It lets a
// client that reads A2A answers itself (an SDK's client behind hitl's Client.Transport) read
// the task a run ended with, in the binding it spoke. A JSON-RPC request whose body cannot
// be read again (no GetBody) or holds no id is an error.
func Reply(req *http.Request, ep Endpoint, t *Task) ([]byte, error) {
	if t == nil || !ep.Binding.valid() {
		return nil, ErrNoEndpoint
	}
	task := encodeTask(ep.Binding, t)
	if ep.Binding.rest() {
		return json.Marshal(map[string]any{"task": task})
	}
	if req == nil || req.GetBody == nil {
		return nil, errors.New("a2a: Reply: the request's body cannot be read again for its id")
	}
	rc, err := req.GetBody()
	if err != nil {
		return nil, fmt.Errorf("a2a: Reply: %w", err)
	}
	defer rc.Close()
	body, err := io.ReadAll(io.LimitReader(rc, maxReplyRequest))
	if err != nil {
		return nil, fmt.Errorf("a2a: Reply: %w", err)
	}
	var in struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &in) != nil || len(in.ID) == 0 || string(in.ID) == "null" {
		return nil, errors.New("a2a: Reply: the request is not a JSON-RPC call with an id")
	}
	var result any = task
	if ep.Binding == JSONRPC10 {
		result = map[string]any{"task": task}
	}
	return json.Marshal(map[string]any{"jsonrpc": "2.0", "id": in.ID, "result": result})
}

// encodePart spells a part for b, with its metadata (every binding's Part has one; an ADK
// agent reads a function response's type from it).
func encodePart(b Binding, p Part) any {
	meta := p.Metadata
	switch {
	case len(p.Data) > 0 && b == JSONRPC03:
		return data03{Kind: "data", Data: p.Data, Metadata: meta}
	case len(p.Data) > 0 && b == REST03:
		d := dataREST03{Metadata: meta}
		d.Data.Data = p.Data
		return d
	case len(p.Data) > 0:
		return dataProto{Data: p.Data, Metadata: meta}
	case (p.URL != "" || p.Raw != nil) && b == JSONRPC03:
		f := file03{Kind: "file", Metadata: meta}
		f.File.URI, f.File.Bytes, f.File.Name, f.File.MimeType = p.URL, p.Raw, p.Filename, p.MediaType
		return f
	case (p.URL != "" || p.Raw != nil) && b == REST03:
		f := fileREST03{Metadata: meta}
		f.File.FileWithURI, f.File.FileWithBytes, f.File.MimeType = p.URL, p.Raw, p.MediaType
		return f
	case p.URL != "" || p.Raw != nil:
		return fileProto{URL: p.URL, Raw: p.Raw, Filename: p.Filename, MediaType: p.MediaType, Metadata: meta}
	case b == JSONRPC03:
		return text03{Kind: "text", Text: p.Text, Metadata: meta}
	default:
		return textProto{Text: p.Text, Metadata: meta}
	}
}

// configuration spells a send's configuration for b: the push configuration (0.3
// pushNotificationConfig or, in REST, pushNotification; 1.0 taskPushNotificationConfig) and
// whether the agent answers at once. nil when there is nothing to say.
func configuration(b Binding, so *SendOptions) map[string]any {
	if so == nil || (so.Push == nil && !so.NonBlocking) {
		return nil
	}
	out := map[string]any{}
	if p := so.Push; p != nil {
		cfg := map[string]any{"url": p.URL}
		if p.Token != "" {
			cfg["token"] = p.Token
		}
		if p.Scheme != "" {
			if b.v10() {
				cfg["authentication"] = map[string]any{"scheme": p.Scheme, "credentials": p.Credentials}
			} else {
				cfg["authentication"] = map[string]any{"schemes": []string{p.Scheme}, "credentials": p.Credentials}
			}
		}
		switch b {
		case JSONRPC10, REST10:
			out["taskPushNotificationConfig"] = cfg
		case REST03:
			out["pushNotification"] = cfg
		default:
			out["pushNotificationConfig"] = cfg
		}
	}
	if b.v10() {
		if so.NonBlocking {
			out["returnImmediately"] = true // 1.0 §9.4: blocking is the default
		}
	} else {
		// 0.3 spells blocking out: a proto3 bool that is absent is false, and peers differ
		// in what they assume.
		out["blocking"] = !so.NonBlocking
	}
	return out
}
