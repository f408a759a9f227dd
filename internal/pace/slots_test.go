package pace

import "testing"

// TestSlots: one set of slots per origin, whatever the path; n slots each; nil Slots bound
// nothing.
func TestSlots(t *testing.T) {
	s := NewSlots(3)
	a, a2, b := s.Of("https://a.example/reviews/1/status"), s.Of("https://a.example/other"), s.Of("https://b.example/reviews/1/status")
	if a != a2 || a == b || cap(a) != 3 || cap(b) != 3 {
		t.Errorf("of: same origin shares %v, other origin apart %v, caps %d %d; want true, true, 3 3", a == a2, a != b, cap(a), cap(b))
	}
	if NewSlots(0) != nil || NewSlots(0).Of("https://a.example/") != nil {
		t.Error("NewSlots(0) bounds something")
	}
}
