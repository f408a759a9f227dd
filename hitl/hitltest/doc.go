// Package hitltest is a fake HITL Protocol service for tests, demos and examples, in the
// shape of net/http/httptest.
//
//	svc := hitltest.NewServer(t) // loopback; closed when the test ends
//	client, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()),
//		transport.WithAllowPrivateAddresses(), // the fake serves http://127.0.0.1
//		hitl.WithForwarder(func(ctx context.Context, it *hitl.Interrupt) error {
//			return svc.Respond(svc.NextCase(nil), "reject", nil, nil) // the human says no
//		}))
//	if err != nil {
//		t.Fatal(err)
//	}
//	req, _ := http.NewRequest(http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{}`))
//	_, err = client.Do(ctx, req, nil) // errors.Is(err, hitl.ErrNotApproved): the human said no
//
// # What it serves
//
// It plays both sides an agent meets: the service that answers a call with a 202 and a hitl
// object (POST /actions/{type}), and the review service behind it: the poll endpoint, an
// event stream per case (Server-Sent Events with Last-Event-ID replay), signed callbacks to
// the hitl_callback_url a call gave (retried after 1 s, 5 s and 30 s on a 5xx), a plain
// review page, inline submit (POST /reviews/{id}/submit with its own submit token, checking
// inline_actions and verification policies), reminders at the call's reminder_at times,
// multi-round links (previous_case_id and next_case_id), and /.well-known/hitl.json.
//
// A test scripts the human (Open, Progress, Remind, Respond, Cancel, Expire),
// injects faults (FailNext for polls, FailStream, FailCallback), and inspects what the agent
// sent (Requests) and what the service sent it (Callbacks).
//
// A call's body is empty or a JSON object; every key is optional, and these are all it reads:
//
//   - "prompt": the question (default: a sample prompt of the review type)
//   - "message": the 202 envelope's message (default: a sample)
//   - "default_action": what applies at expiry: skip, approve, reject or abort (default skip)
//   - "timeout": the case's lifetime, as "1h" or "PT1H" (default [WithCaseLifetime]'s, 24 h)
//   - "context": the hitl object's context, any JSON (default: a sample of the review type)
//   - "hitl_callback_url": where to send signed callbacks (§9)
//   - "reminder_at": one RFC 3339 time or a list of them
//   - "inline": true turns on inline submit (submit_url and submit_token)
//   - "inline_actions": the actions inline submit allows (default: every action of the type)
//   - "verification_policy": the v0.8 verification policy, any JSON object
//   - "previous_case_id": the case of the round before (§10.1)
//
// For example {"prompt":"Delete 3 rows?","default_action":"approve","timeout":"2m"}. A body
// that is not JSON, or a bad timeout or reminder_at, is answered 400.
//
// The fakes of hitlkit (hitltest, a2atest, hxptest) share one shape, net/http/httptest's
// with a testing.TB: [NewServer] binds loopback and closes the server when the test ends;
// [NewMemoryServer] serves through an in-memory transport, with no socket, so it works
// inside a testing/synctest bubble; [NewUnstartedServer] with [Server.Start] or
// [Server.StartTLS] is for programs, which call Close themselves. [WithProfile] and
// [Profiles] choose which real services it behaves as; FailNext(id, fault, n) injects
// faults (id "" means any); [Server.Requests] is the log of what it received. Called inside
// a testing/synctest bubble, where a loopback connection would hang the test, NewServer
// fails the test at once: use NewMemoryServer there.
//
// Leak checks (go.uber.org/goleak): goleak.VerifyTestMain in TestMain needs nothing more. A
// per-test goleak.VerifyNone must run after the fake is closed: register it with t.Cleanup
// before calling NewServer (cleanups run last-in, first-out), not with defer, which runs before
// the fake's own cleanup and reports its goroutines.
//
// All methods are safe for concurrent use.
//
// # Profiles
//
// hitltest.WithProfile(ProfileReference) serves cases the way the reference services do — no
// events_url, streams advertised in discovery, a first review.pending event, Last-Event-ID
// ignored, streams left open after the end, Retry-After: 30 on the 202 — and ProfileLive as the
// one production HITL service found does (spec 0.6, per its public agent guide), exactly where
// it departs from the specification; package hitl's documentation ("Waiting in real time") says
// how the client meets each. The tests of hitl run against every profile.
//
// # The review page
//
// The fake serves a review page at each case's review_url, for every review type:
// an approval shows the artifact with Approve, Request edits (feedback required) and Reject; a
// selection shows its options as cards (checkboxes or radio buttons) and a note; an input case
// renders its context.form — every field type, hints, defaults, sensitive fields never
// echoed back, conditional fields that appear when their condition holds and are left out of
// the answer otherwise, multi-step forms one step at a time with each step reported to the
// agent's poll as in_progress — and checks the answer with the SDK's own form rules, showing
// each problem at its field and keeping what was typed; a confirmation lists what will happen
// (and says when it cannot be undone) with Confirm and Cancel; an escalation shows the error and
// the parameters to change for a retry, with Retry, Skip and Abort. The token authenticates, the
// first visit marks the case opened, an expired or cancelled case's page says so (naming the
// default action that applied), and a second submission is refused with the first answer shown.
// Plain server-rendered HTML and a few lines of JavaScript; it fits a phone screen, works with a
// keyboard, and follows the system's dark mode.
//
// # In a browser
//
// The browser test (its own module, hitl/hitltest/browser, with chromedp v0.23.0 and
// Debian's chromium) plays the person: for each type it opens the link the agent forwarded,
// fills the page in and submits, and checks that the agent's Wait returns the matching typed
// Result; it also submits a form with an out-of-range and a missing value, checks the messages,
// fixes them and submits again; walks example flow 08's three steps; and opens an expired case
// and a case answered from another tab. Set HITLKIT_SCREENSHOTS=dir to keep the screenshots
// (phone-sized, 390×844).
//
//	cd hitl/hitltest/browser && go test -race -count=1 ./...
//
// It needs Debian's chromium package and skips without it, except under CI (HITLKIT_CI=1), where .ci/run installs it.
package hitltest
