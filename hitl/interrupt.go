package hitl

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
)

// Kind says what kind of pause an [Interrupt] is: one of the kinds below, or a kind of
// one's own — the extension point for a protocol this package does not ship: present its
// question as an Interrupt of that kind with [Interrupt].Custom, and give its wait with
// [WithKindWaiter]; a [Store] keeps it and [Client.Resume] resumes it like the others (see
// the example of WithKindWaiter, and examples/acme for a complete protocol).
type Kind string

// Interrupt kinds.
const (
	// KindHITL is a HITL Protocol 202 with a hitl object.
	KindHITL Kind = "hitl"
)

// Interrupt is what detection returns: a human is needed. It holds the protocol object and
// what a forwarder needs (prompt, review URL, expiry).
//
// An Interrupt marshals to JSON and back, so a process can save it, stop, and a later process
// can [Client.Wait] on the unmarshalled value. The JSON holds the review URL with its token:
// store it as you would a credential. String and LogValue redact it.
type Interrupt struct {
	Kind Kind `json:"kind"`
	// Message is the 202 envelope's message, for the human; may be empty.
	Message string `json:"message,omitempty"`
	// Case is the HITL Protocol hitl object (Kind KindHITL).
	Case *Case `json:"case,omitempty"`
	// Task is the paused A2A task (the KindA2A kinds).
	Task *a2a.Pause `json:"task,omitempty"`
	// Custom is the pause of a protocol of one's own, of a Kind this package does not
	// define: its id and its state. Such an interrupt is kept in a [Store] and listed like
	// the others, and [Client.Wait] and [Client.Resume] wait on it through the Waiter given
	// for its kind ([WithKindWaiter]) or [WaitOptions].Waiter.
	Custom *CustomPause `json:"custom,omitempty"`
	// Origin is scheme://host:port of the request that produced the interrupt. Credentials
	// are sent only to this origin unless the client allows more; empty when unknown.
	Origin string `json:"origin,omitempty"`
	// ReceivedAt is when Detect saw the response, by the agent's clock. Wait uses it to keep
	// a case's lifetime (expires_at − created_at) even when the service's clock is behind the
	// agent's. Zero when unknown.
	ReceivedAt time.Time `json:"received_at,omitzero"`
	// PollAfter is when the service asked to be polled first: the 202's Retry-After after
	// ReceivedAt. Wait's first poll waits for it (within the poll intervals), unless an
	// event or callback says the case ended. Zero when the 202 gave none.
	PollAfter time.Time `json:"poll_after,omitzero"`
	// Round is the round of a multi-round review this case is (HITL §10.1), counted from 1
	// by [Client.Chain]; 0 outside a chain.
	Round int `json:"round,omitempty"`
	// Warnings lists what was odd but usable in the object (an unknown spec_version, an
	// overlong prompt, an unparsable timeout).
	Warnings []string `json:"warnings,omitempty"`
	// Labels are the caller's own keys for this interrupt ([CallOptions].Labels): they stay
	// with it in its JSON and in a [Store], so that after a restart a [ResumeHandler] knows
	// where its Result belongs (an agent framework's session and call id, a ticket number).
	// A [Forwarder] may add its own (where it put the question): [Client.Do] keeps the
	// interrupt again after a forward that changed them. hitlkit sends them nowhere.
	Labels map[string]string `json:"labels,omitempty"`
	// Reminder is 0 for the first forward of the case and n for its n-th reminder, so a
	// forwarder can word it as one ("Reminder: …").
	Reminder int `json:"-"`
}

// CustomPause is a pause of a protocol of one's own (see [Interrupt].Custom).
type CustomPause struct {
	// ID identifies the pause at its service (a request, an approval); with the
	// interrupt's Origin it keys the interrupt in a [Store]. Required.
	ID string `json:"id"`
	// Data is what the kind's Waiter needs to wait on it after a restart (a poll URL, an
	// entity tag), as raw JSON, kept byte for byte. Like a review URL, it may hold a
	// secret: a Store keeps it as it keeps a credential.
	Data json.RawMessage `json:"data,omitempty"`
}

// Prompt returns what the human must decide: the case's prompt, or the envelope's message
// when the prompt is empty.
func (it *Interrupt) Prompt() string {
	if it.Case != nil && it.Case.Prompt != "" {
		return it.Case.Prompt
	}
	if it.Task != nil {
		return it.Task.Prompt()
	}
	return it.Message
}

// Summary says in one line what the human will be shown, for a forwarded message: the review
// type, the form's shape for a form ("Input review: 3-step form: Personal Information → Work
// Preferences → Review & Submit"), the round of a multi-round review; for an A2A pause, its
// class and the tool being approved. It never holds the review URL or a form value.
func (it *Interrupt) Summary() string {
	var parts []string
	switch {
	case it.Case != nil:
		t := string(it.Case.Type)
		if t == "" {
			t = "review"
		} else {
			t = strings.ToUpper(t[:1]) + t[1:] + " review"
		}
		parts = append(parts, t)
		if f, err := it.Case.Form(); err == nil && f != nil {
			parts = append(parts, f.Summary())
		}
	case it.Task != nil:
		parts = append(parts, "Agent task "+string(it.Task.Class))
		if tc, ok := it.Task.ToolCall(); ok && tc.Name != "" {
			parts = append(parts, "tool "+tc.Name)
		}
	}
	if it.Round > 1 {
		parts = append(parts, fmt.Sprintf("round %d", it.Round))
	}
	return strings.Join(parts, ": ")
}

// ReviewURL returns the link to forward to the human. It carries the review token: forward
// it, never log it.
func (it *Interrupt) ReviewURL() string {
	if it.Case == nil {
		return ""
	}
	return it.Case.ReviewURL
}

// ID returns the case id, or the A2A task id.
func (it *Interrupt) ID() string {
	switch {
	case it.Case != nil:
		return it.Case.CaseID
	case it.Task != nil:
		return it.Task.TaskID
	case it.Custom != nil:
		return it.Custom.ID
	}
	return ""
}

// ExpiresAt returns when the case expires; zero when unknown.
func (it *Interrupt) ExpiresAt() time.Time {
	if it.Case == nil {
		return time.Time{}
	}
	return it.Case.ExpiresAt
}

// String describes the interrupt with its secrets redacted.
func (it Interrupt) String() string {
	if it.Task != nil {
		return fmt.Sprintf("%s interrupt: task %s at %s", it.Kind, it.Task.TaskID, it.Task.Endpoint.Binding)
	}
	if it.Custom != nil {
		return fmt.Sprintf("%s interrupt: %s", it.Kind, it.Custom.ID)
	}
	if it.Case == nil {
		return fmt.Sprintf("%s interrupt", it.Kind)
	}
	return fmt.Sprintf("%s interrupt: %s", it.Kind, it.Case)
}

// GoString is String, so that %#v does not print the secrets either.
func (it Interrupt) GoString() string { return it.String() }

// LogValue gives slog the interrupt without its secrets.
func (it Interrupt) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("kind", string(it.Kind))}
	if it.Case != nil {
		attrs = append(attrs, slog.Any("case", *it.Case))
	}
	if it.Task != nil {
		attrs = append(attrs, slog.String("task", it.Task.TaskID), slog.String("binding", string(it.Task.Endpoint.Binding)))
	}
	return slog.GroupValue(attrs...)
}
