package transport

// SlotsOf exposes the slots of url's origin to the tests.
func SlotsOf(s *Slots, url string) chan struct{} { return s.of(url) }
