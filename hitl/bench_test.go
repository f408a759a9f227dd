package hitl_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
)

// reusableBody is a response body that can be rewound between benchmark iterations.
type reusableBody struct{ *bytes.Reader }

func (reusableBody) Close() error { return nil }

// BenchmarkDetect measures Detect on a plain 200 (target: zero allocations), on a HITL 202,
// and, for scale, a plain json.Unmarshal of the same 202 body into a map.
func BenchmarkDetect(b *testing.B) {
	ok200 := bytes.Repeat([]byte(`{"k":"v"},`), 400)
	body202 := []byte(envelopeWith(hitlJSON()))
	b.Run("200", func(b *testing.B) {
		resp := &http.Response{StatusCode: http.StatusOK, Body: reusableBody{bytes.NewReader(ok200)}}
		b.ReportAllocs()
		for b.Loop() {
			if it, err := hitl.Detect(resp, nil); it != nil || err != nil {
				b.Fatal(it, err)
			}
		}
	})
	b.Run("202", func(b *testing.B) {
		req, _ := http.NewRequest(http.MethodPost, "https://api.svc.example/v1/search", nil)
		b.ReportAllocs()
		b.SetBytes(int64(len(body202)))
		for b.Loop() {
			resp := &http.Response{StatusCode: http.StatusAccepted, Request: req, Body: io.NopCloser(bytes.NewReader(body202))}
			if it, err := hitl.Detect(resp, nil); it == nil || err != nil {
				b.Fatal(it, err)
			}
		}
	})
	b.Run("202-json.Unmarshal-baseline", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body202)))
		for b.Loop() {
			var m map[string]any
			if err := json.Unmarshal(body202, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPollRoundTrip measures one Wait that needs one poll, against the fake on loopback,
// beside one bare GET of the same endpoint.
func BenchmarkPollRoundTrip(b *testing.B) {
	svc := hitltest.NewServer(b, hitltest.WithRateLimit(0))
	client, _ := hitl.NewClient(hitl.WithHTTPClient(svc.Client()), hitl.WithAllowLocalHTTP())
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
	b.Run("Wait", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := client.Wait(context.Background(), it, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
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
