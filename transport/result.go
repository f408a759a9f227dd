package transport

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Status is how a human decision ended. Every wait ends in one of these or in an error; an
// error means the outcome is unknown, never that the human said no.
type Status string

// The terminal statuses. HITL Protocol §8 defines completed, expired and cancelled; rejected
// and failed come from protocols whose servers report them as states of their own (an A2A
// relay's admin rejection, an A2A task its agent rejected, an HXP request that failed).
//
// A person's no is StatusCompleted with DecisionReject — the exchange completed, and the
// answer was no — with the reason they gave in Reason, in every protocol: a HITL reject,
// an HXP APPROVE answered "rejected", an A2A answer of deny. A wait of one's own reports a
// service's own "denied" or "rejected" state of a decided request the same way (see
// ExampleWait); StatusRejected is for an exchange the service or agent refused as a whole,
// not for a person's answer.
const (
	StatusCompleted Status = "completed"
	StatusExpired   Status = "expired"
	StatusCancelled Status = "cancelled"
	StatusRejected  Status = "rejected"
	StatusFailed    Status = "failed"
)

// Responder is who answered, as the service reports it (HITL Protocol §8 responded_by). Name
// and Email are the spec's fields; services add their own (an id, a chat platform and the
// person's id on it), which are kept, every one, in Raw.
type Responder struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	// ID, Platform and PlatformUserID are read from the members of those names (id,
	// user_id; platform; platform_user_id) when the service sends them.
	ID             string `json:"id,omitempty"`
	Platform       string `json:"platform,omitempty"`
	PlatformUserID string `json:"platform_user_id,omitempty"`
	// Raw is responded_by as the service sent it.
	Raw json.RawMessage `json:"raw,omitempty"`
}

// Result is the outcome of one wait, whatever the protocol and transport.
//
// [Result.Approved] answers the question every caller has — may I go ahead? — in one call,
// for every protocol. Decision says which human decision it was in a word every protocol
// shares; Action keeps the protocol's own word. When a case expires and the service applies
// its default action, Status is StatusExpired, DefaultApplied is true, DefaultAction names
// the action, and Action and Decision stay empty: an expiry with default_action "approve"
// never looks like a human approval.
//
// Data holds the result's data as raw JSON, byte for byte as the service sent it; the typed
// review types of hitl decode it (hitl.ApprovalOf, …).
type Result struct {
	Status Status `json:"status"`
	// CaseID identifies the case, request or task the result belongs to.
	CaseID string `json:"case_id"`
	// Action is the human's action in the protocol's own word (HITL approve, edit, reject,
	// select, submit, confirm, cancel, retry, skip, abort, or a service's own; an A2A
	// answer's approve or deny; an HXP option's text, approved or rejected); empty unless a
	// human answered.
	Action string `json:"action,omitempty"`
	// Decision is the human's decision in the words every protocol shares (see [Decision]);
	// empty when no human decided: an expiry, a default applied, a cancellation, a failure.
	Decision Decision `json:"decision,omitempty"`
	// Data is the result's data as raw JSON; nil when the service sent none.
	Data json.RawMessage `json:"data,omitempty"`
	// RespondedBy is who answered, when the service says.
	RespondedBy *Responder `json:"responded_by,omitempty"`
	// SubmissionContext is how the answer was submitted (HITL v0.8 submission_context), raw.
	SubmissionContext json.RawMessage `json:"submission_context,omitempty"`
	// UnverifiedSignature is the service's signature over the result (HITL §13.4), raw and NOT verified.
	UnverifiedSignature json.RawMessage `json:"unverified_signature,omitempty"`
	// NextCaseID links to the next round of a multi-round review (HITL §10.1).
	NextCaseID string `json:"next_case_id,omitempty"`
	// DefaultAction is the action the service applies when the case expires unanswered.
	DefaultAction string `json:"default_action,omitempty"`
	// DefaultApplied reports that no human answered and DefaultAction took effect.
	DefaultApplied bool `json:"default_applied,omitempty"`
	// Reason is the cancellation, rejection or failure reason, when one was given. For a
	// person's no (DecisionReject) it is the reason they gave, whatever the protocol: a
	// HITL review's reason, feedback or note, an HXP receipt's reason, the text of an A2A
	// answer; the data it came from stays in Data.
	Reason string `json:"reason,omitempty"`
	// Receipt is the protocol's own record of the outcome, raw, byte for byte as the
	// server sent it: an HXP execution receipt (read it with hxp.ReceiptOf). Nil for the
	// other protocols.
	Receipt json.RawMessage `json:"receipt,omitempty"`
	// CreatedAt, OpenedAt and EndedAt are the service's timestamps; zero when it sent none.
	// EndedAt is when the terminal status was reached (completed_at, expired_at, cancelled_at).
	CreatedAt time.Time `json:"created_at,omitzero"`
	OpenedAt  time.Time `json:"opened_at,omitzero"`
	EndedAt   time.Time `json:"ended_at,omitzero"`
	// FinalAt is set when the service lets the human change a submitted answer for a while
	// (a live HITL service allows five minutes): until then this answer may still change, so
	// a caller about to do what cannot be undone waits for it and asks again (hitl's
	// Client.Final). Zero when the answer is final as returned.
	FinalAt time.Time `json:"final_at,omitzero"`
}

