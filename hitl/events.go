package hitl

import (
	"encoding/json"

	"github.com/hitlkit/hitlkit/transport"
)

// The event names of HITL Protocol §8.5 (Server-Sent Events on events_url). The last three
// are terminal and are also the events of §9 callbacks.
const (
	eventOpened     = "review.opened"
	eventInProgress = "review.in_progress"
	eventReminder   = "review.reminder"
	eventCompleted  = "review.completed"
	eventExpired    = "review.expired"
	eventCancelled  = "review.cancelled"
)

// eventData is the data of a §8.5 event; each event uses some of the fields.
type eventData struct {
	CaseID     string    `json:"case_id"`
	OpenedAt   string    `json:"opened_at"`
	Progress   *Progress `json:"progress"`
	ReminderAt string    `json:"reminder_at"`
	Message    string    `json:"message"`
}

// decodeEvent interprets one event of case c's stream: an Update for a waiting state, or
// terminal=true for a terminal event. A terminal event is the Result only when it carries
// the complete outcome and comes from the service's own stream ([outcomeOf]); otherwise the
// poll confirms it (§8.5: the poll is the source of truth; a review.completed may even lack
// its result). Events of another case, unknown names and unreadable data give neither.
func decodeEvent(c *Case, ev transport.Event) (u *Update, terminal bool) {
	var d eventData
	if json.Unmarshal(ev.Data, &d) != nil || (d.CaseID != "" && d.CaseID != c.CaseID) {
		return nil, false
	}
	switch ev.Name {
	case eventCompleted, eventExpired, eventCancelled:
		return nil, true
	case eventOpened:
		return &Update{CaseID: c.CaseID, State: stateOpened, OpenedAt: at(d.OpenedAt)}, false
	case eventInProgress:
		return &Update{CaseID: c.CaseID, State: stateInProgress, OpenedAt: at(d.OpenedAt), Progress: d.Progress}, false
	case eventReminder:
		// The state is not in the event; the waiter keeps the last one it knows.
		return &Update{CaseID: c.CaseID, Reminder: true, ReminderSentAt: at(d.ReminderAt), Message: d.Message}, false
	}
	return nil, false
}
