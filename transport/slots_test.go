package transport_test

import (
	"testing"

	"github.com/hitlkit/hitlkit/transport"
)

// TestSlots: one set of slots per origin, whatever the path; n slots each; nil Slots bound
// nothing.
func TestSlots(t *testing.T) {
	cfg, err := transport.NewConfig("test", nil, transport.WithMaxPollsInFlight(3))
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Polls
	a, a2, b := transport.SlotsOf(s, "https://a.example/reviews/1/status"), transport.SlotsOf(s, "https://a.example/other"), transport.SlotsOf(s, "https://b.example/reviews/1/status")
	if a != a2 || a == b || cap(a) != 3 || cap(b) != 3 {
		t.Errorf("of: same origin shares %v, other origin apart %v, caps %d %d; want true, true, 3 3", a == a2, a != b, cap(a), cap(b))
	}
	if transport.SlotsOf(nil, "https://a.example/") != nil {
		t.Error("nil Slots bound something")
	}
}
