package hitl_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/internal/duration"
	"github.com/hitlkit/hitlkit/transport"
)

// hitlJSON returns a valid v0.8 hitl object as a map, for cases to break one field at a time.
func hitlJSON() map[string]any {
	return map[string]any{
		"spec_version": "0.8", "case_id": "review_abc123",
		"review_url": "https://svc.example/review/abc123?token=K7xR2mN4pQ8sT1vW3xY5zA9bC2dE4fG6hI8jK0l",
		"poll_url":   "https://api.svc.example/v1/reviews/abc123/status", "type": "selection",
		"prompt": "Select which jobs to apply for", "timeout": "24h", "default_action": "skip",
		"created_at": "2026-02-22T10:00:00Z", "expires_at": "2026-02-23T10:00:00Z",
	}
}

func envelopeWith(h any) string {
	b, _ := json.Marshal(map[string]any{"status": "human_input_required", "message": "5 jobs found.", "hitl": h})
	return string(b)
}

func with(edit func(map[string]any)) string {
	h := hitlJSON()
	edit(h)
	return envelopeWith(h)
}

// TestDetectCases is notes/hitl-protocol.md §10, cases 1–13: detection.
func TestDetectCases(t *testing.T) {
	type outcome struct {
		Interrupt bool
		Problems  []hitl.FieldError
		Partial   bool
		Warnings  int
	}
	long := strings.Repeat("é", 501)
	tests := []struct {
		name   string
		status int
		body   string
		opts   *hitl.DetectOptions
		want   outcome
	}{
		{"case01 valid 202", 202, envelopeWith(hitlJSON()), nil, outcome{Interrupt: true}},
		{"case02 empty 202", 202, "", nil, outcome{}},
		{"case02 text 202", 202, "Accepted, processing", nil, outcome{}},
		{"case02 JSON 202 without hitl", 202, `{"status":"queued","job":"j1"}`, nil, outcome{}},
		{"case02 JSON array 202", 202, `[1,2]`, nil, outcome{}},
		{"case02 200 with hitl", 200, envelopeWith(hitlJSON()), nil, outcome{}},
		{"case02 201 with hitl", 201, envelopeWith(hitlJSON()), nil, outcome{}},
		{"case03 hitl null", 202, `{"status":"human_input_required","hitl":null}`, nil,
			outcome{Problems: []hitl.FieldError{{Field: "hitl", Problem: "must be an object, got null"}}}},
		{"case03 hitl string", 202, `{"hitl":"review here"}`, nil,
			outcome{Problems: []hitl.FieldError{{Field: "hitl", Problem: "must be an object, got string"}}}},
		{"case03 hitl array", 202, `{"hitl":[]}`, nil,
			outcome{Problems: []hitl.FieldError{{Field: "hitl", Problem: "must be an object, got array"}}}},
		{"case03 truncated body naming hitl", 202, `{"status":"human_input_required","hitl":{"case_id":`, nil,
			outcome{Problems: []hitl.FieldError{{Field: "hitl", Problem: "202 body is not valid JSON"}}}},
		{"case04 poll_url missing", 202, with(func(h map[string]any) { delete(h, "poll_url") }), nil,
			outcome{Problems: []hitl.FieldError{{Field: "poll_url", Problem: "missing"}}, Partial: true}},
		{"case04 every required field missing", 202, `{"hitl":{}}`, nil, outcome{Partial: true, Problems: []hitl.FieldError{
			{"spec_version", "missing"}, {"case_id", "missing"}, {"review_url", "missing"}, {"poll_url", "missing"},
			{"type", "missing"}}}}, // prompt, created_at and expires_at: warnings, as a live service leaves them out
		{"case04 every required field missing, strict", 202, `{"hitl":{}}`, &hitl.DetectOptions{Strict: true}, outcome{Partial: true, Problems: []hitl.FieldError{
			{"spec_version", "missing"}, {"case_id", "missing"}, {"review_url", "missing"}, {"poll_url", "missing"},
			{"type", "missing"}, {"prompt", "missing"}, {"created_at", "missing"}, {"expires_at", "missing"}}}},
		{"case04 case_id of the wrong type", 202, with(func(h map[string]any) { h["case_id"] = 42 }), nil, outcome{Partial: true,
			Problems: []hitl.FieldError{{"case_id", "must be a string, got number"}}}},
		{"case05 case_id with a path", 202, with(func(h map[string]any) { h["case_id"] = "a/../b" }), nil,
			outcome{Partial: true, Problems: []hitl.FieldError{{"case_id", "must match ^[a-zA-Z0-9_-]+$"}}}},
		{"case05 prompt of 501 characters", 202, with(func(h map[string]any) { h["prompt"] = long }), nil,
			outcome{Interrupt: true, Warnings: 1}},
		{"case05 prompt of 501 characters, strict", 202, with(func(h map[string]any) { h["prompt"] = long }), &hitl.DetectOptions{Strict: true},
			outcome{Partial: true, Problems: []hitl.FieldError{{"prompt", "longer than 500 characters (501)"}}}},
		{"case06 http review_url elsewhere", 202, with(func(h map[string]any) { h["review_url"] = "http://evil.example/review/x?token=t" }), &hitl.DetectOptions{AllowPrivateAddresses: true},
			outcome{Partial: true, Problems: []hitl.FieldError{{"review_url", "must use https"}}}},
		{"case06 http events_url elsewhere", 202, with(func(h map[string]any) { h["events_url"] = "http://evil.example/events" }), nil,
			outcome{Partial: true, Problems: []hitl.FieldError{{"events_url", "must use https"}}}},
		{"case06 localhost without the dev flag", 202, with(func(h map[string]any) { h["poll_url"] = "http://localhost:3456/reviews/abc123/status" }), nil,
			outcome{Partial: true, Problems: []hitl.FieldError{{"poll_url", "plain http to localhost or 127.0.0.1 needs transport.WithAllowPrivateAddresses() (anywhere else, https)"}}}},
		{"case06 localhost with the dev flag", 202, with(func(h map[string]any) { h["poll_url"] = "http://localhost:3456/reviews/abc123/status" }), &hitl.DetectOptions{AllowPrivateAddresses: true},
			outcome{Interrupt: true}},
		{"case06 [::1] is not localhost", 202, with(func(h map[string]any) { h["poll_url"] = "http://[::1]:3456/s" }), &hitl.DetectOptions{AllowPrivateAddresses: true},
			outcome{Partial: true, Problems: []hitl.FieldError{{"poll_url", "must use https"}}}},
		{"case06 relative poll_url", 202, with(func(h map[string]any) { h["poll_url"] = "/reviews/abc123/status" }), nil,
			outcome{Partial: true, Problems: []hitl.FieldError{{"poll_url", "not an absolute URL"}}}},
		{"private poll_url over https", 202, with(func(h map[string]any) { h["poll_url"] = "https://10.0.0.7/reviews/abc123/status" }), nil,
			outcome{Partial: true, Problems: []hitl.FieldError{{"poll_url", "points at a private address; allowed only with transport.WithAllowPrivateAddresses()"}}}},
		{"link-local events_url", 202, with(func(h map[string]any) { h["events_url"] = "https://[fe80::1]/events" }), nil,
			outcome{Partial: true, Problems: []hitl.FieldError{{"events_url", "points at a private address; allowed only with transport.WithAllowPrivateAddresses()"}}}},
		{"metadata address submit_url", 202, with(func(h map[string]any) {
			h["submit_url"] = "https://169.254.169.254/latest"
			h["submit_token"] = strings.Repeat("t", 40)
		}), nil, outcome{Partial: true, Problems: []hitl.FieldError{{"submit_url", "points at a private address; allowed only with transport.WithAllowPrivateAddresses()"}}}},
		{"localhost over https", 202, with(func(h map[string]any) { h["callback_url"] = "https://localhost:8443/cb" }), nil,
			outcome{Partial: true, Problems: []hitl.FieldError{{"callback_url", "points at a private address; allowed only with transport.WithAllowPrivateAddresses()"}}}},
		{"private address allowed", 202, with(func(h map[string]any) { h["poll_url"] = "https://192.168.1.20/reviews/abc123/status" }),
			&hitl.DetectOptions{AllowPrivateAddresses: true}, outcome{Interrupt: true}},
		{"public address literal", 202, with(func(h map[string]any) { h["poll_url"] = "https://203.0.113.9/reviews/abc123/status" }), nil, outcome{Interrupt: true}},
		{"case07 spec_version 0.5", 202, with(func(h map[string]any) { h["spec_version"] = "0.5" }), nil, outcome{Interrupt: true}},
		{"case07 spec_version 0.7", 202, with(func(h map[string]any) { h["spec_version"] = "0.7" }), nil, outcome{Interrupt: true}},
		{"case07 spec_version 0.9", 202, with(func(h map[string]any) { h["spec_version"] = "0.9"; h["x_future"] = true }), nil, outcome{Interrupt: true, Warnings: 1}},
		{"case07 spec_version missing", 202, with(func(h map[string]any) { delete(h, "spec_version") }), nil,
			outcome{Partial: true, Problems: []hitl.FieldError{{"spec_version", "missing"}}}},
		{"case08 unknown fields", 202, with(func(h map[string]any) { h["x_future"] = map[string]any{"a": 1}; h["a2ui_surface"] = "{}" }), nil, outcome{Interrupt: true}},
		{"case09 custom type", 202, with(func(h map[string]any) { h["type"] = "x-acme" }), nil, outcome{Interrupt: true}},
		{"case09 unknown type", 202, with(func(h map[string]any) { h["type"] = "comparison" }), nil, outcome{Interrupt: true, Warnings: 1}},
		{"case10 submit_url without submit_token", 202, with(func(h map[string]any) { h["submit_url"] = "https://svc.example/reviews/abc123/submit" }), nil, outcome{Interrupt: true, Warnings: 1}},
		{"case11 reminder_at string", 202, with(func(h map[string]any) { h["reminder_at"] = "2026-02-22T20:00:00Z" }), nil, outcome{Interrupt: true}},
		{"case11 reminder_at list with garbage", 202, with(func(h map[string]any) { h["reminder_at"] = []any{"2026-02-22T20:00:00Z", "tomorrow"} }), nil, outcome{Interrupt: true, Warnings: 1}},
		{"case12 timeout PT24H", 202, with(func(h map[string]any) { h["timeout"] = "PT24H" }), nil, outcome{Interrupt: true}},
		{"case12 timeout P1DT12H", 202, with(func(h map[string]any) { h["timeout"] = "P1DT12H" }), nil, outcome{Interrupt: true}},
		{"case12 timeout soon", 202, with(func(h map[string]any) { h["timeout"] = "soon" }), nil, outcome{Interrupt: true, Warnings: 1}},
		{"case12 default_action absent", 202, with(func(h map[string]any) { delete(h, "default_action") }), nil, outcome{Interrupt: true}},
		{"case13 fractional Z", 202, with(func(h map[string]any) { h["created_at"] = "2026-02-22T10:00:00.845Z" }), nil, outcome{Interrupt: true}},
		{"case13 microseconds and offset", 202, with(func(h map[string]any) { h["created_at"] = "2026-02-22T10:00:00.123456+00:00" }), nil, outcome{Interrupt: true}},
		{"case13 not a timestamp", 202, with(func(h map[string]any) { h["expires_at"] = "tomorrow" }), nil,
			outcome{Partial: true, Problems: []hitl.FieldError{{"expires_at", "not an RFC 3339 timestamp"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := response202(t, "https://api.svc.example/v1/search", tt.body)
			resp.StatusCode = tt.status
			it, err := hitl.Detect(resp, tt.opts)
			var got outcome
			got.Interrupt = it != nil
			if it != nil {
				got.Warnings = len(it.Warnings)
			}
			var ie *hitl.InvalidError
			if errors.As(err, &ie) {
				got.Problems, got.Partial = ie.Problems, ie.Case != nil
				if !errors.Is(err, hitl.ErrInvalid) {
					t.Error("InvalidError does not match ErrInvalid")
				}
			} else if err != nil {
				t.Fatalf("Detect: unexpected error %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// The body is always restored for the caller.
			if b, _ := io.ReadAll(resp.Body); string(b) != tt.body {
				t.Errorf("body after Detect = %.60q, want the original", b)
			}
			if err != nil && strings.Contains(err.Error(), "token=") {
				t.Errorf("error leaks the review token: %v", err)
			}
		})
	}
}

// TestDetectNormalises checks the values Detect derives (cases 11, 12, 13, 20).
func TestDetectNormalises(t *testing.T) {
	body := with(func(h map[string]any) {
		delete(h, "default_action")
		h["reminder_at"] = "2026-02-22T20:00:00Z"
		h["created_at"] = "2026-02-22T10:00:00.123456+00:00"
		h["timeout"] = "P1DT12H"
	})
	it, err := hitl.Detect(response202(t, "https://API.svc.example/v1/search", body), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := it.Case
	d, err := duration.Parse(c.Timeout)
	got := []any{c.DefaultAction, c.ReminderAt, c.CreatedAt.Nanosecond(), d, err, it.Origin}
	want := []any{"skip", []time.Time{time.Date(2026, 2, 22, 20, 0, 0, 0, time.UTC)}, 123456000, 36 * time.Hour, nil, "https://api.svc.example:443"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestDetectOversizedBody: a 202 over the limit is an error, and the whole body stays readable.
func TestDetectOversizedBody(t *testing.T) {
	body := envelopeWith(hitlJSON()) + strings.Repeat(" ", 100)
	resp := response202(t, "https://api.svc.example/v1/search", body)
	_, err := hitl.Detect(resp, &hitl.DetectOptions{MaxBody: 64})
	if !errors.Is(err, transport.ErrBodyTooLarge) {
		t.Fatalf("Detect = %v, want ErrBodyTooLarge", err)
	}
	if b, _ := io.ReadAll(resp.Body); string(b) != body {
		t.Errorf("restored body has %d bytes, want %d", len(b), len(body))
	}
	if err := resp.Body.Close(); err != nil {
		t.Error(err)
	}
}

// TestExampleFlowsWithoutCases: the discovery document (07) and the improvement loop's 201s
// (13) are not HITL 202s; Detect leaves them alone.
func TestExampleFlowsWithoutCases(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "hitl-protocol", "13-quality-improvement-loop.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Steps []struct {
			Response *struct {
				StatusCode int             `json:"status_code"`
				Body       json.RawMessage `json:"body"`
			} `json:"response"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, s := range f.Steps {
		if s.Response == nil {
			continue
		}
		seen++
		resp := response202(t, "https://svc.example/v1/cv", string(s.Response.Body))
		resp.StatusCode = s.Response.StatusCode
		if it, err := hitl.Detect(resp, nil); it != nil || err != nil {
			t.Errorf("13: Detect on a %d = %v, %v; want nil, nil", s.Response.StatusCode, it, err)
		}
	}
	if seen == 0 {
		t.Fatal("13: no responses found")
	}
	disc, err := os.ReadFile(filepath.Join("testdata", "hitl-protocol", "07-well-known-hitl.json"))
	if err != nil {
		t.Fatal(err)
	}
	resp := response202(t, "https://svc.example/.well-known/hitl.json", string(disc))
	resp.StatusCode = http.StatusOK
	if it, err := hitl.Detect(resp, nil); it != nil || err != nil {
		t.Errorf("07: Detect = %v, %v; want nil, nil", it, err)
	}
}

// TestLiveServiceCase: a 202 as the live service writes it — no prompt, created_at or
// expires_at, a timeout in Go's or ISO 8601's spelling — is a case whose expiry is its
// timeout after it was received (24 h without a timeout), each gap a warning; in Strict mode
// each is a problem.
func TestLiveServiceCase(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, tt := range []struct {
			timeout any
			want    time.Duration
		}{{"24h", 24 * time.Hour}, {"PT4H", 4 * time.Hour}, {"P1DT12H", 36 * time.Hour}, {"30m", 30 * time.Minute}, {nil, 24 * time.Hour}, {"soon", 24 * time.Hour}} {
			body := with(func(h map[string]any) {
				delete(h, "prompt")
				delete(h, "created_at")
				delete(h, "expires_at")
				if tt.timeout == nil {
					delete(h, "timeout")
				} else {
					h["timeout"] = tt.timeout
				}
			})
			it, err := hitl.Detect(response202(t, "https://api.svc.example/v1/search", body), nil)
			if err != nil {
				t.Fatalf("timeout %v: Detect = %v", tt.timeout, err)
			}
			if !it.Case.CreatedAt.Equal(time.Now()) || !it.Case.ExpiresAt.Equal(time.Now().Add(tt.want)) {
				t.Errorf("timeout %v: created %v, expires %v; want now and %v later", tt.timeout, it.Case.CreatedAt, it.Case.ExpiresAt, tt.want)
			}
			if n := len(it.Warnings); n < 3 {
				t.Errorf("timeout %v: warnings %q; want one per missing field", tt.timeout, it.Warnings)
			}
			_, err = hitl.Detect(response202(t, "https://api.svc.example/v1/search", body), &hitl.DetectOptions{Strict: true})
			var ie *hitl.InvalidError
			if !errors.As(err, &ie) || len(ie.Problems) != 3 {
				t.Errorf("timeout %v, strict: Detect = %v; want the three fields missing", tt.timeout, err)
			}
		}
	})
}
