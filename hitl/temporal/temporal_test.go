package temporal_test

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	ht "github.com/hitlkit/hitlkit/hitl/temporal"
	"github.com/hitlkit/hitlkit/transport"
)

// env returns a test workflow environment (virtual time) with the workflow registered and the
// activities' names known, and the interrupt of a case that expires in 7 days.
func env(t *testing.T) (*testsuite.TestWorkflowEnvironment, hitl.Interrupt) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	e := s.NewTestWorkflowEnvironment()
	a := &ht.Activities{}
	e.RegisterWorkflowWithOptions(ht.Workflow, workflow.RegisterOptions{Name: ht.WorkflowName})
	e.RegisterActivityWithOptions(a.Watch, activity.RegisterOptions{Name: ht.ActivityWatch})
	e.RegisterActivityWithOptions(a.Remind, activity.RegisterOptions{Name: ht.ActivityRemind})
	now := e.Now()
	it := hitl.Interrupt{Kind: hitl.KindHITL, Origin: "https://svc.example:443", Case: &hitl.Case{
		SpecVersion: "0.8", CaseID: "review_c1", Type: hitl.TypeApproval, Prompt: "Deploy?", DefaultAction: "reject",
		PollURL: "https://svc.example/reviews/review_c1/status", CreatedAt: now, ExpiresAt: now.Add(7 * 24 * time.Hour),
		ReminderAt: []time.Time{now.Add(24 * time.Hour), now.Add(8 * 24 * time.Hour)}}}
	return e, it
}

var approved = &transport.Result{Status: transport.StatusCompleted, CaseID: "review_c1", Action: "approve", Decision: transport.DecisionApprove}

// TestDecisionAfterTwoDays: the human decides after 48 hours of a 7-day case; the workflow
// returns it (in virtual time, well under a second), having sent the one reminder due before.
func TestDecisionAfterTwoDays(t *testing.T) {
	e, it := env(t)
	e.OnActivity(ht.ActivityWatch, mock.Anything, mock.Anything).After(48*time.Hour).Return(approved, nil).Once()
	e.OnActivity(ht.ActivityRemind, mock.Anything, mock.Anything, 1).Return(nil).Once()
	began := time.Now()
	e.ExecuteWorkflow(ht.WorkflowName, ht.Input{Interrupt: it})
	if !e.IsWorkflowCompleted() || e.GetWorkflowError() != nil {
		t.Fatalf("workflow: completed %v, %v", e.IsWorkflowCompleted(), e.GetWorkflowError())
	}
	var r transport.Result
	if err := e.GetWorkflowResult(&r); err != nil || r.Action != "approve" || r.Decision == "" {
		t.Fatalf("result %+v, %v", r, err)
	}
	e.AssertExpectations(t)
	t.Logf("48 virtual hours in %v", time.Since(began))
}

// TestExpiryIsNeverAnApproval: nobody decides within the 7 days: the workflow's own timer
// ends the wait with the default action applied, not an approval.
func TestExpiryIsNeverAnApproval(t *testing.T) {
	e, it := env(t)
	it.Case.DefaultAction = "approve" // even a default of approve is an expiry
	e.OnActivity(ht.ActivityWatch, mock.Anything, mock.Anything).After(30*24*time.Hour).Return(approved, nil).Maybe()
	e.OnActivity(ht.ActivityRemind, mock.Anything, mock.Anything, mock.Anything).Return(nil).Maybe()
	e.ExecuteWorkflow(ht.WorkflowName, ht.Input{Interrupt: it})
	var r transport.Result
	if err := e.GetWorkflowResult(&r); err != nil {
		t.Fatal(err)
	}
	if r.Status != transport.StatusExpired || !r.DefaultApplied || r.Action != "" || r.Decision != "" || r.DefaultAction != "approve" {
		t.Errorf("result %+v", r)
	}
}

