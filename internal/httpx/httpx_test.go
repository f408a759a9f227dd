package httpx

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 2, 22, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"30", 30 * time.Second, true},
		{" 0 ", 0, true},
		{"Sun, 22 Feb 2026 10:00:45 GMT", 45 * time.Second, true},
		{"Sunday, 22-Feb-26 10:01:00 GMT", time.Minute, true},
		{"Sun Feb 22 10:00:10 2026", 10 * time.Second, true},
		{"Sun, 22 Feb 2026 09:00:00 GMT", 0, true},
		{"Sun, 22 Feb 2026 10:00:45 +0000", 0, false},
		{"-5", 0, false}, {"1.5", 0, false}, {"soon", 0, false}, {"", 0, false},
		{"99999999999999", 365 * 24 * time.Hour, true},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.in != "" {
			h.Set("Retry-After", tt.in)
		}
		got, ok := RetryAfter(h, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("RetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestOrigin(t *testing.T) {
	tests := map[string]string{
		"https://API.example.com/x?y": "https://api.example.com:443",
		"https://api.example.com:443": "https://api.example.com:443",
		"http://127.0.0.1:8080/p":     "http://127.0.0.1:8080",
		"http://[::1]/":               "http://[::1]:80",
		"/relative":                   "",
		"mailto:a@b":                  "",
	}
	for in, want := range tests {
		if got := OriginOf(in); got != want {
			t.Errorf("OriginOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedact(t *testing.T) {
	tests := map[string]string{
		"https://svc.example/review/1?token=s3cret#frag": "https://svc.example/review/1?[redacted]",
		"https://user:pw@svc.example/p":                  "https://svc.example/p",
		"not a url":                                      "[unparsable url]",
	}
	for in, want := range tests {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReadLimited(t *testing.T) {
	if b, err := ReadLimited(strings.NewReader("12345"), 5); err != nil || string(b) != "12345" {
		t.Errorf("at the limit: %q, %v", b, err)
	}
	if _, err := ReadLimited(strings.NewReader("123456"), 5); !errors.Is(err, ErrBodyTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
}

func TestStripURL(t *testing.T) {
	cause := errors.New("connection refused")
	err := &url.Error{Op: "Get", URL: "https://svc.example/x?token=s3cret", Err: cause}
	if got := StripURL(err); got != cause {
		t.Errorf("StripURL = %v", got)
	}
}
