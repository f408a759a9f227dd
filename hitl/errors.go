package hitl

import (
	"errors"
	"strings"

	"github.com/hitlkit/hitlkit/transport"
)

// Sentinels; match with errors.Is.
var (
	// ErrInvalid: a hitl object or poll response is present but breaks the protocol. The
	// concrete error is an [*InvalidError] naming each field.
	ErrInvalid = errors.New("invalid")
	// ErrPastExpiry: the case's expires_at (plus the wait's grace) passed without the service
	// reporting a terminal status. The outcome is unknown; it is the cause of the context
	// Wait derives, so errors.Is(err, ErrPastExpiry) tells it from the caller's own cancel.
	ErrPastExpiry = errors.New("hitl: case expiry passed without a terminal status from the service")
	// ErrNoForwarder: a response asked for a human but the client has no [Forwarder] to put
	// the question in front of one ([WithForwarder], or [CallOptions].Forwarder for one
	// call). [Client.Do] and [Client.Transport] return it inside a [*WaitError] holding the
	// Interrupt, which was neither forwarded nor waited on: forward it and [Client.Wait] on
	// it, or configure a forwarder. An A2A task that asks for input needs none when
	// [WaitOptions].Ask answers it. [Client.Chain] returns it alone, having sent nothing.
	ErrNoForwarder = errors.New("hitl: no forwarder configured, so nobody was shown the question the service opened (the Response and this *WaitError hold its Interrupt, to forward and wait on with Client.Wait): give the client hitl.WithForwarder to put questions in front of a human (for an A2A task's question, WaitOptions.Ask)")
	// ErrNotApproved: a human's decision came back and it is not a go-ahead
	// ([transport.Result.Approved] is false): a rejection, a cancellation, a failure, an
	// expiry (whatever the default action, "approve" included), or an answer that is not a
	// yes (a request for edits, a selection, form values — the data is in the Result).
	// [Client.Do] and [Client.Transport] return it as a [*NotApprovedError] holding the
	// Result, unless the call sets [CallOptions].EveryDecisionOK.
	ErrNotApproved = errors.New("hitl: not approved")
)

// NotApprovedError is the decision of a [Client.Do] or [Client.Transport] call that was not
// a go-ahead: Result is the decision as [Client.Wait] returns it (Status, Decision, Action,
// Data: the human's answer, if any), Interrupt the question the human was asked. It matches
// [ErrNotApproved] (errors.Is); errors.As finds it through an [http.Client]'s *url.Error.
//
// The outcome is known: this is the human's (or, at expiry or cancellation, the service's)
// decision, not a failure to learn it, and the interrupt has left the client's store.
// Whatever the service may have done on its side is its own to say: after an expiry it may
// have applied its default action (Result.DefaultAction), which is never a human's yes.
type NotApprovedError struct {
	Interrupt *Interrupt
	Result    *transport.Result
}

// Error says how the case ended, without the human's data or any URL.
func (e *NotApprovedError) Error() string {
	var b strings.Builder
	b.WriteString("hitl: ")
	if e.Interrupt != nil {
		b.WriteString(e.Interrupt.ID() + " ")
	}
	b.WriteString("not approved: ")
	r := e.Result
	switch {
	case r == nil:
		b.WriteString("no result")
	case r.Status == transport.StatusCompleted && r.Decision == transport.DecisionReject:
		b.WriteString("the human rejected it (" + quoteShort(r.Action) + ")")
	case r.Status == transport.StatusCompleted && r.Decision == transport.DecisionAnswer:
		b.WriteString("the human answered " + quoteShort(r.Action) + ", which is not a yes; the answer is in the Result (errors.As *hitl.NotApprovedError)")
	case r.Status == transport.StatusCompleted:
		b.WriteString("completed without a human's approval")
	case r.Status == transport.StatusExpired && r.DefaultApplied:
		b.WriteString("expired unanswered; the service's default " + quoteShort(r.DefaultAction) + " applied, which is not a human's yes")
	case r.Status == transport.StatusExpired:
		b.WriteString("expired unanswered")
	case r.Status == transport.StatusCancelled:
		b.WriteString("the case was cancelled")
	case r.Status == transport.StatusRejected, r.Status == transport.StatusFailed:
		b.WriteString("the case " + map[transport.Status]string{transport.StatusRejected: "was rejected", transport.StatusFailed: "failed"}[r.Status])
	default:
		b.WriteString(quoteShort(string(r.Status)))
	}
	return b.String()
}

// Is matches ErrNotApproved.
func (e *NotApprovedError) Is(target error) bool { return target == ErrNotApproved }

// FieldError is one problem with one field. Field is the JSON key (dotted for nested keys);
// Problem says what is wrong without quoting the value, which may be a secret.
type FieldError struct {
	Field   string `json:"field"`
	Problem string `json:"problem"`
}

// String is "field: problem".
func (e FieldError) String() string { return e.Field + ": " + e.Problem }

// InvalidError reports a hitl object or poll response that breaks the protocol. Object says
// which ("hitl" or "poll response"); Problems lists every problem found. Case is the partial
// case parsed from a broken hitl object (nil when hitl was not an object), kept so the caller
// can still show the human whatever is usable, such as the review URL.
type InvalidError struct {
	Object   string
	Problems []FieldError
	Case     *Case
	// refused: a request was not sent because its URL breaks the address rules.
	refused bool
}

// Error lists every problem; it quotes no field value.
func (e *InvalidError) Error() string {
	var b strings.Builder
	b.WriteString("hitl: invalid ")
	b.WriteString(e.Object)
	for i, p := range e.Problems {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// Is matches ErrInvalid; an InvalidError that kept a request from being sent because its URL
// breaks the address rules (Wait, SubmitInline, Discover) also matches
// transport.ErrRefusedAddress.
func (e *InvalidError) Is(target error) bool {
	return target == ErrInvalid || e.refused && target == transport.ErrRefusedAddress
}
