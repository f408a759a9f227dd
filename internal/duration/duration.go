// Package duration parses the duration spellings services put in protocol fields: Go's own
// ("24h", "30m"), a day suffix ("7d", "1.5d") and ISO 8601 ("PT24H", "P1DT12H", "P7D").
//
// # Bounded work
//
// A duration comes from a service's answer (a HITL 202's timeout, a discovery document's
// default_timeout and max_timeout), so its length is chosen by whoever sends it. Parse refuses
// a spelling longer than MaxLen bytes before reading it, and reads what remains in one pass
// (the ISO 8601 reader is this package's own; every number it hands to strconv is shorter
// than MaxLen). A 300,000-digit timeout costs one length comparison.
//
// Measured with
//
//	go test -run '^$' -bench . -benchmem ./internal/duration
//
// (2026-11-26, commit 104c589, one run on a 2-core machine at load average 13–14, so absolute
// figures are high), refusing the worst shapes ("P" + zeros + "D", "PT" + digits + "S", "1."
// repeated, digits + "d", digits + "h") costs the same 6–14 ns, no allocation, at every size:
// per byte 0.007–0.013 ns at 1 KiB, 0.00009–0.0002 ns at 64 KiB and 0.000007–0.000013 ns at
// 1 MiB (the body limit) — the cost per byte falls as the string grows, since it is not read.
// The longest accepted spelling (64 bytes, padded with zeros) takes 1.8 µs, 28 ns/B, no
// allocation.
package duration

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// Max is the longest duration accepted; longer values are treated as errors rather than
// silently overflowing.
const Max = 366 * 24 * time.Hour

// MaxLen is the longest spelling Parse reads, surrounding spaces included: 64 bytes, twice the
// longest way to write a duration up to Max to the nanosecond ("P1Y0M0W1DT23H59M59.999999999S"
// is 29). A longer string, however it is made (a run of leading zeros, say), is ErrInvalid
// without being read.
const MaxLen = 64

// ErrInvalid reports a duration that is not in any accepted spelling, not positive, longer
// than Max, or spelled in more than MaxLen bytes.
var ErrInvalid = errors.New("invalid duration")

// Parse returns the duration s spells. It fails with ErrInvalid for anything but a positive
// duration no longer than Max, spelled in at most MaxLen bytes.
//
// The spellings: Go's (time.ParseDuration: "90m", "1h30m"); a decimal number of days with a
// "d" suffix ("7d", "1.5d"); and ISO 8601 durations, case-insensitive,
// P[nY][nM][nW][nD][T[nH][nM][nS]] with each part at most once and in that order, any part
// allowed a decimal fraction ("PT1.5S", "P0,5D"), a year counted as 365 days and a month as a
// twelfth of that.
func Parse(s string) (time.Duration, error) {
	if len(s) > MaxLen {
		return 0, ErrInvalid
	}
	s = strings.TrimSpace(s)
	var d time.Duration
	switch {
	case s == "":
		return 0, ErrInvalid
	case s[0] == 'P' || s[0] == 'p':
		v, ok := parseISO(s[1:])
		if !ok {
			return 0, ErrInvalid
		}
		d = v
	case s[len(s)-1] == 'd':
		days, ok := number(s[:len(s)-1])
		if !ok || days > Max.Hours()/24 {
			return 0, ErrInvalid
		}
		d = time.Duration(math.Round(days * float64(24*time.Hour)))
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

// isoUnits are the ISO 8601 designators in the order they may appear, the date's before the
// time's, each with its length. A year is 365 days, a month a twelfth of a year.
var isoUnits = [...]struct {
	c    byte
	time bool
	size float64
}{
	{'Y', false, float64(365 * 24 * time.Hour)},
	{'M', false, float64(365 * 24 * time.Hour / 12)},
	{'W', false, float64(7 * 24 * time.Hour)},
	{'D', false, float64(24 * time.Hour)},
	{'H', true, float64(time.Hour)},
	{'M', true, float64(time.Minute)},
	{'S', true, float64(time.Second)},
}

// parseISO reads what follows an ISO 8601 duration's "P" in one pass: each part is a number
// and a designator, the designators in isoUnits' order, a "T" before the time's parts. It
// returns false for anything else, for no part at all, and for a sum beyond Max.
func parseISO(s string) (time.Duration, bool) {
	var total float64
	next := 0 // index in isoUnits of the earliest designator still allowed
	inTime, parts, timeParts := false, 0, 0
	for len(s) > 0 {
		if s[0] == 'T' || s[0] == 't' {
			if inTime {
				return 0, false
			}
			inTime = true
			next = 4
			s = s[1:]
			continue
		}
		i := 0
		for i < len(s) && (isDigit(s[i]) || s[i] == '.' || s[i] == ',') {
			i++
		}
		if i == len(s) {
			return 0, false // a number without a designator
		}
		v, ok := number(s[:i])
		if !ok {
			return 0, false
		}
		c := upper(s[i])
		u := next
		for u < len(isoUnits) && (isoUnits[u].c != c || isoUnits[u].time != inTime) {
			u++
		}
		if u == len(isoUnits) {
			return 0, false // unknown, repeated or out of order
		}
		total += v * isoUnits[u].size
		if total > float64(Max) {
			return 0, false
		}
		next = u + 1
		parts++
		if inTime {
			timeParts++
		}
		s = s[i+1:]
	}
	if parts == 0 || (inTime && timeParts == 0) {
		return 0, false
	}
	return time.Duration(math.Round(total)), true
}

// number reads a non-negative decimal: digits, optionally a "." or "," and more digits.
func number(s string) (float64, bool) {
	dot := -1
	for i := 0; i < len(s); i++ {
		switch {
		case isDigit(s[i]):
		case (s[i] == '.' || s[i] == ',') && dot < 0:
			dot = i
		default:
			return 0, false
		}
	}
	if s == "" || dot == 0 || dot == len(s)-1 {
		return 0, false
	}
	if dot > 0 && s[dot] == ',' {
		s = s[:dot] + "." + s[dot+1:]
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}
