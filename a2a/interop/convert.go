package interop

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"

	hk "github.com/hitlkit/hitlkit/a2a"
)

// ErrNoTask: PauseOfJSON was given a body that holds no task (a message, an event of
// another kind).
var ErrNoTask = errors.New("interop: the body holds no task")

// PauseOf returns the pause an a2a-go task is in, reached at ep (the endpoint and binding
// the task came from: it is where [hk.Client.Resume] and [hk.Client.Run] send the answer),
// or nil when the task is not paused for a human. It reads the task as every a2a-go peer
// spells it, by way of its JSON: a nil task is nil.
func PauseOf(ep hk.Endpoint, t *a2a.Task) (*hk.Pause, error) {
	if t == nil {
		return nil, nil
	}
	body, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("interop: marshal the task: %w", err)
	}
	return PauseOfJSON(ep, body)
}

// PauseOfJSON returns the pause the task in body is in: a task as a2a-go marshals it, or any
// body [hk.Decode] reads (a JSON-RPC response, a REST {"task"}). Nil when the task is not
// paused; ErrNoTask when body holds none; the decoding error (an *hk.Error, an
// *hk.MalformedError) otherwise. It never panics.
func PauseOfJSON(ep hk.Endpoint, body []byte) (*hk.Pause, error) {
	ev, err := hk.Decode(body)
	if err != nil {
		return nil, err
	}
	if ev.Task == nil {
		return nil, ErrNoTask
	}
	return hk.NewPause(ep, ev.Task), nil
}

// Message returns answer a to pause p as an a2a-go message, ready for a2aclient's
// SendMessage: role user, a new message id, p's task and context ids (the context alone for
// a graph interrupt, whose task has completed), a's parts with their metadata, and a's
// metadata. Refused when p is not waiting for input (hk.ErrNotPaused) or a has no parts
// (hk.ErrNoAnswer).
func Message(p *hk.Pause, a hk.Answer) (*a2a.Message, error) {
	if p == nil || (p.Class != hk.ClassInputRequired && p.Class != hk.ClassAuthRequired) {
		return nil, hk.ErrNotPaused
	}
	if len(a.Parts) == 0 {
		return nil, hk.ErrNoAnswer
	}
	type part struct {
		Text      *string         `json:"text,omitempty"`
		Data      json.RawMessage `json:"data,omitempty"`
		URL       string          `json:"url,omitempty"`
		Raw       []byte          `json:"raw,omitempty"`
		Filename  string          `json:"filename,omitempty"`
		MediaType string          `json:"mediaType,omitempty"`
		Metadata  json.RawMessage `json:"metadata,omitempty"`
	}
	parts := make([]part, 0, len(a.Parts))
	for _, ap := range a.Parts {
		out := part{Filename: ap.Filename, MediaType: ap.MediaType, Metadata: ap.Metadata}
		switch {
		case len(ap.Data) > 0:
			out.Data = ap.Data
		case ap.URL != "":
			out.URL = ap.URL
		case ap.Raw != nil:
			out.Raw = ap.Raw
		default:
			text := ap.Text
			out.Text = &text
		}
		parts = append(parts, out)
	}
	m := struct {
		MessageID string          `json:"messageId"`
		ContextID string          `json:"contextId,omitempty"`
		TaskID    string          `json:"taskId,omitempty"`
		Role      string          `json:"role"`
		Parts     []part          `json:"parts"`
		Metadata  json.RawMessage `json:"metadata,omitempty"`
	}{MessageID: a2a.NewMessageID(), ContextID: p.ContextID, TaskID: p.TaskID, Role: string(a2a.MessageRoleUser), Parts: parts, Metadata: a.Metadata}
	if p.Checkpoint != nil && p.ContextID != "" {
		m.TaskID = ""
	}
	body, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("interop: marshal the answer: %w", err)
	}
	var out a2a.Message
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("interop: the answer as an a2a-go message: %w", err)
	}
	return &out, nil
}
