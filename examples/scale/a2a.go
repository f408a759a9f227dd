package main

import (
	"context"
	"crypto/tls"
	"net/http"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/transport"
)

// measureA2A runs n concurrent A2A waits: tasks paused for tool approval on the fake agent
// (1.0 JSON-RPC), each polled with tasks/get every Retry-After by one a2a.Client, each
// answered by a person's client at a random time within the window.
func measureA2A(ctx context.Context, cfg config, n int) (row, error) {
	r := row{Way: "a2a", Waits: n}
	base, roots, stop, err := startServer(ctx, cfg, false, true, false)
	if err != nil {
		return r, err
	}
	defer stop()
	ep := a2a.Endpoint{URL: base + "/rpc", Binding: a2a.JSONRPC10}
	personHC := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16, MaxConnsPerHost: 16,
		TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true}}
	defer personHC.CloseIdleConnections()
	person, err := a2a.NewClient(transport.WithHTTPClient(personHC), transport.WithAllowPrivateAddresses())
	if err != nil {
		return r, err
	}
	var cnt counter
	hc, tr := newHTTPClient(cfg, &cnt, roots)
	agent, err := a2a.NewClient(transport.WithHTTPClient(hc), transport.WithAllowPrivateAddresses(), transport.WithPollInterval(cfg.RetryAfter))
	if err != nil {
		return r, err
	}

	pauses := make([]*a2a.Pause, n)
	err = forEach(n, func(i int) error {
		ev, err := person.Send(ctx, ep, a2a.Message{Parts: []a2a.Part{a2a.TextPart("clean up")}}, nil)
		if err == nil {
			pauses[i] = a2a.NewPause(ep, ev.Task)
		}
		return err
	})
	if err != nil {
		return r, err
	}
	personHC.CloseIdleConnections()
	wait := func(i int) error {
		_, err := agent.Wait(ctx, pauses[i], nil)
		return err
	}
	answer := func(i int) error {
		_, err := person.Resume(ctx, pauses[i], a2a.Approve(pauses[i]))
		return err
	}
	return runWaits(ctx, cfg, r, &cnt, 0, wait, answer, func() {
		tr.CloseIdleConnections()
		personHC.CloseIdleConnections()
	})
}
