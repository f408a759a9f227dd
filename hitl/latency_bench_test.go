package hitl_test

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// BenchmarkDecisionLatency measures, on loopback, the time from a human's decision (the fake
// service recording it) to Wait returning, over b.N decisions, for each way of learning it;
// and, in the same run, one bare HTTP round trip to the same server (a GET of a poll URL,
// made just before each stream or callback decision, after the decisions when polling). It
// reports p50 and p99 of each in milliseconds. Run it with -benchtime 1000x for 1,000
// decisions.
//
// All b.N waits run at once, each with its own case. Stream and callback decisions are made
// one at a time, with polls paced at 30 s (the first poll waits for the 202's Retry-After),
// once every stream is open and a second has passed. Polling decisions (Retry-After 1 s)
// are made at random moments over 2 s, after every wait has polled once.
//
// Modes: poll; sse (the service's review.completed event carries the outcome: no poll);
// sse-h2 (the same, the service over TLS with HTTP/2 as production services run, the round
// trip too); callback (a signed callback, confirmed by a poll, the default);
// callback-trusted (CallbacksOptions.Decide: the callback is the outcome). The other modes
// speak plain HTTP/1.1.
func BenchmarkDecisionLatency(b *testing.B) {
	for _, mode := range []string{"poll", "sse", "sse-h2", "callback", "callback-trusted"} {
		b.Run(mode, func(b *testing.B) { benchDecisions(b, mode) })
	}
}

func benchDecisions(b *testing.B, mode string) {
	n := b.N
	// Polls are paced at 1 s for the polling mode; with a stream or callbacks at 30 s, a
	// common service setting, so that a decision rarely falls within the second after a poll.
	pace := 30 * time.Second
	if mode == "poll" {
		pace = time.Second
	}
	opts := []hitltest.Option{hitltest.WithRetryAfter(pace), hitltest.WithRateLimit(0)}
	streams := strings.HasPrefix(mode, "sse")
	if !streams {
		opts = append(opts, hitltest.WithoutEvents())
	}
	var copts []transport.Option
	callbackURL := ""
	if strings.HasPrefix(mode, "callback") {
		cb, err := hitl.NewCallbacks([]byte(hitltest.DefaultCallbackSecret), &hitl.CallbacksOptions{Decide: mode == "callback-trusted"})
		if err != nil {
			b.Fatal(err)
		}
		agent := httptest.NewServer(cb)
		defer agent.Close()
		callbackURL = agent.URL + "/hitl/callbacks"
		copts = append(copts, hitl.WithCallbacks(cb))
	}
	svc := hitltest.NewUnstartedServer(opts...)
	if mode == "sse-h2" {
		svc.StartTLS()
	} else {
		svc.Start()
	}
	defer svc.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 2*n + 16}
	if mode == "sse-h2" {
		tr = svc.Client().Transport.(*http.Transport).Clone()
	}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	copts = append(copts, transport.WithHTTPClient(hc), transport.WithAllowPrivateAddresses())
	if mode == "sse-h2" {
		copts = append(copts, transport.WithAllowPrivateAddresses()) // https://127.0.0.1
	}
	client, err := hitl.NewClient(copts...)
	if err != nil {
		b.Fatal(err)
	}

	its := make([]*hitl.Interrupt, n)
	for i := range its {
		req, _ := http.NewRequest(http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{}`))
		resp, err := client.Do(context.Background(), req, &hitl.CallOptions{DetectOnly: true, CallbackURL: callbackURL})
		if err != nil || resp.Interrupt == nil {
			b.Fatal(resp, err)
		}
		resp.Body.Close()
		its[i] = resp.Interrupt
	}

	ended := make([]chan time.Time, n)
	var wg sync.WaitGroup
	b.ResetTimer()
	for i, it := range its {
		ended[i] = make(chan time.Time, 1)
		wg.Go(func() {
			res, err := client.Wait(context.Background(), it, nil)
			ended[i] <- time.Now()
			if err != nil || res.Action != "approve" {
				b.Errorf("Wait = %+v, %v", res, err)
			}
		})
	}
	ready(b, svc, its, mode == "poll", streams)

	lat, bare := make([]time.Duration, n), make([]time.Duration, n)
	roundTrip := func(i int) {
		start := time.Now()
		r, err := hc.Get(its[i].Case.PollURL)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
		bare[i] = time.Since(start)
	}
	if mode == "poll" {
		var dwg sync.WaitGroup
		for i, it := range its {
			dwg.Go(func() {
				<-time.After(rand.N(2 * time.Second))
				decided := time.Now()
				if err := svc.Respond(it.ID(), "approve", nil, nil); err != nil {
					b.Error(err)
				}
				lat[i] = (<-ended[i]).Sub(decided)
			})
		}
		dwg.Wait()
	} else {
		for i, it := range its {
			roundTrip(i)
			decided := time.Now()
			if err := svc.Respond(it.ID(), "approve", nil, nil); err != nil {
				b.Fatal(err)
			}
			lat[i] = (<-ended[i]).Sub(decided)
		}
	}
	wg.Wait()
	b.StopTimer()
	if mode == "poll" {
		for i := range bare {
			roundTrip(i)
		}
	}
	p50, p99 := percentiles(lat)
	r50, r99 := percentiles(bare)
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(p99), "p99-ms")
	b.ReportMetric(ms(r50), "rtt-p50-ms")
	b.ReportMetric(ms(r99), "rtt-p99-ms")
	b.ReportMetric(float64(p50)/float64(r50), "p50/rtt")
}

// ready returns once every case has been polled (when polls is set) and, with streams, every
// stream is open, and a second has passed since.
func ready(b *testing.B, svc *hitltest.Server, its []*hitl.Interrupt, polls, streams bool) {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		polled, open := map[string]bool{}, map[string]bool{}
		for _, r := range svc.Requests() {
			switch {
			case strings.HasSuffix(r.Path, "/status"):
				polled[r.CaseID] = true
			case strings.HasSuffix(r.Path, "/events"):
				open[r.CaseID] = true
			}
		}
		if (!polls || len(polled) == len(its)) && (!streams || len(open) == len(its)) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("only %d of %d waits polled and %d streams open", len(polled), len(its), len(open))
		}
		<-time.After(20 * time.Millisecond)
	}
	<-time.After(1100 * time.Millisecond)
}

func percentiles(d []time.Duration) (p50, p99 time.Duration) {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)*50/100], s[min(len(s)*99/100, len(s)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
