package hxp

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hitlkit/hitlkit/internal/pattern"
)

// Action is a kind of human execution (HXP v0.1 §2).
type Action string

// The actions of HXP v0.1 §2.
const (
	// ActionDecide: the human picks one of 2–6 options (§2.1).
	ActionDecide Action = "DECIDE"
	// ActionApprove: the human approves or rejects an item (§2.2).
	ActionApprove Action = "APPROVE"
	// ActionProvide: the human supplies a value (§2.3).
	ActionProvide Action = "PROVIDE"
)

// Role selects which human handles a request (§3.1, §6.1).
type Role string

// Roles (§6.1).
const (
	RoleOwner    Role = "owner"
	RoleDelegate Role = "delegate"
	RolePool     Role = "pool"
)

// Priority is how urgent a request is (§3.2).
type Priority string

// Priorities (§3.2).
const (
	PriorityLow      Priority = "low"
	PriorityNormal   Priority = "normal"
	PriorityHigh     Priority = "high"
	PriorityCritical Priority = "critical"
)

// Fallback is what happens when a request times out (§3.3).
type Fallback string

// Fallbacks (§3.3).
const (
	// FallbackPause keeps the request open past its timeout.
	FallbackPause Fallback = "pause"
	// FallbackFail ends it with a failure receipt.
	FallbackFail Fallback = "fail"
	// FallbackDefault ends a DECIDE with its default_option.
	FallbackDefault Fallback = "default"
)

// InputType is the kind of value a PROVIDE asks for (§2.3).
type InputType string

// Input types (§2.3).
const (
	InputText      InputType = "text"
	InputNumber    InputType = "number"
	InputURL       InputType = "url"
	InputEmail     InputType = "email"
	InputFile      InputType = "file"
	InputSelection InputType = "selection"
)

// Limits of §2.
const (
	// minOptions and maxOptions bound a DECIDE's options (§2.1).
	minOptions, maxOptions = 2, 6
	// maxContext is the longest context, in characters (§2, §7).
	maxContext = 500
)

// Decide is the payload of a DECIDE (§2.1).
type Decide struct {
	Question      string   `json:"question"`
	Options       []string `json:"options"`
	Context       string   `json:"context,omitempty"`
	DefaultOption string   `json:"default_option,omitempty"`
}

// Approve is the payload of an APPROVE (§2.2). Details is structured data about the item.
type Approve struct {
	Item                 string          `json:"item"`
	Details              json.RawMessage `json:"details"`
	Context              string          `json:"context,omitempty"`
	RejectRequiresReason bool            `json:"reject_requires_reason,omitempty"`
}

// Provide is the payload of a PROVIDE (§2.3).
type Provide struct {
	Prompt      string      `json:"prompt"`
	InputType   InputType   `json:"input_type"`
	Context     string      `json:"context,omitempty"`
	Validation  *Validation `json:"validation,omitempty"`
	Placeholder string      `json:"placeholder,omitempty"`
}

// Validation constrains a PROVIDE's value (§2.3): a regular expression for text, bounds for
// numbers (or lengths of text), or the allowed values of a selection. Pattern is Go's RE2
// syntax, at most 1,000 bytes and 1,000 compiled instructions (a repeat such as [a-z]{400}
// counts about three per repetition, 1,200), so that checking a receipt's value against it costs bounded
// work; Validate refuses a larger one.
type Validation struct {
	Pattern       string   `json:"pattern,omitempty"`
	Min           *float64 `json:"min,omitempty"`
	Max           *float64 `json:"max,omitempty"`
	AllowedValues []string `json:"allowed_values,omitempty"`
}

// Metadata describes the requesting agent's work (§3.1).
type Metadata struct {
	AgentFramework string `json:"agent_framework,omitempty"`
	AgentTask      string `json:"agent_task,omitempty"`
}

