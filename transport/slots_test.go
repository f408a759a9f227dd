package transport_test

import (
	"testing"

	"github.com/hitlkit/hitlkit/transport"
)

// TestSlots: one set of slots per origin, whatever the path; n slots each; nil Slots bound
// nothing.
func TestSlots(t *testing.T) {
	s := transport.NewSlots(3)
	a, a2, b := s.For("https://a.example/reviews/1/status"), s.For("https://a.example/other"), s.For("https://b.example/reviews/1/status")
	if a != a2 || a == b || cap(a) != 3 || cap(b) != 3 {
		t.Errorf("For: same origin shares %v, other origin apart %v, caps %d %d; want true, true, 3 3", a == a2, a != b, cap(a), cap(b))
	}
	if transport.NewSlots(0) != nil || transport.NewSlots(0).For("https://a.example/") != nil {
		t.Error("NewSlots(0) bounds something")
	}
}
