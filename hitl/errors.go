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
	// ErrNoForwarder: a call needed to put a question in front of a human but no Forwarder
	// was configured; nothing was sent.
	ErrNoForwarder = errors.New("hitl: no forwarder configured")
)

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
