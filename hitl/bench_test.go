package hitl_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// reusableBody is a response body that can be rewound between benchmark iterations.
type reusableBody struct{ *bytes.Reader }

func (reusableBody) Close() error { return nil }

// BenchmarkDetect measures Detect on plain 200s of several sizes (target: zero
// allocations, whatever the size), on a 200 to a JSON POST, on a HITL 202, on A2A answers (a
// 1.0 JSON-RPC envelope, a 0.3 REST task and an unmarked 0.3 JSON-RPC envelope, each paused
// for input), and, beside each body Detect reads, a plain json.Unmarshal of it into a map.
func BenchmarkDetect(b *testing.B) {
	for _, size := range []int{100, 4 << 10, 1 << 20} {
		ok200 := bytes.Repeat([]byte(`{"k":"v"},`), size/10)
		b.Run(fmt.Sprintf("200-%dB", len(ok200)), func(b *testing.B) {
			req, _ := http.NewRequest(http.MethodGet, "https://api.example/items", nil)
			resp := &http.Response{StatusCode: http.StatusOK, Request: req, Header: http.Header{"Content-Type": {"application/json"}}, Body: reusableBody{bytes.NewReader(ok200)}}
			b.ReportAllocs()
			for b.Loop() {
				if it, err := hitl.Detect(resp, nil); it != nil || err != nil {
					b.Fatal(it, err)
				}
			}
		})
	}
	// A 200 to a JSON POST that is no JSON-RPC call: only the request's body is looked at
	// again (is it an A2A JSON-RPC call?), never the answer's.
	b.Run("200-json-post", func(b *testing.B) {
		req, _ := http.NewRequest(http.MethodPost, "https://api.example/v1/chat", strings.NewReader(chatRequest))
		req.Header.Set("Content-Type", "application/json")
		resp := &http.Response{StatusCode: http.StatusOK, Request: req, Header: http.Header{"Content-Type": {"application/json"}}, Body: reusableBody{bytes.NewReader([]byte(`{"ok":true}`))}}
		b.ReportAllocs()
		for b.Loop() {
			if it, err := hitl.Detect(resp, nil); it != nil || err != nil {
				b.Fatal(it, err)
			}
		}
	})
	bodies := []struct {
		name   string
		status int
		url    string
		header http.Header
		body   []byte
	}{
		{"hitl-202", http.StatusAccepted, "https://api.svc.example/v1/search", nil, []byte(envelopeWith(hitlJSON()))},
		{"a2a-jsonrpc-1.0", http.StatusOK, "https://agent.example/rpc", http.Header{"A2a-Version": {"1.0"}}, []byte(a2aEnvelope10)},
		{"a2a-rest-0.3", http.StatusOK, "https://agent.example/v1/message:send", nil, []byte(a2aREST03)},
		{"a2a-jsonrpc-0.3-unmarked", http.StatusOK, "https://agent.example/rpc", http.Header{"Content-Type": {"application/json"}}, []byte(a2aEnvelope03)},
	}
	for _, tc := range bodies {
		b.Run(tc.name, func(b *testing.B) {
			var sent io.Reader
			if tc.name == "a2a-jsonrpc-0.3-unmarked" {
				sent = strings.NewReader(a2aSend03) // read again to find the method
			}
			req, _ := http.NewRequest(http.MethodPost, tc.url, sent)
			req.Header = tc.header
			opts := &hitl.DetectOptions{A2A: tc.name == "a2a-rest-0.3"}
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.body)))
			for b.Loop() {
				resp := &http.Response{StatusCode: tc.status, Request: req, Header: tc.header, Body: io.NopCloser(bytes.NewReader(tc.body))}
				if it, err := hitl.Detect(resp, opts); it == nil || err != nil {
					b.Fatal(it, err)
				}
			}
		})
		b.Run(tc.name+"-json.Unmarshal-baseline", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.body)))
			for b.Loop() {
				var m map[string]any
				if err := json.Unmarshal(tc.body, &m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A2A answers as a2a-go v2.4.0 sends them: a 1.0 JSON-RPC SendMessage result and a 0.3 REST
// task, each paused for tool approval.
const (
	a2aEnvelope10 = `{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"01a2b3c4-0000-7000-8000-000000000001","contextId":"01a2b3c4-0000-7000-8000-000000000002",` +
		`"history":[{"messageId":"m0","role":"ROLE_USER","parts":[{"text":"Delete last month's reports."}]}],"metadata":{},` +
		`"status":{"message":{"messageId":"m1","role":"ROLE_AGENT","parts":[{"text":"Tool approval required: delete_file. Reply approve or deny."},` +
		`{"data":{"interaction_type":"tool_approval","tool_name":"delete_file","options":["approve","deny"]}}]},"state":"TASK_STATE_INPUT_REQUIRED","timestamp":"2026-11-22T10:00:00Z"}}}}`
	a2aEnvelope03 = `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"01a2b3c4-0000-7000-8000-000000000001","contextId":"01a2b3c4-0000-7000-8000-000000000002",` +
		`"status":{"message":{"kind":"message","messageId":"m1","role":"agent","parts":[{"kind":"text","text":"Tool approval required: delete_file. Reply approve or deny."},` +
		`{"kind":"data","data":{"interaction_type":"tool_approval","tool_name":"delete_file","options":["approve","deny"]}}]},"state":"input-required","timestamp":"2026-11-22T10:00:00Z"}}}`
	a2aSend03   = `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m0","role":"user","parts":[{"kind":"text","text":"Delete last month's reports."}]}}}`
	chatRequest = `{"model":"m","messages":[{"role":"user","content":"Summarise last month's reports in three lines."}],"temperature":0.2,"max_tokens":512}`
	a2aREST03   = `{"task":{"id":"01a2b3c4-0000-7000-8000-000000000001","contextId":"01a2b3c4-0000-7000-8000-000000000002",` +
		`"status":{"message":{"messageId":"m1","role":"ROLE_AGENT","content":[{"text":"Tool approval required: delete_file. Reply approve or deny."},` +
		`{"data":{"data":{"interaction_type":"tool_approval","tool_name":"delete_file","options":["approve","deny"]}}}]},"state":"TASK_STATE_INPUT_REQUIRED","timestamp":"2026-11-22T10:00:00Z"}}}`
)

// BenchmarkPollRoundTrip measures one Wait that needs one poll (PollOnly: a decided case's
// event stream would otherwise carry the outcome before any poll), against the fake on
// loopback, beside one bare GET of the same endpoint. A first Wait outside the measurement
// lets the 202's Retry-After pass, so that each measured Wait polls at once.
func BenchmarkPollRoundTrip(b *testing.B) {
	svc := hitltest.NewServer(b, hitltest.WithRateLimit(0))
	client, _ := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses())
	req, _ := http.NewRequest(http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{}`))
	resp, err := client.Do(context.Background(), req, &hitl.CallOptions{DetectOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	it := resp.Interrupt
	if err := svc.Respond(it.ID(), "approve", nil, nil); err != nil {
		b.Fatal(err)
	}
	pollOnly := &hitl.WaitOptions{PollOnly: true}
	if _, err := client.Wait(context.Background(), it, pollOnly); err != nil {
		b.Fatal(err)
	}
	before := len(svc.Requests())
	b.Run("Wait", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := client.Wait(context.Background(), it, pollOnly); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, q := range svc.Requests()[before:] {
		if q.Path != "/reviews/"+it.ID()+"/status" {
			b.Fatalf("a measured Wait sent %s %s; want only polls", q.Method, q.Path)
		}
	}
	b.Run("bare-GET", func(b *testing.B) {
		b.ReportAllocs()
		hc := svc.Client()
		for b.Loop() {
			r, err := hc.Get(it.Case.PollURL)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, r.Body)
			r.Body.Close()
		}
	})
}

// BenchmarkTransportPassThrough measures a plain 200 over loopback through the base
// transport alone and through Client.Transport around it: the allocations per request
// must be the same (TestTransportPassThroughAllocs asserts it without a network).
func BenchmarkTransportPassThrough(b *testing.B) {
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"items":[1,2,3]}`)
	}))
	defer svc.Close()
	base := svc.Client().Transport
	client, err := hitl.NewClient(transport.WithAllowPrivateAddresses(), hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error { return nil }))
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		rt   http.RoundTripper
	}{{"base", base}, {"hitl", client.Transport(base, nil)}} {
		b.Run(tc.name, func(b *testing.B) {
			req, _ := http.NewRequest(http.MethodGet, svc.URL+"/items", nil)
			b.ReportAllocs()
			for b.Loop() {
				resp, err := tc.rt.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			}
		})
	}
}