// Request is an execution request (§3.1) as the agent writes it. Set exactly one of Decide,
// Approve and Provide; the action follows from it. Zero Role, Priority and Fallback are left
// for the server to default (the reference server uses owner, normal and pause).
type Request struct {
	Role     Role
	Priority Priority
	// TimeoutSeconds: 0 means no timeout.
	TimeoutSeconds int
	Fallback       Fallback
	AgentID        string
	ProjectID      string
	Metadata       *Metadata

	Decide  *Decide
	Approve *Approve
	Provide *Provide
}

// Action returns the request's action, from the payload set; "" when none or several are.
func (r *Request) Action() Action {
	var a Action
	n := 0
	if r.Decide != nil {
		a, n = ActionDecide, n+1
	}
	if r.Approve != nil {
		a, n = ActionApprove, n+1
	}
	if r.Provide != nil {
		a, n = ActionProvide, n+1
	}
	if n != 1 {
		return ""
	}
	return a
}

// wireRequest is the body of POST /hxp/v1/requests (§5.1).
type wireRequest struct {
	Action         Action    `json:"action"`
	Role           Role      `json:"role,omitempty"`
	Priority       Priority  `json:"priority,omitempty"`
	TimeoutSeconds int       `json:"timeout_seconds"`
	Fallback       Fallback  `json:"fallback,omitempty"`
	AgentID        string    `json:"agent_id,omitempty"`
	ProjectID      string    `json:"project_id,omitempty"`
	Metadata       *Metadata `json:"metadata,omitempty"`
	Payload        any       `json:"payload"`
}

