package a2a

import "strings"

// State is a task state in canonical form: the 0.x JSON spelling (A2A 0.3 §6.3 TaskState).
// Every spelling of every version maps onto one of these.
type State string

// The task states of A2A 0.3 and 1.0 (1.0 §4.1.3 TaskState).
const (
	StateSubmitted     State = "submitted"
	StateWorking       State = "working"
	StateInputRequired State = "input-required"
	StateAuthRequired  State = "auth-required"
	StateCompleted     State = "completed"
	StateFailed        State = "failed"
	StateCanceled      State = "canceled"
	StateRejected      State = "rejected"
	// StateUnknown is 0.x "unknown", 1.0 TASK_STATE_UNSPECIFIED, an empty or missing state,
	// and any value no version defines. It is neither resumable nor terminal.
	StateUnknown State = "unknown"
)

// parseState normalises a state as any version spells it: 0.x kebab case ("input-required"),
// ProtoJSON ("TASK_STATE_INPUT_REQUIRED"), the 0.3 proto's British TASK_STATE_CANCELLED and
// "cancelled". Case, surrounding space, and "-" versus "_" do not matter, so
// "Input-Required" and "task_state_input_required" are input-required. Anything else is
// StateUnknown.
func parseState(s string) State {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimPrefix(s, "task_state_")
	s = strings.ReplaceAll(s, "_", "-")
	switch s {
	case "submitted":
		return StateSubmitted
	case "working":
		return StateWorking
	case "input-required":
		return StateInputRequired
	case "auth-required":
		return StateAuthRequired
	case "completed":
		return StateCompleted
	case "failed":
		return StateFailed
	case "canceled", "cancelled":
		return StateCanceled
	case "rejected":
		return StateRejected
	default: // "unknown", "unspecified", "", and values no version defines
		return StateUnknown
	}
}

// Terminal reports whether no further change can happen to a task in s (all versions:
// completed, failed, canceled, rejected). A message to a terminal task is refused.
func (s State) Terminal() bool {
	switch s {
	case StateCompleted, StateFailed, StateCanceled, StateRejected:
		return true
	}
	return false
}

// interrupted reports whether a task in s waits for its client (1.0 §4.1.3: input-required,
// auth-required).
func (s State) interrupted() bool {
	return s == StateInputRequired || s == StateAuthRequired
}