// Decision is a human's decision, the same word whatever the protocol. The set is closed:
//
//   - [DecisionApprove]: go ahead as proposed. HITL approve (approval review) and confirm
//     (confirmation review); an A2A answer of approve (Hector's decision "approve", ADK's
//     confirmed true); a relay administrator letting the task through; an HXP APPROVE
//     answered "approved".
//   - [DecisionReject]: do not. HITL reject, cancel (the confirmation review's no) and abort
//     (escalation); an A2A answer of deny or reject; a relay administrator's rejection; an
//     HXP APPROVE answered "rejected".
//   - [DecisionAnswer]: the human answered, with neither a yes nor a no: changes to what was
//     proposed (HITL edit), a choice (HITL select, an HXP DECIDE's option, an HI
//     interaction's action), values (HITL submit, an HXP PROVIDE), or a word of the
//     service's own (HITL retry and skip, an A2A answer of another word). Action names it;
//     Data holds what the human gave.
//
// Each protocol package sets Decision from its own words; a wait of one's own sets it from
// these constants.
type Decision string

// The decisions; see [Decision] for what each protocol's words map to.
const (
	DecisionApprove Decision = "approve"
	DecisionReject  Decision = "reject"
	DecisionAnswer  Decision = "answer"
)

// Approved reports whether a human approved and the case completed: the go-ahead, whatever
// the protocol. It is true only when Status is StatusCompleted, no default was applied and
// Decision is DecisionApprove — never for an expiry (even with default_action "approve"), a
// cancellation, a rejection, a failure, or a Result without a Decision. An edit (Action
// "edit", Decision DecisionAnswer) is not an approval of what was proposed: go ahead with the
// changes only after reading Data. Whether a person decided at all is Decision != "".
func (r *Result) Approved() bool {
	return r != nil && r.Status == StatusCompleted && !r.DefaultApplied && r.Decision == DecisionApprove
}

// Format prints the result without its data, which may hold a person's answers, whatever the
// verb (%v, %s, %+v, %#v), and ends with the verdict, so that a log line never leaves it to
// the reader: "completed: approve (case review_1) go-ahead", "completed: answer "Approve"
// (case req_1, 12 bytes of data) no go-ahead", "expired: default "approve" (case review_1)
// no go-ahead". The service's words (Action, DefaultAction, Reason) are quoted, and so is an id
// that is not one plain word.
func (r Result) Format(f fmt.State, _ rune) {
	var b strings.Builder
	b.WriteString(string(r.Status))
	var what []string
	switch {
	case r.Decision != "":
		what = append(what, string(r.Decision))
		if r.Action != "" && r.Action != string(r.Decision) {
			what = append(what, strconv.Quote(r.Action))
		}
	case r.Action != "":
		what = append(what, strconv.Quote(r.Action)+", no decision")
	}
	if r.DefaultApplied {
		what = append(what, "default "+strconv.Quote(r.DefaultAction))
	}
	if len(what) == 0 && r.Reason != "" {
		what = append(what, strconv.Quote(r.Reason))
	}
	if len(what) > 0 {
		b.WriteString(": " + strings.Join(what, " "))
	}
	fmt.Fprintf(&b, " (case %s", word(r.CaseID))
	if len(r.Data) > 0 {
		fmt.Fprintf(&b, ", %d bytes of data", len(r.Data))
	}
	b.WriteString(")")
	if r.Approved() {
		b.WriteString(" go-ahead")
	} else {
		b.WriteString(" no go-ahead")
	}
	_, _ = io.WriteString(f, b.String())
}

// word is id as it is when it is one plain word — letters, digits and the punctuation ids
// use, nothing that could close the parenthesis, start a line or pass for the verdict — and
// quoted otherwise.
func word(id string) string {
	for _, c := range id {
		if c > unicode.MaxASCII || c <= ' ' || strings.ContainsRune(`()"\`, c) {
			return strconv.Quote(id)
		}
	}
	return id
}

// LogValue gives slog the result without its data, with approved: [Result.Approved].
func (r Result) LogValue() slog.Value {
	return slog.GroupValue(slog.String("status", string(r.Status)), slog.String("case_id", r.CaseID),
		slog.String("action", r.Action), slog.String("decision", string(r.Decision)), slog.Bool("approved", r.Approved()),
		slog.Int("data_bytes", len(r.Data)))
}