// MarshalJSON writes the request as §5.1's create body.
func (r Request) MarshalJSON() ([]byte, error) {
	w := wireRequest{Action: r.Action(), Role: r.Role, Priority: r.Priority, TimeoutSeconds: r.TimeoutSeconds,
		Fallback: r.Fallback, AgentID: r.AgentID, ProjectID: r.ProjectID, Metadata: r.Metadata}
	switch w.Action {
	case ActionDecide:
		w.Payload = r.Decide
	case ActionApprove:
		w.Payload = r.Approve
	case ActionProvide:
		w.Payload = r.Provide
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads §5.1's create body (or a server's echo of it). An unknown action
// leaves every payload nil.
func (r *Request) UnmarshalJSON(b []byte) error {
	var w struct {
		wireRequest
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = Request{Role: w.Role, Priority: w.Priority, TimeoutSeconds: w.TimeoutSeconds, Fallback: w.Fallback,
		AgentID: w.AgentID, ProjectID: w.ProjectID, Metadata: w.Metadata}
	var err error
	switch w.Action {
	case ActionDecide:
		r.Decide = &Decide{}
		err = json.Unmarshal(w.Payload, r.Decide)
	case ActionApprove:
		r.Approve = &Approve{}
		err = json.Unmarshal(w.Payload, r.Approve)
	case ActionProvide:
		r.Provide = &Provide{}
		err = json.Unmarshal(w.Payload, r.Provide)
	}
	return err
}

// FieldError is one problem with one field, named by its JSON path ("payload.options").
type FieldError struct {
	Field   string
	Problem string
}

// ErrInvalidRequest: a request failed validation before anything was sent; the concrete
// error is a [*RequestError].
var ErrInvalidRequest = errors.New("hxp: invalid request")

// RequestError lists every problem of a request that was not sent.
type RequestError struct {
	Problems []FieldError
}

func (e *RequestError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Field + ": " + p.Problem
	}
	return "hxp: invalid request: " + strings.Join(parts, "; ")
}

// Is matches ErrInvalidRequest.
func (e *RequestError) Is(target error) bool { return target == ErrInvalidRequest }

// Validate checks r against §2–§3 and returns a [*RequestError] naming every problem, or nil.
func (r *Request) Validate() error {
	var ps []FieldError
	bad := func(field, problem string) { ps = append(ps, FieldError{field, problem}) }
	oneOf := func(field, v string, allowed ...string) {
		if v != "" && !slices.Contains(allowed, v) {
			bad(field, "must be one of "+strings.Join(allowed, ", "))
		}
	}
	oneOf("role", string(r.Role), "owner", "delegate", "pool")
	oneOf("priority", string(r.Priority), "low", "normal", "high", "critical")
	oneOf("fallback", string(r.Fallback), "pause", "fail", "default")
	if r.TimeoutSeconds < 0 {
		bad("timeout_seconds", "must not be negative (0 means no timeout)")
	}
	if a := r.Action(); r.Fallback == FallbackDefault && a != "" && a != ActionDecide {
		bad("fallback", "default applies to DECIDE only")
	}
	context := func(s string) {
		if utf8.RuneCountInString(s) > maxContext {
			bad("payload.context", fmt.Sprintf("longer than %d characters", maxContext))
		}
	}
	switch r.Action() {
	case "":
		bad("payload", "set exactly one of Decide, Approve and Provide")
	case ActionDecide:
		d := r.Decide
		if strings.TrimSpace(d.Question) == "" {
			bad("payload.question", "required")
		}
		if n := len(d.Options); n < minOptions || n > maxOptions {
			bad("payload.options", fmt.Sprintf("needs %d to %d options, has %d", minOptions, maxOptions, n))
		}
		seen := map[string]bool{}
		for i, o := range d.Options {
			switch {
			case strings.TrimSpace(o) == "":
				bad(fmt.Sprintf("payload.options[%d]", i), "empty")
			case seen[o]:
				bad(fmt.Sprintf("payload.options[%d]", i), "duplicate")
			}
			seen[o] = true
		}
		if d.DefaultOption != "" && !slices.Contains(d.Options, d.DefaultOption) {
			bad("payload.default_option", "not one of the options")
		}
		if r.Fallback == FallbackDefault && d.DefaultOption == "" {
			bad("payload.default_option", "required with fallback default")
		}
		context(d.Context)
	case ActionApprove:
		a := r.Approve
		if strings.TrimSpace(a.Item) == "" {
			bad("payload.item", "required")
		}
		if !isObject(a.Details) {
			bad("payload.details", "required, a JSON object")
		}
		context(a.Context)
	case ActionProvide:
		p := r.Provide
		if strings.TrimSpace(p.Prompt) == "" {
			bad("payload.prompt", "required")
		}
		oneOf("payload.input_type", string(p.InputType), "text", "number", "url", "email", "file", "selection")
		if p.InputType == "" {
			bad("payload.input_type", "required")
		}
		context(p.Context)
		if v := p.Validation; v != nil {
			if v.Pattern != "" {
				switch _, err := pattern.Compile(v.Pattern); {
				case errors.Is(err, pattern.ErrTooLarge):
					bad("payload.validation.pattern", fmt.Sprintf("over %d bytes or %d instructions compiled (a repeat such as [a-z]{400} counts about 3 per repetition)", pattern.MaxLen, pattern.MaxInsts))
				case err != nil:
					bad("payload.validation.pattern", "not a valid regular expression")
				}
			}
			if v.Min != nil && v.Max != nil && *v.Min > *v.Max {
				bad("payload.validation", "min above max")
			}
			if p.InputType == InputSelection && len(v.AllowedValues) == 0 {
				bad("payload.validation.allowed_values", "required for a selection")
			}
		} else if p.InputType == InputSelection {
			bad("payload.validation.allowed_values", "required for a selection")
		}
	}
	if len(ps) > 0 {
		return &RequestError{Problems: ps}
	}
	return nil
}

func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// Created is the server's answer to a create (§5.1): the request's id, its URLs, and the
// request as sent. It marshals to JSON, so another process can wait on it.
type Created struct {
	RequestID string    `json:"request_id"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at,omitzero"`
	ExpiresAt time.Time `json:"expires_at,omitzero"`
	// PollURL and WSURL are absolute (a relative poll_url is resolved against the server).
	PollURL string `json:"poll_url"`
	WSURL   string `json:"ws_url,omitempty"`
	// Request is what was asked, for checking the receipt.
	Request *Request `json:"request,omitempty"`
}
