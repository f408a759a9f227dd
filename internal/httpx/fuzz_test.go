package httpx_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/internal/httpx"
)

// FuzzRetryAfter: any Retry-After value parses to a delay between zero and a year, or to
// none; never a negative delay, never a panic.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"120", "0", "-1", "99999999999999999999", "Wed, 21 Oct 2015 07:28:00 GMT",
		"Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", " 5 ", "1.5", ""} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := httpx.RetryAfter(http.Header{"Retry-After": {v}}, now)
		if d < 0 || d > 366*24*time.Hour || (!ok && d != 0) {
			t.Fatalf("RetryAfter(%q) = %v, %v", v, d, ok)
		}
	})
}
