package hitl

import (
	"cmp"
	"encoding/json"
	"errors"
	"time"

	"github.com/hitlkit/hitlkit/internal/decision"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/transport"
)

// The case states of HITL Protocol §8. pending, opened and in_progress are waiting states;
// completed, expired and cancelled are terminal and final.
const (
	statePending    = "pending"
	stateOpened     = "opened"
	stateInProgress = "in_progress"
	stateCompleted  = "completed"
	stateExpired    = "expired"
	stateCancelled  = "cancelled"
)

// Progress is how far the human has got through a multi-step form (§8, in_progress).
type Progress struct {
	CurrentStep     int `json:"current_step,omitempty"`
	TotalSteps      int `json:"total_steps,omitempty"`
	CompletedFields int `json:"completed_fields,omitempty"`
	TotalFields     int `json:"total_fields,omitempty"`
}

// Update is a non-terminal state of a case, reported to [WaitOptions.OnUpdate].
type Update struct {
	CaseID string
	// State is pending, opened, in_progress, or a state the spec does not list.
	State string
	// Progress is set for in_progress when the service reports it.
	Progress *Progress
	// OpenedAt and ReminderSentAt are the service's timestamps, zero when absent.
	OpenedAt       time.Time
	ReminderSentAt time.Time
	// Reminder is set when the service just sent the human a reminder (the review.reminder
	// event, §8.5), with its Message; State is then the last state known.
	Reminder bool
	Message  string
}

// pollResponse is a poll body (§8, poll-response.schema.json) as it arrives.
type pollResponse struct {
	Status            string          `json:"status"`
	CaseID            string          `json:"case_id"`
	CreatedAt         string          `json:"created_at"`
	OpenedAt          string          `json:"opened_at"`
	CompletedAt       string          `json:"completed_at"`
	ExpiredAt         string          `json:"expired_at"`
	CancelledAt       string          `json:"cancelled_at"`
	ReminderSentAt    string          `json:"reminder_sent_at"`
	DefaultAction     string          `json:"default_action"`
	Reason            string          `json:"reason"`
	NextCaseID        string          `json:"next_case_id"`
	Progress          *Progress       `json:"progress"`
	RespondedBy       json.RawMessage `json:"responded_by"`
	SubmissionContext json.RawMessage `json:"submission_context"`
	Result            *struct {
		Action    string          `json:"action"`
		Data      json.RawMessage `json:"data"`
		Signature json.RawMessage `json:"signature"`
	} `json:"result"`
}

// decodePoll interprets one poll body for case c. It returns the Result for a terminal state,
// or the Update for a waiting one. The state machine is this one switch (§8).
func decodePoll(c *Case, body []byte) (*transport.Result, *Update, error) {
	var p pollResponse
	if err := json.Unmarshal(body, &p); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, nil, &InvalidError{Object: "poll response", Problems: []FieldError{fieldErrorFromJSON(err)}}
		}
		// Truncated or garbled: a proxy or a dropped connection may have cut it. Poll again.
		return nil, nil, httpx.Temporary(&InvalidError{Object: "poll response", Problems: []FieldError{{Field: "body", Problem: "not valid JSON"}}})
	}
	if p.CaseID != "" && p.CaseID != c.CaseID {
		return nil, nil, &InvalidError{Object: "poll response", Problems: []FieldError{{Field: "case_id", Problem: "does not match the case polled"}}}
	}
	return c.outcome(&p)
}

// outcomeOf reads the complete outcome a terminal event or callback of case c carries in
// body, or nil when it does not carry one ([outcomeIn]).
func outcomeOf(c *Case, name string, body []byte) *transport.Result {
	var p pollResponse
	if json.Unmarshal(body, &p) != nil {
		return nil
	}
	return outcomeIn(c, name, &p)
}