// TestNotifications: an Update about another case is rejected by the validator; one about
// this case restarts the watcher (which asks the service at once); the same delivery sent by
// two replicas counts once.
func TestNotifications(t *testing.T) {
	e, it := env(t)
	late := &transport.Result{Status: transport.StatusCompleted, CaseID: "review_c1", Action: "reject", Decision: transport.DecisionReject}
	// The first watcher would answer after five days; the notification cancels it and a new
	// watcher asks the service at once.
	e.OnActivity(ht.ActivityWatch, mock.Anything, mock.Anything).After(5*24*time.Hour).Return(late, nil).Once()
	e.OnActivity(ht.ActivityWatch, mock.Anything, mock.Anything).Return(approved, nil).Once()
	e.OnActivity(ht.ActivityRemind, mock.Anything, mock.Anything, mock.Anything).Return(nil).Maybe()
	var rejected, accepted int
	update := func(caseID, delivery string) {
		e.UpdateWorkflow(ht.UpdateNotify, delivery, &testsuite.TestUpdateCallback{
			OnReject:   func(err error) { rejected++ },
			OnAccept:   func() { accepted++ },
			OnComplete: func(any, error) {},
		}, ht.Notification{CaseID: caseID, DeliveryID: delivery})
	}
	e.RegisterDelayedCallback(func() { update("review_other", "d0") }, time.Hour)
	e.RegisterDelayedCallback(func() { update("review_c1", "d1"); update("review_c1", "d1") }, 2*time.Hour)
	e.ExecuteWorkflow(ht.WorkflowName, ht.Input{Interrupt: it})
	var r transport.Result
	if err := e.GetWorkflowResult(&r); err != nil || r.Action != "approve" {
		t.Fatalf("result %+v, %v", r, err)
	}
	if rejected != 1 || accepted < 1 {
		t.Errorf("%d rejected, %d accepted; want 1 and at least 1", rejected, accepted)
	}
	e.AssertExpectations(t) // two watchers: the duplicate delivery did not start a third
}

// TestWorkerDiesMidWait: the watcher's worker dies (its attempt fails) after a day; the
// activity is retried, and the decision is returned once.
func TestWorkerDiesMidWait(t *testing.T) {
	e, it := env(t)
	e.OnActivity(ht.ActivityWatch, mock.Anything, mock.Anything).After(24*time.Hour).Return(nil, errors.New("worker lost")).Once()
	e.OnActivity(ht.ActivityWatch, mock.Anything, mock.Anything).After(24*time.Hour).Return(approved, nil).Once()
	e.OnActivity(ht.ActivityRemind, mock.Anything, mock.Anything, mock.Anything).Return(nil).Maybe()
	e.ExecuteWorkflow(ht.WorkflowName, ht.Input{Interrupt: it})
	var r transport.Result
	if err := e.GetWorkflowResult(&r); err != nil || r.Action != "approve" {
		t.Fatalf("result %+v, %v", r, err)
	}
	e.AssertExpectations(t)
}

// TestWatchActivity: the watcher activity runs hitl's own wait against a service (the fake)
// and returns the human's decision; past the case's expiry it returns the expiry with the
// default applied.
func TestWatchActivity(t *testing.T) {
	svc, c, it := openCase(t)
	if err := svc.Respond(it.ID(), "approve", nil, nil); err != nil {
		t.Fatal(err)
	}
	var s testsuite.WorkflowTestSuite
	ae := s.NewTestActivityEnvironment()
	a := &ht.Activities{Client: c}
	ae.RegisterActivityWithOptions(a.Watch, activity.RegisterOptions{Name: ht.ActivityWatch})
	v, err := ae.ExecuteActivity(ht.ActivityWatch, *it)
	if err != nil {
		t.Fatal(err)
	}
	var r transport.Result
	if err := v.Get(&r); err != nil || r.Action != "approve" || r.Decision == "" {
		t.Fatalf("Watch = %+v, %v", r, err)
	}
}

