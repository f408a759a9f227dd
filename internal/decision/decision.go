// Package decision maps a human's action word, in any protocol's spelling, to the
// transport.Decision every protocol shares.
package decision

import (
	"strings"

	"github.com/hitlkit/hitlkit/transport"
)

// Of maps a human's action word to its Decision, case-insensitively: approve, approved and
// confirm are DecisionApprove; reject, rejected, deny, cancel and abort are DecisionReject;
// edit, select and submit are themselves; "" is "" (no decision); every other word is
// DecisionOther. A protocol that knows more (an HXP DECIDE's option is a selection whatever
// its text) sets Decision itself.
func Of(action string) transport.Decision {
	switch strings.ToLower(strings.TrimSpace(action)) {
	case "":
		return ""
	case "approve", "approved", "confirm":
		return transport.DecisionApprove
	case "reject", "rejected", "deny", "cancel", "abort":
		return transport.DecisionReject
	case "edit":
		return transport.DecisionEdit
	case "select":
		return transport.DecisionSelect
	case "submit":
		return transport.DecisionSubmit
	}
	return transport.DecisionOther
}
