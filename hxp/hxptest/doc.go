// Package hxptest is a fake HXP v0.1 server for tests and demos, in the shape of
// net/http/httptest: every endpoint of the HTTP binding (create, get, list, cancel, inbox,
// resolve) and the WebSocket binding at both URL shapes in use (/hxp/ws/{id} as the spec
// writes it, /hxp/ws?request_id= as the reference server serves it), bearer keys for the
// agent and the human, timeouts with each fallback, evidence hashes, a scripted human and
// injected faults.
//
//	srv := hxptest.NewServer(t) // loopback; closed when the test ends
//	client, err := hxp.NewClient(srv.URL, transport.WithHTTPClient(srv.Client()),
//		transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)), transport.WithAllowPrivateAddresses())
//
// The fakes of hitlkit (hitltest, a2atest, hxptest) share one shape, net/http/httptest's
// with a testing.TB: [NewServer] binds loopback only and closes the server when the test
// ends; [NewMemoryServer] serves through an in-memory transport, with no socket, so it works
// inside a testing/synctest bubble; [NewUnstartedServer] with [Server.Start] or
// [Server.StartTLS] is for programs, which call Close themselves. [WithProfile] and
// [Profiles] choose which real servers it behaves as; [Server.FailNext] injects faults (id ""
// means any request); [Server.Requests] is the log of what it received. All methods are safe
// for concurrent use. Called inside a testing/synctest bubble, where a loopback connection
// would hang the test, NewServer fails the test at once: use NewMemoryServer there.
//
// # In a bubble
//
// NewMemoryServer is for time: inside synctest.Test, time is virtual, so a wait for a
// decision made hours later, timeouts and their fallbacks take no time. It is reached only
// through its Client, at https://hxp.test. The in-memory transport carries no WebSocket, so
// its create answers have no ws_url and a wait polls, at the client's poll interval:
//
//	synctest.Test(t, func(t *testing.T) {
//		srv := hxptest.NewMemoryServer(t)
//		client, err := hxp.NewClient(srv.URL, transport.WithHTTPClient(srv.Client()),
//			transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)))
//		// … Create, then Wait: a human answering after hours is there at the next poll.
//	})
//
// Leak checks (go.uber.org/goleak): goleak.VerifyTestMain in TestMain needs nothing more. A
// per-test goleak.VerifyNone must run after the fake is closed: register it with t.Cleanup
// before calling NewServer or NewMemoryServer (cleanups run last-in, first-out), not with
// defer, which runs before the fake's own cleanup and reports its goroutines.
//
// # Profiles
//
// It is a fake server with two profiles, and the tests run against both: ProfileSpec (the
// specification) and ProfileReference (the reference server: ws://localhost:PORT/hxp/ws?request_id=
// whatever host it is called at, a WebSocket that asks for no key, receipts-only replay, any
// JSON as the reason, pause and fail timeouts ending as expired without a receipt, a default
// applied on timeout reported as completed by system, evidence over
// id:JSON(result):completed_at:secret, PROVIDE answers not validated, list limits not capped).
//
// How the decision reaches an hxp.Client: from ProfileSpec, over the WebSocket, whose ws_url
// names the host the client called. From ProfileReference called at [Server.URL]
// (127.0.0.1), ws_url names localhost, another origin: the client sends no key there, the
// receipt pushed there only makes it poll at once, and the decision arrives by that poll.
// Called at localhost, it arrives over the WebSocket (see [ProfileReference]).
package hxptest
