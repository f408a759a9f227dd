package duration

import (
	"errors"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"24h", 24 * time.Hour}, {"30m", 30 * time.Minute}, {"7d", 7 * 24 * time.Hour}, {"1.5d", 36 * time.Hour},
		{"PT24H", 24 * time.Hour}, {"P1DT12H", 36 * time.Hour}, {"P7D", 7 * 24 * time.Hour}, {"pt5m", 5 * time.Minute},
		{"PT1.5S", 1500 * time.Millisecond},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "soon", "P", "PT", "-5m", "0s", "P300Y", "PT9999999999999H", "400d", "P6", "d"} {
		if got, err := Parse(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q) = %v, %v; want ErrInvalid", bad, got, err)
		}
	}
}
