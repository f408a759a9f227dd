package duration_test

import (
	"errors"
	"testing"

	"github.com/hitlkit/hitlkit/internal/duration"
)

// FuzzParse: any spelling parses to a positive duration no longer than Max, or fails with
// ErrInvalid; never a panic, never an overflow.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"24h", "30m", "7d", "1.5d", "PT24H", "P1DT12H", "P7D", "P1Y", "PT0S", "-5m",
		"9999999999h", "P99999999999D", "", "d", "PT", "1e400d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := duration.Parse(s)
		if err != nil {
			if !errors.Is(err, duration.ErrInvalid) {
				t.Fatalf("Parse(%q): %v is not ErrInvalid", s, err)
			}
			return
		}
		if d <= 0 || d > duration.Max {
			t.Fatalf("Parse(%q) = %v", s, d)
		}
	})
}
