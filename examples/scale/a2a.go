package main

import (
	"context"
	"crypto/tls"
	"math/rand/v2"
	"net/http"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/internal/backoff"
)

// measureA2A runs n concurrent A2A waits: tasks paused for tool approval on the fake agent
// (1.0 JSON-RPC), each polled with tasks/get every Retry-After by one a2a.Client, each
// answered by a person's client at a random time within the window.
func measureA2A(ctx context.Context, cfg config, n int) (row, error) {
	r := row{Way: "a2a", Waits: n}
	base, roots, stop, err := startServer(ctx, cfg, false, true)
	if err != nil {
		return r, err
	}
	defer stop()
	ep := a2a.Endpoint{URL: base + "/rpc", Binding: a2a.JSONRPC10}
	personHC := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16, MaxConnsPerHost: 16,
		TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true}}
	defer personHC.CloseIdleConnections()
	person, err := a2a.NewClient(a2a.WithHTTPClient(personHC))
	if err != nil {
		return r, err
	}
	var cnt counter
	hc, tr := newHTTPClient(&cnt, roots)
	agent, err := a2a.NewClient(a2a.WithHTTPClient(hc), a2a.WithPollInterval(cfg.RetryAfter))
	if err != nil {
		return r, err
	}

	pauses := make([]*a2a.Pause, n)
	var cwg sync.WaitGroup
	sem := make(chan struct{}, 32)
	var firstErr error
	var mu sync.Mutex
	for i := range pauses {
		sem <- struct{}{}
		cwg.Go(func() {
			defer func() { <-sem }()
			ev, err := person.Send(ctx, ep, a2a.Message{Parts: []a2a.Part{a2a.TextPart("clean up")}}, nil)
			if err == nil {
				pauses[i] = a2a.NewPause(ep, ev.Task)
			}
			mu.Lock()
			firstErr = cmpOr(firstErr, err)
			mu.Unlock()
		})
	}
	cwg.Wait()
	if firstErr != nil {
		return r, firstErr
	}
	personHC.CloseIdleConnections()
	before := snap()

	type done struct {
		at  time.Time
		err error
	}
	results := make([]done, n)
	began := time.Now()
	var wg sync.WaitGroup
	for i, p := range pauses {
		wg.Go(func() {
			_, err := agent.Wait(ctx, p, nil)
			results[i] = done{time.Now(), err}
		})
	}
	if !backoff.Pause(ctx, 3*time.Second, nil) {
		return r, ctx.Err()
	}
	during := snap()
	r.HeapPerWait = float64(int64(during.heap)-int64(before.heap)) / float64(n)
	r.RSSPerWait = float64(int64(during.rss)-int64(before.rss)) / float64(n)
	r.GoroutinesPerWait = float64(during.goroutines-before.goroutines) / float64(n)
	r.Sockets = during.sockets - before.sockets

	rng := rand.New(rand.NewPCG(uint64(cfg.Seed), uint64(n)))
	offsets := make([]time.Duration, n)
	order := make([]int, n)
	for i := range order {
		order[i], offsets[i] = i, time.Duration(rng.Int64N(int64(cfg.Window)))
	}
	slices.SortFunc(order, func(a, b int) int { return int(offsets[a] - offsets[b]) })
	decided := make([]time.Time, n)
	start := time.Now()
	var dwg sync.WaitGroup
	for _, i := range order {
		if !backoff.Pause(ctx, time.Until(start.Add(offsets[i])), nil) {
			return r, ctx.Err()
		}
		sem <- struct{}{}
		dwg.Go(func() {
			defer func() { <-sem }()
			decided[i] = time.Now()
			_, _ = person.Resume(ctx, pauses[i], a2a.HectorDecision(true))
		})
	}
	dwg.Wait()
	wg.Wait()

	var lastDecision, lastDone time.Time
	lat := make([]time.Duration, 0, n)
	for i, d := range results {
		if d.err != nil {
			r.Failed++
			continue
		}
		r.MinRequests += int64((decided[i].Sub(began)+cfg.RetryAfter-1)/cfg.RetryAfter) + 1
		lastDecision, lastDone = latest(lastDecision, decided[i]), latest(lastDone, d.at)
		lat = append(lat, d.at.Sub(decided[i]))
	}
	r.LastDecisionToDone = lastDone.Sub(lastDecision)
	slices.Sort(lat)
	if len(lat) > 0 {
		r.P50, r.P99 = lat[len(lat)/2], lat[len(lat)*99/100]
	}
	r.Requests, r.Bytes = cnt.requests.Load(), cnt.bytes.Load()
	tr.CloseIdleConnections()
	personHC.CloseIdleConnections()
	if !backoff.Pause(ctx, 500*time.Millisecond, nil) {
		return r, ctx.Err()
	}
	r.Leftover = runtime.NumGoroutine() - before.goroutines
	return r, nil
}
