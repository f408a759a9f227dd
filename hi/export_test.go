package hi

// SameParticipant exposes sameParticipant to the external tests.
var SameParticipant = sameParticipant
