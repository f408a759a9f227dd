package transport

// SlotsOf gives the tests the slots of rawURL's origin.
func SlotsOf(s *Slots, rawURL string) chan struct{} { return s.of(rawURL) }