// TestWatchCarriesOnAfterItsWorkerDies: the watcher heartbeats its checkpoint; its worker is
// lost (here: the service refuses a poll, which fails the attempt, and the SDK sends the last
// heartbeat); the attempt retried on another worker starts from that heartbeat — its first
// poll carries the entity tag, its stream the last event id, so nothing is replayed — and
// returns the decision.
func TestWatchCarriesOnAfterItsWorkerDies(t *testing.T) {
	svc, c, opened := openCase(t)
	it := *opened
	if err := svc.Open(it.ID()); err != nil {
		t.Fatal(err)
	}
	a := &ht.Activities{Client: c}
	var (
		mu   sync.Mutex
		last hitl.Checkpoint
	)
	attempt := func(from *hitl.Checkpoint, then func()) (*transport.Result, error) {
		var s testsuite.WorkflowTestSuite
		s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
		ae := s.NewTestActivityEnvironment()
		ae.RegisterActivityWithOptions(a.Watch, activity.RegisterOptions{Name: ht.ActivityWatch})
		if from != nil {
			ae.SetHeartbeatDetails(*from)
		}
		ae.SetOnActivityHeartbeatListener(func(_ *activity.Info, d converter.EncodedValues) {
			var cp hitl.Checkpoint
			if d.Get(&cp) == nil {
				mu.Lock()
				last = cp
				mu.Unlock()
			}
		})
		// Once this attempt has polled with an answer and opened its stream, then runs.
		seen := len(svc.Requests())
		var wg sync.WaitGroup
		defer wg.Wait()
		wg.Go(func() {
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); <-time.After(10 * time.Millisecond) {
				var polled, streamed bool
				for _, q := range svc.Requests()[seen:] {
					polled = polled || strings.HasSuffix(q.Path, "/status")
					streamed = streamed || strings.HasSuffix(q.Path, "/events")
				}
				if polled && streamed {
					break
				}
			}
			then()
		})
		v, err := ae.ExecuteActivity(ht.ActivityWatch, it)
		if err != nil {
			return nil, err
		}
		var r transport.Result
		return &r, v.Get(&r)
	}

	_, err := attempt(nil, func() { svc.FailNext(it.ID(), hitltest.FaultUnauthorized, 1) })
	mu.Lock()
	from := last
	mu.Unlock()
	if err == nil || from.ETag == "" || from.LastEventID == "" {
		t.Fatalf("first attempt: %v, last heartbeat %+v; want a failure after a full checkpoint", err, from)
	}

	seen := len(svc.Requests())
	r, err := attempt(&from, func() {
		if err := svc.Respond(it.ID(), "approve", nil, nil); err != nil {
			t.Error(err)
		}
	})
	if err != nil || r.Action != "approve" {
		t.Fatalf("second attempt = %+v, %v", r, err)
	}
	var poll, stream *hitltest.Request
	for _, q := range svc.Requests()[seen:] {
		switch {
		case poll == nil && strings.HasSuffix(q.Path, "/status"):
			poll = &q
		case stream == nil && strings.HasSuffix(q.Path, "/events"):
			stream = &q
		}
	}
	if got := poll.Header.Get("If-None-Match"); got != from.ETag || poll.Status != http.StatusNotModified {
		t.Errorf("second attempt's first poll: If-None-Match %q, answered %d; want %q and 304", got, poll.Status, from.ETag)
	}
	if got := stream.Header.Get("Last-Event-ID"); got != from.LastEventID {
		t.Errorf("second attempt's stream: Last-Event-ID %q, want %q", got, from.LastEventID)
	}
}

// openCase starts the fake service and a client of it, and opens a case on it.
func openCase(t *testing.T) (*hitltest.Server, *hitl.Client, *hitl.Interrupt) {
	t.Helper()
	svc := hitltest.NewServer(t, hitltest.WithRetryAfter(time.Second))
	c, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses())
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(t.Context(), req, &hitl.CallOptions{DetectOnly: true})
	if err != nil || resp.Interrupt == nil {
		t.Fatalf("Do = %v, %v", resp, err)
	}
	_ = resp.Body.Close()
	return svc, c, resp.Interrupt
}

// TestMain checks for leaked goroutines. The test environment leaves behind the goroutines of
// mocked activities whose .After delay had not run out when their workflow ended (the first
// watcher of TestNotifications, cancelled after two hours of its five days); those two
// functions of the SDK's test environment are ignored, nothing else.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("go.temporal.io/sdk/internal.(*testWorkflowEnvironmentImpl).ExecuteActivity.func2"),
		goleak.IgnoreTopFunction("go.temporal.io/sdk/internal.(*testWorkflowEnvironmentImpl).runBeforeMockCallReturns"))
}
