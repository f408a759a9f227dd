// Package duration parses the duration spellings services put in protocol fields: Go's own
// ("24h", "30m"), a day suffix ("7d", "1.5d") and ISO 8601 ("PT24H", "P1DT12H", "P7D").
package duration

import (
	"errors"
	"strconv"
	"strings"
	"time"

	iso "github.com/sosodev/duration"
)

// Max is the longest duration accepted; longer values are treated as errors rather than
// silently overflowing.
const Max = 366 * 24 * time.Hour

// ErrInvalid reports a duration that is not in any accepted spelling, not positive, or longer than Max.
var ErrInvalid = errors.New("invalid duration")

// Parse returns the duration s spells. It fails with ErrInvalid for anything but a positive
// duration no longer than Max.
func Parse(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	switch {
	case s == "":
		return 0, ErrInvalid
	case s[0] == 'P' || s[0] == 'p':
		if s == "P" || strings.EqualFold(s, "PT") {
			return 0, ErrInvalid
		}
		v, err := iso.Parse(strings.ToUpper(s))
		if err != nil {
			return 0, ErrInvalid
		}
		if v.Negative || v.Years > 1 || v.Months > 13 || v.Weeks > 53 || v.Days > 366 ||
			v.Hours > Max.Hours() || v.Minutes > Max.Minutes() || v.Seconds > Max.Seconds() {
			return 0, ErrInvalid
		}
		d = v.ToTimeDuration()
	case strings.HasSuffix(s, "d"):
		days, err := strconv.ParseFloat(s[:len(s)-1], 64)
		if err != nil || days > Max.Hours()/24 {
			return 0, ErrInvalid
		}
		d = time.Duration(days * float64(24*time.Hour))
	default:
		v, err := time.ParseDuration(s)
		if err != nil {
			return 0, ErrInvalid
		}
		d = v
	}
	if d <= 0 || d > Max {
		return 0, ErrInvalid
	}
	return d, nil
}
