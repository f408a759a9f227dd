package hitl_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

// createdTask is what the JavaScript SDK's REST 0.3 binding answers a send with: 201 Created,
// plain JSON, the task in TASK_STATE_INPUT_REQUIRED.
const createdTask = `{"id":"t-201","contextId":"c1","status":{"state":"TASK_STATE_INPUT_REQUIRED","message":{"messageId":"q1","role":"ROLE_AGENT","content":[{"text":"Approve delete_file?"}]}}}`

type failingBody struct{}

func (failingBody) Read([]byte) (int, error) { return 0, errors.New("connection reset") }
func (failingBody) Close() error             { return nil }

// TestDetectA2ACreated: a task paused for a human is detected whatever 2xx carries it — a
// 201 from a REST 0.3 send, unmarked, with and without the A2A option; a 201 marked as A2A;
// a 202 that is an A2A answer, not a HITL case — by Detect and by Client.Do; a body that
// cannot be read is an error, never "no human needed".
func TestDetectA2ACreated(t *testing.T) {
	rest03 := func(status int, body io.ReadCloser) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, "https://agent.example/a2a/v1/message:send", nil)
		return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}}, Body: body, Request: req}
	}
	for _, status := range []int{http.StatusCreated, http.StatusOK} {
		for _, opts := range []*hitl.DetectOptions{nil, {A2A: true}} {
			it, err := hitl.Detect(rest03(status, io.NopCloser(strings.NewReader(createdTask))), opts)
			if err != nil || it == nil || it.Kind != hitl.KindA2AInput || it.ID() != "t-201" || it.Prompt() != "Approve delete_file?" {
				t.Errorf("%d, A2A option %v: Detect = %v, %v", status, opts != nil, it, err)
			}
		}
	}
	marked := &http.Response{StatusCode: http.StatusCreated, Header: http.Header{"Content-Type": {"application/a2a+json"}},
		Body: io.NopCloser(strings.NewReader(`{"task":` + strings.ReplaceAll(createdTask, "content", "parts") + `}`))}
	if it, err := hitl.Detect(marked, nil); err != nil || it == nil || it.ID() != "t-201" {
		t.Errorf("marked 201: Detect = %v, %v", it, err)
	}
	accepted := &http.Response{StatusCode: http.StatusAccepted, Header: http.Header{"Content-Type": {"application/a2a+json"}},
		Body: io.NopCloser(strings.NewReader(createdTask))}
	if it, err := hitl.Detect(accepted, nil); err != nil || it == nil || it.ID() != "t-201" {
		t.Errorf("A2A 202: Detect = %v, %v", it, err)
	}
	plain202 := &http.Response{StatusCode: http.StatusAccepted, Body: io.NopCloser(strings.NewReader(`{"job":"queued"}`))}
	if it, err := hitl.Detect(plain202, &hitl.DetectOptions{A2A: true}); it != nil || err != nil {
		t.Errorf("plain 202: Detect = %v, %v", it, err)
	}
	for _, opts := range []*hitl.DetectOptions{nil, {A2A: true}} {
		if it, err := hitl.Detect(rest03(http.StatusCreated, failingBody{}), opts); it != nil || err == nil {
			t.Errorf("unreadable 201: Detect = %v, %v", it, err)
		}
	}

	for _, withA2A := range []bool{false, true} {
		opts := []transport.Option{transport.WithHTTPClient(&http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
			resp := rest03(http.StatusCreated, io.NopCloser(strings.NewReader(createdTask)))
			resp.Request = r
			return resp, nil
		})})}
		if withA2A {
			opts = append(opts, hitl.WithA2A())
		}
		c, err := hitl.NewClient(opts...)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, "https://agent.example/a2a/v1/message:send", strings.NewReader(`{}`))
		resp, err := c.Do(t.Context(), req, &hitl.CallOptions{DetectOnly: true})
		if err != nil || resp.Interrupt == nil || resp.Interrupt.ID() != "t-201" {
			t.Errorf("Do (WithA2A %v) = %+v, %v", withA2A, resp, err)
			continue
		}
		_ = resp.Body.Close()
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
