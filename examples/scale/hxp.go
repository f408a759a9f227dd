package main

import (
	"context"
	"net/http"

	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
	"github.com/hitlkit/hitlkit/transport"
)

// measureHXP runs n concurrent HXP waits (the request's WebSocket, polls underneath) on the
// fake HXP server over plain HTTP/1.1 — WebSockets do not ride HTTP/2 here — each resolved
// by the human at a random time within the window.
func measureHXP(ctx context.Context, cfg config, n int) (row, error) {
	r := row{Way: "hxp", Waits: n}
	base, _, stop, err := startServer(ctx, cfg, false, false, true)
	if err != nil {
		return r, err
	}
	defer stop()
	personHC := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16, MaxConnsPerHost: 16}}
	defer personHC.CloseIdleConnections()
	common := []transport.Option{transport.WithHTTPClient(personHC), transport.WithAllowPrivateAddresses()}
	creator, err := hxp.NewClient(base, append(common, transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)))...)
	if err != nil {
		return r, err
	}
	human, err := hxp.NewClient(base, append(common, hxp.WithHumanAuthorization(transport.StaticToken(hxptest.DefaultHumanToken)))...)
	if err != nil {
		return r, err
	}
	var cnt counter
	hc, tr := newHTTPClient(cfg, &cnt, nil)
	// Over HTTP/1.1 an idle pool as deep as the number of waits would keep one poll
	// connection per wait beside its WebSocket; a pool of 64 is what an agent would configure.
	tr.MaxIdleConnsPerHost = 64
	agent, err := hxp.NewClient(base, transport.WithHTTPClient(hc), transport.WithAllowPrivateAddresses(),
		transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)), transport.WithPollInterval(cfg.RetryAfter))
	if err != nil {
		return r, err
	}

	created := make([]*hxp.Created, n)
	err = forEach(n, func(i int) error {
		var err error
		created[i], err = creator.Create(ctx, &hxp.Request{Role: hxp.RoleOwner, Priority: hxp.PriorityNormal, TimeoutSeconds: 3600,
			Fallback: hxp.FallbackPause, Decide: &hxp.Decide{Question: "Approve $99/mo Stripe plan?", Options: []string{"Approve", "Deny"}}})
		return err
	})
	if err != nil {
		return r, err
	}
	personHC.CloseIdleConnections()
	wait := func(i int) error {
		_, err := agent.Wait(ctx, created[i], nil)
		return err
	}
	answer := func(i int) error {
		_, err := human.Resolve(ctx, created[i].RequestID, "Approve", "")
		return err
	}
	return runWaits(ctx, cfg, r, &cnt, 0, wait, answer, func() {
		tr.CloseIdleConnections()
		personHC.CloseIdleConnections()
	})
}
