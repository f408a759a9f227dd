package hitl

import (
	"encoding/json"

	"github.com/hitlkit/hitlkit/internal/sse"
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
	// eventStatus is not in §8.5: a live service opens each stream with it, its data the poll
	// response's fields, to catch the agent up. It is read as the poll's status would be.
	eventStatus = "review.status"
)

// eventData is the data of a §8.5 event: a terminal one has the poll response's fields, a
// reminder its own two.
type eventData struct {
	pollResponse
	ReminderAt string `json:"reminder_at"`
	Message    string `json:"message"`
}

// decodeEvent interprets one event of case c's stream, parsing its data once: an Update for a
// waiting state, or terminal=true for a terminal event, with the Result when the event
// carries the complete outcome ([outcomeIn]). Whether that Result may end the wait without a
// poll is the caller's to decide: only from the service's own stream (§8.5: the poll is the
// source of truth; a review.completed may even lack its result). Events of another case,
// unknown names and unreadable data give nothing.
func decodeEvent(c *Case, ev sse.Event) (u *Update, r *transport.Result, terminal bool) {
	var d eventData
	if json.Unmarshal(ev.Data, &d) != nil || (d.CaseID != "" && d.CaseID != c.CaseID) {
		return nil, nil, false
	}
	switch ev.Name {
	case eventCompleted, eventExpired, eventCancelled:
		return nil, outcomeIn(c, ev.Name, &d.pollResponse), true
	case eventStatus:
		switch d.Status {
		case stateCompleted, stateExpired, stateCancelled:
			return nil, outcomeIn(c, "review."+d.Status, &d.pollResponse), true
		}
		if d.CaseID != c.CaseID {
			return nil, nil, false
		}
		_, u, err := c.outcome(&d.pollResponse)
		if err != nil {
			return nil, nil, false
		}
		return u, nil, false
	case eventOpened:
		return &Update{CaseID: c.CaseID, State: stateOpened, OpenedAt: at(d.OpenedAt)}, nil, false
	case eventInProgress:
		return &Update{CaseID: c.CaseID, State: stateInProgress, OpenedAt: at(d.OpenedAt), Progress: d.Progress}, nil, false
	case eventReminder:
		// The state is not in the event; the waiter keeps the last one it knows.
		return &Update{CaseID: c.CaseID, Reminder: true, ReminderSentAt: at(d.ReminderAt), Message: d.Message}, nil, false
	}
	return nil, nil, false
}
