// Package hitl is hitlkit's front door: it recognises that a service or another agent needs a
// human ([Detect]), puts the question in front of the agent's human (a [Forwarder]), waits
// for the decision over whatever the other side offers, and returns one typed [transport.Result],
// whose Approved is the only go-ahead.
//
//	client, err := hitl.NewClient(hitl.WithForwarder(hitl.WriteTo(os.Stdout)))
//	if err != nil {
//		return err
//	}
//	resp, err := client.Do(ctx, req, nil)
//	if err != nil {
//		return err // a decision that is not a go-ahead (ErrNotApproved), or the outcome is unknown
//	}
//	defer resp.Body.Close()
//	if resp.Result == nil && resp.StatusCode >= 300 {
//		return fmt.Errorf("service: %s", resp.Status) // no human was asked: the service failed
//	}
//	// The service answered without needing a human, or a human approved: go ahead.
//
// It speaks the HITL Protocol (v0.5 to v0.8: a 202 with a hitl object, polling with
// Retry-After and ETag, Server-Sent Events, signed callbacks, inline submit, forms,
// reminders, multi-round reviews, discovery), and recognises A2A tasks paused for a human
// (input-required, auth-required, relay holds), which it carries to their end with package
// a2a. [Client.Do] wraps an outbound call: when no human is needed it returns the response
// untouched, with or without a forwarder. Package hitltest is a fake service for tests; the sections below are the detail.
//
// # Clients
//
// Every client in hitlkit is built the same way: NewClient(opts ...transport.Option) — or,
// where a base URL is intrinsic (hxp, hi), NewClient(baseURL, opts ...transport.Option). The
// options every client shares are package transport's ([transport.WithHTTPClient],
// [transport.WithLogger], [transport.WithAuthorization] with a [transport.Credential] such as
// transport.StaticToken("sk-…") or, for a token that rotates, any func(ctx) (string, error)
// returning "Bearer " + token per request, [transport.WithPollInterval], [transport.WithMaxBody],
// [transport.WithRequestTimeout], [transport.WithMaxPollsInFlight],
// [transport.WithAllowPrivateAddresses], the one escape from the address rules, for tests and
// private networks); this package's With functions are the hitl client's own, of the same type:
//
//	hitl.NewClient(transport.WithHTTPClient(hc), hitl.WithForwarder(f))
//
// A bad option value, or an option of another client, makes NewClient fail with a
// [transport.ErrInvalidOption], never ignored. Per-call knobs are a nil-able options struct
// ([CallOptions], [WaitOptions]). CallOptions{DetectOnly: true} returns the [Interrupt]
// without waiting; it marshals to JSON, so another process can [Client.Wait] on it later.
// [Detect] recognises a HITL 202 in a response you already have.
//
// # Decisions
//
// Only [transport.Result.Approved] is a go-ahead. [Client.Do] and [Client.Transport] return
// every other decision — a rejection, an expiry (even when the service's default_action is
// "approve"), a cancellation, a failure, an answer that is not a yes — as a
// [*NotApprovedError] holding the Result and the Interrupt (errors.Is matches
// [ErrNotApproved]), so code that only checks err never goes ahead on a "no"; through
// Transport, only an approval is a 2xx. A caller that reads every decision itself sets
// [CallOptions].EveryDecisionOK. [Client.Wait] returns the Result alone, whatever it is:
// check Approved before acting.
//
// Approved is true only when a human approved and the case completed, the same way for every
// protocol. Result.Decision names the human's decision in words every protocol shares:
// approve, reject (a relay administrator's rejection is one), or answer for anything else a
// human gave (an edit, a choice, values; the review type's reader, such as [SelectionOf],
// gives the data); it is empty exactly when no human decided. Result.Action keeps the
// protocol's own word (approve, approved, edit, an HXP option's text). When a wait ends
// undecided after a human was asked, the Interrupt can be kept (it marshals to JSON) and
// waited on later with [Client.Wait], or kept by [WithStore] for [Client.Resume].
//
// # Inside a library that takes an *http.Client
//
// An LLM provider's SDK, an MCP or A2A client, a generated API client: most take only an
// *http.Client. [Client.Transport] is an http.RoundTripper that handles each of their calls as
// [Client.Do] does (the same code); its documentation says what a 2xx body is after a human
// was asked and how a decision that is not a go-ahead reaches the library's caller. Every
// other answer, streams included, comes back untouched, with no allocation added — but for a
// JSON answer to a JSON POST, whose request body's first 4 KiB is read again (two
// allocations, 48 bytes, whatever the body's size) to see whether it was an A2A JSON-RPC call.
// The answer to an A2A JSON-RPC call marked as A2A no other way passes through too: the A2A
// SDK client that sent it reads the task itself. A marked A2A answer is waited for, and its
// decided body is the task the run ended with, spelled as the agent's answer in the binding
// the caller spoke (a2a.Reply), so an A2A SDK client reads it as the agent's own
// (TestA2AGoClientBehindTransport, a2a-go's client against its server). A request body is
// sent once (with CallOptions.CallbackURL it is read through GetBody, or buffered up to
// 1 MiB); a cancelled request's context ends the wait with its cause; with [WithStore] the
// question is kept until the decision, as with Do.
//
// # Waiting
//
// The poll URL is the source of truth, polled for the whole wait within the service's
// pacing; an event or a callback makes it poll at once, unless it carries the complete
// outcome and comes from the service's own stream (or is a verified callback the caller
// trusts, [CallbacksOptions].Decide). A human's answer, an expiry (with the
// default action applied) and a cancellation are Results; an error means the outcome is
// unknown. Every wait ends: at the decision, at the case's expiry plus a grace, or when the
// caller's context does, returning context.Cause(ctx); it leaves no goroutine behind.
//
// # Waiting in real time
//
// Wait (and Do) need nothing more to use a case's events_url: the stream opens at once,
// reports opened, in_progress and reminders to WaitOptions.OnUpdate. A terminal event from
// the service's own stream (the poll URL's origin) that carries the complete outcome for this
// case is the Result at once; any other terminal event makes the wait poll at once to confirm. The first poll waits for the 202's Retry-After (the
// reference services send 30 s), unless an event or a callback says the case ended. A stream the
// service refuses (204, 401, 403, 404, 410, not text/event-stream) or that keeps failing is
// dropped; polling carries on. A case without an events_url still gets a stream when the
// service's discovery document advertises one (sse among its transports, streams at
// {reviews_base}/{case_id}/events or an events_base with a {case_id} placeholder) on the
// poll URL's origin: WithAutoDiscovery fetches that document on first contact (once per
// origin, cached), or call Client.Discover yourself. hitltest.WithProfile(ProfileReference)
// serves cases the way the reference services do — no events_url, streams advertised in
// discovery, a first review.pending event, Last-Event-ID ignored, streams left open after the
// end, Retry-After: 30 on the 202 — and the tests run against it as well as the
// specification's profile.
//
// hitltest.ProfileLive serves cases as the one production HITL service found does (spec
// 0.6, per its public agent guide), exactly where it departs from the specification, and the
// tests run against it too (TestLiveServiceEndToEnd, TestLiveServiceCallbacks,
// TestLiveServiceAnswerMayChange). Its 202 has timeout: "24h" and no prompt,
// created_at or expires_at: the case is taken as created when received and expiring
// after its timeout (Go's or ISO 8601's spelling; 24 h without one), each gap an
// Interrupt.Warnings entry (a problem with DetectOptions.Strict). Each of its event streams
// opens with a review.status event carrying the poll response's fields (ids
// {case_id}-{counter}): it is read as the case's status, so a case decided before the wait
// began ends it at once. Its callbacks are signed X-HITL-Signature: algorithm=HS256,
// value=<base64url>, verified like §9's sha256=<hex>. It paces polls with Retry-After 30 s
// while pending and 10 s while the human is at the case, which Wait follows. And it lets a
// submitted answer change for five minutes, then answers 409; the protocol has no field for
// that, so say so with WaitOptions.ChangeWindow: the Result's FinalAt is then when the
// answer becomes final (completed_at plus the window; without completed_at, the window
// runs from when the answer was first seen and later polls do not restart it), and before doing anything that cannot be undone,
// client.Final(ctx, it, r, o) waits until then and returns what the service holds — the
// answer the human may have changed. Each departure is logged once per client at debug.
//
// # Callbacks
//
// An agent with a public endpoint can also take callbacks:
//
//	callbacks, err := hitl.NewCallbacks(secretFromService, nil) // verifies X-HITL-Signature
//	mux.Handle("POST /hitl/callbacks", callbacks)
//	client, err := hitl.NewClient(hitl.WithCallbacks(callbacks), hitl.WithForwarder(fwd))
//	resp, err := client.Do(ctx, req, &hitl.CallOptions{CallbackURL: "https://agent.example/hitl/callbacks"})
//
// CallbackURL adds hitl_callback_url to the request's JSON body (hitl.SetCallbackURL does it
// for a body you build yourself). A forged or unsigned callback gets 401 and wakes nothing; a
// duplicate gets 200 and wakes nothing; one that arrives before Wait begins is kept and wakes
// it. WaitOptions{PollOnly: true} ignores both.
//
// A callback is a reason to poll, as the protocol advises. CallbacksOptions{Decide: true}
// lets a verified callback that carries the complete outcome end the wait without that poll, one
// network leg sooner. The trade-off: the HMAC proves the callback came from a holder of the
// shared secret and was not altered, but the poll it saves is the only check that the service's
// record still says the same — a callback for an outcome the service later corrected, or one
// forged with a leaked secret, would be taken as it is. Turn it on when the secret is well kept
// and the latency matters; it is off by default.
//
// Anyone can reach a callback receiver (and a2a.PushReceiver), and a body can be verified only
// once it is read, so each reads at most 64 KiB per body (CallbacksOptions.MaxBody), within
// 10 s (ReadTimeout, the connection's read deadline: a slow or stalled body is cut), and at
// most 64 bodies at once (MaxConcurrentReads; more are answered 503 at once). A refused
// request's connection is closed. Serve them from an http.Server that bounds the rest:
//
//	srv := &http.Server{
//		Addr:              ":8443",
//		Handler:           mux,
//		ReadHeaderTimeout: 10 * time.Second, // a client trickling its headers is cut
//		IdleTimeout:       2 * time.Minute,
//		MaxHeaderBytes:    16 << 10,
//	}
//
// # Waiting for days
//
// A person may answer days later, after the agent's process has restarted or moved. With a
// store, the client keeps every interrupt it waits on, and a new process picks them up:
//
//	store, err := filestore.Open("/var/lib/agent/hitl.db") // or &hitl.MemoryStore{}
//	if err != nil {
//		return err // it says what to do: a private directory, a file of this user's
//	}
//	defer store.Close()
//	client, err := hitl.NewClient(hitl.WithStore(store), hitl.WithForwarder(fwd))
//	// … after a restart:
//	err = client.Resume(ctx, func(ctx context.Context, it *hitl.Interrupt, r *transport.Result) error {
//		return record(it.ID(), r) // your own: nil deletes the interrupt from the store
//	}, nil)
//
// Interrupt.Labels (set with CallOptions.Labels) are the caller's own keys — a framework's
// session and call id, a ticket — kept with the interrupt and never sent anywhere, so a Resume
// handler knows where each Result belongs. Do and Wait put the interrupt in the store before
// anyone is asked and before waiting (a forwarder's own Labels are kept too), and delete it
// once they return a Result; Resume waits on every interrupt left, at once, and deletes each only after the
// handler returned nil — a crash in between delivers that Result again next time (at least once,
// never lost). A record the store cannot read (written by another version, or damaged) stops
// no other: List returns the rest with a *hitl.RecordError (its key and why) for each, and
// Resume waits on every readable interrupt and reports the others in its error, leaving them
// in the store.
//
// filestore.Open (package hitl/filestore, so that importing hitl alone links no bbolt)
// keeps the interrupts in one file with bbolt (pure Go, one file, each write on disk before it
// returns, kept by the etcd project; chosen over SQLite because a key–value file is all a store
// of JSON interrupts needs, without a SQL engine in the agent), created mode 0600: an
// interrupt's JSON holds its review URL, whose token is a credential, and its origin, which
// Resume sends the agent's credential to. So Open trusts a file only when no other user can
// have written it or can read it (filestore.Open's documentation gives the rules); otherwise
// it reads nothing and returns a
// *filestore.Error matching filestore.ErrInsecure that says what to change. It then reads every page
// the file's tree and freelist reach before bbolt is given the file: a damaged file (a partial
// copy, a full disk, a restored backup) is a *filestore.Error matching filestore.ErrDamaged
// naming the file, which is left byte for byte as it was, never a panic; bbolt's calls run
// under recover, and a store that met damage later refuses every further call with the same
// error instead of writing on. To recover, stop the agent and run filestore.Salvage(old, new):
// it reads the damaged file's pages itself, skipping those it cannot read, copies every record
// it can into a new store and says how many (a record deleted in the last write may come back;
// Resume then gets that case's outcome again). One process holds the file at a time
// (filestore.ErrLocked for a second). Keeping an open interrupt costs a few KiB of file (examples/scale's README has the figure),
// each write synced to disk before Put returns; writes that arrive while another commits
// share the next commit, so many waits starting at once cost a few disk syncs, not one each
// (the store rows in examples/scale's README).
//
// The ways of learning an outcome are pluggable. A transport.Waiter[*hitl.Interrupt] (Wait(ctx, *Interrupt)
// (*Result, error), the transport.Waiter every protocol shares) is one way; Client.Wait
// composes them. It always polls the case's poll_url — the source of truth — and runs the
// other ways beside it: by default the case's event stream (c.StreamWaiter()), the client's
// callbacks (c.CallbackWaiter()) and every WithWaiter (a chat button, a queue consumer).
// The first outcome the source of truth confirms ends the wait and the other ways stop: a
// terminal event or a trusted callback that carries the complete outcome decides at once, any
// other way's Result makes the wait poll at once to confirm it. WaitOptions.Ways chooses the
// ways of one wait ([]transport.Waiter[*hitl.Interrupt]{c.CallbackWaiter(), button}; an empty list polls only), and
// WaitOptions.Waiter replaces the whole wait (a workflow engine that owns it). A built-in way
// called on its own (c.StreamWaiter().Wait(ctx, it)) still polls underneath — a push channel
// alone never holds a wait (TestWaysOfOneWait). A way of the caller's also wakes the run of
// an A2A task (TestWaysWakeAnA2ARun; a2a.WaitOptions.Wake). hxp.Client.Waiter and
// a2a.Client.Runner give those protocols' waits the same shape.
//
//	// chatButton is yours: any type with the method
//	// Wait(ctx, *hitl.Interrupt) (*transport.Result, error). A Result from it only makes the wait poll.
//	res, err := client.Wait(ctx, it, &hitl.WaitOptions{Ways: []transport.Waiter[*hitl.Interrupt]{client.CallbackWaiter(), chatButton{}}})
//
// A wait reports how far it has come as a hitl.Checkpoint — the entity tag of the service's
// last poll answer and the id of the stream's last event (WaitOptions.OnCheckpoint); a wait
// begun elsewhere with WaitOptions.From sends them with its first poll (If-None-Match) and
// its first stream connection (Last-Event-ID), so an unchanged case answers 304 and no event
// is replayed (TestCarryOnFromCheckpoint).
//
// For waits that outlive any one worker, the module hitl/temporal runs each wait as a Temporal workflow (its README).
//
// # Forms, chat buttons, chains and the rest of the HITL Protocol
//
// Forwarders get Interrupt.Summary(), one line saying what the human will see — the review
// type, a form's steps ("Input review: 3-step form: Personal Information → Work Preferences →
// Review & Submit"), the round of a chain — and WriteTo prints it under the prompt. Chain
// numbers its rounds (Interrupt.Round) and, when the service opens the next round itself
// (next_case_id without a new 202), follows it at the poll URL the previous case's pattern or
// the discovery document gives (Client.NextRound). Result.RespondedBy keeps every field the
// service sends: ID, Platform, PlatformUserID and the raw object.
//
//   - Forms (§10.3): case.Form() gives the typed context.form (single list or steps, every
//     field type, x-* as text, validation, conditions, sensitive). form.Summary() is one line
//     for a forwarded message ("3-step form: Personal → Preferences → Review"); form.Check(ctx, data)
//     reports every problem with a submitted result.data by key (required, type, rules, options,
//     hidden fields present) and never quotes a value; form.Redact(data) masks sensitive values
//     for display. A Result prints and logs without its data, so sensitive values reach no log
//     by accident. Multi-step progress arrives as Update.Progress.
//   - Reminders: at each reminder_at time, and on each review.reminder event, the
//     forwarder is called again (Interrupt.Reminder counts up) while the case is pending or
//     opened; never while the human is filling it in, after it ends, or past expiry, and never
//     twice within a minute. WaitOptions.NoReminders turns this off.
//   - Chat buttons (inline submit, §7.5): case.InlineChoices() says which actions may be
//     buttons (none for selection and input). A hitl.ButtonTable gives each button short opaque
//     data (hitl:<8 chars>:<action>, within Telegram's 64 bytes) and maps it back; no token ever
//     goes into button data. When the human taps, client.SubmitInline(ctx, it, answer) posts
//     with the submit token. An action not allowed, an unknown submitted_via, or missing
//     evidence under a policy that demands it is refused before sending. The service's refusals
//     are *hitl.SubmitErrors matched with ErrUseReviewURL (403: send the human to
//     it.ReviewURL(), never a URL from the error), ErrCaseClosed (409, 410), ErrRateLimited
//     (429, with RetryAfter), ErrUnauthorized, ErrBadRequest, ErrNotFound.
//   - Verification (v0.8, §7.6): case.InlineAllowed(capabilities) is the preflight: false
//     means offer the review link only. Evidence is relayed byte for byte. hitl.SubmissionOf(result)
//     gives the service's submission_context and its verification_result.
//   - Multi-round reviews (§10.1): client.Chain(ctx, first, revise, opts) runs the
//     revise-and-resubmit loop; revise sees every round so far; MaxRounds (default 3) bounds it.
//   - Improvement suggestions: hitl.Improve(ctx, body, hitl.Improvement{Share, Ask,
//     Resubmit}) shares the result first and runs at most two rounds of ask-and-resubmit.
//   - Discovery: client.Discover(ctx, serviceURL) reads /.well-known/hitl.json in both the
//     v0.7+ and the legacy flat shape, caches it for its max-age (default a day), and returns
//     ErrNoDiscovery on 404. Once cached, waits on that service poll no faster than its advertised
//     minimum and at its recommended interval when it sends no Retry-After. Transient failures
//     are retried (go-retryablehttp, at most 3 retries, Retry-After capped at 30 s, GET only).
//   - Custom types and signatures: x-* review types are handled as input;
//     Result.UnverifiedSignature carries result.signature as sent, not verified (the spec does
//     not say what is signed).
//
// # A2A tasks through hitl
//
// hitl.Detect recognises the same pauses in any 2xx that is marked as A2A or answers an A2A
// call (the request sent A2A-Version, went to a REST …/message:send, whose 0.3 form
// @a2a-js/sdk answers with 201 Created, or was a JSON-RPC message/send or tasks/get —
// SendMessage, GetTask in 1.0 — with a body http.NewRequest can read again; or the answer
// is application/a2a+json; WithA2A reads every 2xx, for relays and other unmarked
// answers), and hitl.Client.Wait carries an A2A interrupt to its end, with
// WaitOptions.Ask answering the questions and WaitOptions.A2A tuning the run (most questions,
// query interval, stream or push wake-ups). a2a/a2atest has a fake agent that pauses for tool
// approval the way Hector does, on all four bindings, and a fake relay whose administrator the
// test plays. go run ./examples/toolapproval shows both.
//
// # Behaviour worth knowing
//
//   - A decision is a Result, an error is "unknown" — except that Do and Transport report a
//     decision that is not a go-ahead as a *NotApprovedError carrying the Result ("Decisions"
//     above). Completed (whatever the action: a reject is a completed case), expired
//     (DefaultApplied set, Action empty) and cancelled are Results. Other errors are typed: *hitl.InvalidError names each broken field
//     (errors.Is(err, hitl.ErrInvalid)), *transport.StatusError matches ErrNotFound (404, 410)
//     and ErrUnauthorized (401, 403); ErrPastExpiry when expires_at plus a grace passed
//     without the service saying so; otherwise context.Cause(ctx).
//   - Pacing. Retry-After (seconds or HTTP-date) on 200, 304, 429 and 503, clamped to
//     [1 s, 5 min] (WithPollIntervals); 30 s when the service gives none; jittered exponential
//     backoff on 429, 5xx, timeouts and network errors, which never end a wait. Polls never follow
//     redirects. At most 1,000 polls of one service are in flight at once per client
//     (WithMaxPollsInFlight); the rest wait their turn, so a restart that resumes thousands of
//     waits, or a service slower than the pace it asked for, queues polls in the agent instead of
//     opening connection after connection. The A2A, HXP and HI clients bound theirs the same way
//     (the same transport.WithMaxPollsInFlight); the A2A waits of a hitl.Client share its
//     bound.
//   - Event streams. Reconnect with Last-Event-ID after a drop, a clean close, or 90 s
//     without a byte (heartbeat comments count), after the server's retry: or Retry-After or a
//     jittered backoff, all within [1 s, 1 min]; an event cut off by a drop is never delivered, and
//     one the server sends again is dropped. Events may be up to 1 MiB. A notification is the
//     Result by itself only when it carries the complete outcome and comes from the service's own
//     stream (or is a signed callback the caller chose to trust); otherwise it makes the wait poll,
//     and no poll follows another within a second. A terminal event that is unreadable or about
//     another case decides nothing and ends the following of that stream; polling carries on.
//   - Security. Every client (hitl, a2a, hxp, hi) keeps the same address rules, in one
//     implementation: service and agent URLs must be HTTPS (transport.WithAllowPrivateAddresses
//     admits http://localhost and http://127.0.0.1 for development); any other URL is refused before a
//     request is sent (transport.ErrRefusedAddress), and hxp and hi refuse such a base URL in
//     NewClient. The agent's credential goes only to the origin the agent called — the first
//     request of a redirect chain, never the host a redirect pointed at (hitl.WithTrustedOrigins
//     widens that); no request a client makes itself (polls, event streams, task queries, submits,
//     HXP and HI calls) follows a redirect (TestNoRedirectFollowed). Service URLs (from a 202, an
//     A2A endpoint, an HXP or HI base) are dialled through a dialer that resolves the host itself
//     and refuses hosts that resolve to loopback, private, link-local or unspecified addresses
//     (transport.ErrRefusedAddress again; transport.WithAllowPrivateAddresses lifts it; a RoundTripper of your own that is not
//     an *http.Transport is not wrapped, so check addresses in its dialer). TestAddressRules holds every client to these rules. Review tokens and credentials never appear in logs, error strings, or a
//     Case's String/GoString/LogValue; what a server echoes back into an error is cut to a
//     few hundred bytes and has every secret of the request replaced by [redacted]. Logging is
//     off unless you pass a *slog.Logger.
//   - Bodies are bounded in size and time. Do reads a 202 or A2A body within 30 s
//     (WithReadTimeout; ErrBodyTimeout) whatever the caller's context, each poll has its own
//     30 s timeout, and event streams have a 90 s idle watchdog: leave the http.Client's
//     Timeout at 0, which would otherwise cut every long-lived stream.
//
// # Reliability: what the tests hold
//
// Every wait, on every path, leaves no goroutine behind: time-based tests run under
// testing/synctest (which fails on a leaked goroutine) over an in-memory transport, and every
// package's tests end with a goleak check. Each way of learning an outcome has one
// table-driven test whose rows are the faults the fake service injects, with the outcome
// written in the row (under -race, the time-based ones in virtual time):
//
//   - polling: faults: 5xx bursts, 429 with seconds and HTTP-date Retry-After, truncated JSON,
//     stalled headers, connection reset mid-body; outcome: backs off, then the decision; test:
//     TestFaultsFromTheFake, TestWaitCases
//
//   - polling: faults: body over 1 MiB; 401, 403, 404, 410; unexpected 3xx; outcome: typed
//     error, nothing followed; test: TestFaultsFromTheFake, TestWaitCases
//
//   - polling: faults: a terminal state followed by a contradicting one; clock skew of ±2 h;
//     outcome: the first terminal stands; the case keeps its lifetime; test:
//     TestContradictingTerminal, TestClockSkew
//
//   - polling: faults: every transient fault for ten minutes, Retry-After 0, progress events
//     ten a second; outcome: never over 60 polls a minute; test: TestAtMostSixtyPerMinute
//
//   - event stream: faults: 401, 503s, heartbeats only, event over 64 KiB, never closing,
//     dropped mid-event, no events_url; outcome: polling carries on or the stream reconnects;
//     the decision arrives; test: TestWaitSSEFaults, TestWaitSSEResumes
//
//   - callbacks: faults: forged, duplicated, before the wait began; outcome: refused (401);
//     delivered once; kept for the wait; test: TestWaitOverCallback, TestCallbackBeforeWait
//
//   - A soak (TestSoak; go test -run TestSoak -soak.waits 2000 -soak.window 24h ./hitl/ for a
//     long one) runs hundreds of waits at once over polling, event streams and callbacks against
//     one fake that injects faults at random from a fixed seed — 5xx bursts, 429s in both forms,
//     malformed and stalled polls, streams dropped mid-event, refused or never closing,
//     duplicated and forged callbacks — while people answer, cancel or let cases expire; every
//     wait returns once, with what the service recorded, and the heap returns to its baseline.
//
//   - A terminal state is final: a later, contradicting answer is never fetched
//     (TestContradictingTerminal). created_at and expires_at are the service's clock: a case
//     keeps its lifetime from when the agent received it, so a service whose clock is hours behind
//     does not see its cases given up early (TestClockSkew).
//
//   - An agent stopped mid-wait that saved its interrupts as JSON gets, after a restart with a new
//     client, every decision made while it was down (TestRestartLosesNoDecision); an A2A
//     interrupt saved as JSON is carried to its end by another client (TestWaitA2ARestart).
//
//   - The store an agent resumes from is checked before it is trusted: a store file another
//     user may have written, or may read, is refused with filestore.ErrInsecure and what to change, so a record planted there never
//     sends the agent's credential anywhere (TestForeignFileRefused, TestPlantedRecord);
//     20 damaged copies of a 40-interrupt store (truncated to 1–63 pages or mid-page, freelist
//     zeroed or 0xFF, metas zeroed, pages scrambled or naming another page) are each refused with
//     ErrDamaged, the file unchanged, or open and work — never a panic — and Salvage copies
//     what is readable (TestDamagedStore, TestSalvage, FuzzOpen in internal/kv); one
//     unreadable record, or one of a kind a later version wrote, stops no other wait and is reported
//     under its key, kept in the store (TestResumeOneBadRecord, TestResumeRecordsOfALaterVersion).
//
// # Security
//
// Service URLs must be HTTPS (http://localhost with [transport.WithAllowPrivateAddresses]) and are
// dialled only at public addresses unless [transport.WithAllowPrivateAddresses], as for every
// client in hitlkit. The URL of the call [Client.Do] or [Client.Transport] is given is held
// to the same scheme and address rules before a byte is sent (transport.ErrRefusedAddress,
// naming the option); that call goes through the caller's HTTP client, so a host name is not
// resolved to be checked. The agent's credential goes only to the origin it called, never to a redirect's target; review URLs, tokens and
// credentials never appear in logs or errors.
//
// # Security: what the tests hold
//
//   - No review token, agent credential or callback secret appears in any log record (debug level)
//     or error string while waits run over polling, event streams and callbacks with faults
//     (TestNoSecretInLogsOrErrors); the agent's credential is sent only to the origin of the call
//     that produced the case, for polls and for event streams (TestCredentialsStayOnOrigin,
//     TestStreamCredentialsStayOnOrigin), and never to a host a redirect pointed at
//     (TestRedirectedCallGetsNoCredentials: 0 of the other host's requests carried
//     Authorization).
//   - The submit token goes only to submit_url and never into a log, an error or button data
//     (TestCase34SubmittedViaAndSecrets); the values of sensitive form fields (example flow 08)
//     appear in no log record, error, or printed Result (TestSensitiveValuesNeverLogged); a
//     service echoing the submit or review token in an error, padded to 100 KB, gets it redacted
//     and cut under 400 bytes (TestSubmitErrorEchoesNoSecret).
//   - Service URLs in a 202 must be HTTPS. An HTTPS URL on localhost or a loopback, private,
//     link-local or unspecified IP literal (such as 169.254.169.254), or http://localhost and
//     http://127.0.0.1, makes the hitl object invalid unless the client has
//     transport.WithAllowPrivateAddresses (TestDetectCases); 18 spellings of private hosts
//     (2130706433, 0x7f.1, 127.1, localhost., [::ffff:127.0.0.1], NAT64 and
//     IPv4-translated forms, …) are refused and 6 public ones accepted (TestPrivateHostSpellings);
//     the connection is checked again where it is dialled (package transport, "Security").
//   - The callback receiver reads at most 64 KiB per body, 64 bodies at once, each within its
//     read deadline: 1,000 connections at once declaring 1 MiB get 413 and a closed connection,
//     1,000 stalling ones are cut at the deadline or answered 503 at once (TestCallbacksFlood).
//   - A 202 whose body trickles a byte every 5 s, or stops mid-body: Do gives up at the read
//     deadline with ErrBodyTimeout (TestDoTrickledAnswer).
//   - Two services using the same case_id behind one ButtonTable: handles derive from the
//     service's origin and the case id, so each button resolves to its own service
//     (TestButtonsOfTwoServices).
//   - A form of 501 fields, 1,001 options, conditions 10 deep or in a cycle, a 1,001-byte
//     pattern is refused at parse time (ErrFormTooLarge); Check is linear, refuses more
//     values than options at once, decodes each value once however many conditions read it, and
//     stops when its context ends (TestFormLimits, TestFormCheckBounded,
//     TestFormCheckConditionsLinear).
//
// # Bounded work
//
// What a service sends costs work linear in its size, within the body limit (1 MiB by
// default): a duration (timeout, default_timeout, max_timeout) over 64 bytes is refused
// unread; a form's patterns are sized before they are compiled (1,000 instructions each,
// 20,000 together) and [Form.Check] matches within a fixed budget; an email address is read
// only up to 254 bytes. Measured with
//
//	go test -run '^$' -bench 'Detect|PollBody|StatusEvent|CallbackBody|Discovery|StoreRecord|ParseForm|CheckWorst' ./hitl
//
// on worst-case shapes (long digit runs, deep nesting, many and repeated keys, escapes,
// reminder lists, long timeouts; forms of many fields, options, "in" values or large
// patterns; answers to a form of 500 fields with patterns and conditions), the CPU time per
// byte (cpu-ns/B) at 1 KiB, 64 KiB and 1 MiB, over the shapes (2026-11-26, commit 104c589,
// one run on a 2-core machine at load average 8–17): Detect 26–84, 8.2–40, 1.6–38; a poll
// answer 11–47, 6.5–18, 0.5–16; a status event 11–34, 6.7–16, 0.6–16; a callback body 5.8–30,
// 5.3–12, 0.5–11; a discovery document 20–73, 6.3–57, 0.4–63; a stored record 17–29, 5.6–13,
// 0.4–14; ParseForm 11–932, 6.3–72, 0.5–64; Form.Check 1,053–1,527, 8.5–106, 0.4–83 (the
// 500 fields cost the same whatever the answer's size). No shape costs more per byte at 1 MiB
// than twice what it costs at 1 KiB.
//
// # Fuzzing
//
// go test runs the seed corpus of every fuzz target (every 202 and poll body of the HITL test
// vectors, the broken shapes of the conformance cases, event streams, callbacks, forms,
// discovery documents); CI runs each target on 20,000 generated inputs more. This package's
// targets are FuzzDetect, FuzzPollBody, FuzzCallback, FuzzForm, FuzzStatusEvent,
// FuzzDiscovery and FuzzRPCMethod; a longer run:
//
//	go test -run '^$' -fuzz FuzzDetect -fuzztime 5m ./hitl/
//
// On Go 1.26 a timed run that fails with a bare "context deadline exceeded" and writes no input
// to testdata/fuzz is the fuzz coordinator's race (golang/go#75804), not a finding; a count
// (-fuzztime 20000x, as CI runs) has no deadline to race. Inputs that once failed stay in
// testdata/fuzz as regression seeds (a Retry-After HTTP-date decades ahead used to yield a delay
// of decades; both forms are now capped at a year).
//
// # Performance
//
// The figures — Detect on a plain 200 and on a 202, one poll, an open wait's heap, the time from
// a click to Wait returning, 100 to 100,000 waits at once per way — are in examples/scale's
// README, each with its command and the date it was measured; the benchmarks are this
// package's (BenchmarkDetect, BenchmarkPollRoundTrip, BenchmarkOpenWait,
// BenchmarkDecisionLatency, BenchmarkNotificationToResult, BenchmarkStorePut,
// BenchmarkFormCheck, BenchmarkTransportPassThrough).
package hitl