// outcomeIn is the complete outcome in p, the body of a terminal event or callback named
// name, or nil: its case_id must be c's (present, not just absent), its status (or its name:
// review.completed, review.expired, review.cancelled) terminal, and a completion must hold
// the result with its action. The body has the poll response's fields.
func outcomeIn(c *Case, name string, p *pollResponse) *transport.Result {
	if p.CaseID != c.CaseID {
		return nil
	}
	var byName string
	switch name {
	case eventCompleted:
		byName = stateCompleted
	case eventExpired:
		byName = stateExpired
	case eventCancelled:
		byName = stateCancelled
	}
	switch {
	case byName == "":
		return nil
	case p.Status == "":
		p.Status = byName
	case p.Status != byName:
		return nil
	}
	r, _, err := c.outcome(p)
	if err != nil {
		return nil
	}
	return r
}

// outcome is the state machine of §8 over one poll response (or an event or callback in its
// shape): the Result for a terminal state, the Update for a waiting one.
func (c *Case) outcome(p *pollResponse) (*transport.Result, *Update, error) {
	r := &transport.Result{CaseID: c.CaseID, CreatedAt: at(p.CreatedAt), OpenedAt: at(p.OpenedAt)}
	switch p.Status {
	case statePending, stateOpened, stateInProgress:
		return nil, &Update{CaseID: c.CaseID, State: p.Status, Progress: p.Progress,
			OpenedAt: r.OpenedAt, ReminderSentAt: at(p.ReminderSentAt)}, nil
	case stateCompleted:
		if p.Result == nil || p.Result.Action == "" {
			return nil, nil, &InvalidError{Object: "poll response", Problems: []FieldError{{Field: "result", Problem: "missing on a completed case"}}}
		}
		r.Status = transport.StatusCompleted
		r.Action = p.Result.Action
		r.Decision = decision.Of(r.Action)
		r.Data = nonNull(p.Result.Data)
		r.UnverifiedSignature = nonNull(p.Result.Signature)
		r.RespondedBy = responder(p.RespondedBy)
		r.SubmissionContext = nonNull(p.SubmissionContext)
		r.NextCaseID = p.NextCaseID
		r.EndedAt = at(p.CompletedAt)
		if r.Decision == transport.DecisionReject {
			r.Reason = rejectReason(r.Data)
		}
	case stateExpired:
		r.Status = transport.StatusExpired
		r.DefaultAction = p.DefaultAction
		if r.DefaultAction == "" {
			r.DefaultAction = c.DefaultAction
		}
		if r.DefaultAction == "" {
			r.DefaultAction = DefaultSkip
		}
		r.DefaultApplied = true
		r.EndedAt = at(p.ExpiredAt)
	case stateCancelled:
		r.Status = transport.StatusCancelled
		r.Reason = p.Reason
		r.EndedAt = at(p.CancelledAt)
	case "":
		return nil, nil, httpx.Temporary(&InvalidError{Object: "poll response", Problems: []FieldError{{Field: "status", Problem: "missing"}}})
	default:
		// §8 lists the states; a newer service may add more. Keep polling (case 22).
		return nil, &Update{CaseID: c.CaseID, State: p.Status}, nil
	}
	return r, nil, nil
}

// rejectReason is the reason a human gave with a no, as every protocol reports it in
// Result.Reason: the data's reason (an escalation's abort), feedback (an approval's reject)
// or note (a confirmation's cancel), the first that is a non-empty string; the data stays
// in Data.
func rejectReason(data json.RawMessage) string {
	var d struct {
		Reason, Feedback, Note json.RawMessage
	}
	if len(data) == 0 || json.Unmarshal(data, &d) != nil {
		return ""
	}
	for _, raw := range []json.RawMessage{d.Reason, d.Feedback, d.Note} {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

func at(s string) time.Time {
	t, _ := parseTime(s)
	return t
}

func nonNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

// responder reads responded_by leniently: services add platform fields, and a malformed one
// must not cost the decision.
func responder(raw json.RawMessage) *transport.Responder {
	var w struct {
		Name, Email, ID, Platform string
		UserID                    string `json:"user_id"`
		PlatformUserID            string `json:"platform_user_id"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &w) != nil {
		return nil
	}
	r := &transport.Responder{Name: w.Name, Email: w.Email, ID: cmp.Or(w.ID, w.UserID), Platform: w.Platform,
		PlatformUserID: w.PlatformUserID, Raw: append(json.RawMessage(nil), raw...)}
	if r.Name == "" && r.Email == "" && r.ID == "" && r.PlatformUserID == "" {
		return nil
	}
	return r
}
