// Package decision maps a human's action word, in any protocol's spelling, to the
// transport.Decision every protocol shares, and binds an answer to the question it answers.
package decision

import (
	"fmt"
	"strings"

	"github.com/hitlkit/hitlkit/transport"
)

// Of maps a human's action word to its Decision, case-insensitively and without surrounding
// space: approve, approved and confirm are DecisionApprove; reject, rejected, deny, cancel and
// abort are DecisionReject; "" is "" (no decision); every other word (edit, select, submit, a
// service's own, even one of spaces only) is DecisionAnswer.
func Of(action string) transport.Decision {
	if action == "" {
		return ""
	}
	switch strings.ToLower(strings.TrimSpace(action)) {
	case "approve", "approved", "confirm":
		return transport.DecisionApprove
	case "reject", "rejected", "deny", "cancel", "abort":
		return transport.DecisionReject
	}
	return transport.DecisionAnswer
}

// Mismatch is the error for an answer about another object than the one asked about: it
// matches transport.ErrMismatch and names both ids, each clipped to 128 bytes. object is what
// the ids name: "case", "request", "receipt", "task", "interaction".
func Mismatch(object, want, got string) error {
	return fmt.Errorf("%w: %s %q, not %q", transport.ErrMismatch, object, clip(got), clip(want))
}

func clip(s string) string {
	if len(s) > 128 {
		return s[:128] + "…"
	}
	return s
}
