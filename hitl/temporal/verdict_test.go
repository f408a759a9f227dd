package temporal_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	ht "github.com/hitlkit/hitlkit/hitl/temporal"
	"github.com/hitlkit/hitlkit/transport"
)

// TestNoIsNeverAGoAhead: a case the service ends in a rejection, an expiry whose default
// action is approve, or a cancellation comes out of the workflow (its real watcher activity
// waiting on the fake service) as that Result, never an approval.
func TestNoIsNeverAGoAhead(t *testing.T) {
	for _, tt := range []struct {
		name   string
		body   string
		decide func(s *hitltest.Server, id string) error
		status transport.Status
	}{
		{"rejection", `{}`, func(s *hitltest.Server, id string) error { return s.Respond(id, "reject", nil, nil) }, transport.StatusCompleted},
		{"expiry with default approve", `{"default_action":"approve"}`, func(s *hitltest.Server, id string) error { return s.Expire(id) }, transport.StatusExpired},
		{"cancellation", `{}`, func(s *hitltest.Server, id string) error { return s.Cancel(id, "withdrawn") }, transport.StatusCancelled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			svc := hitltest.NewServer(t, hitltest.WithRetryAfter(time.Second))
			c, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses())
			if err != nil {
				t.Fatal(err)
			}
			req, _ := http.NewRequest(http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(tt.body))
			resp, err := c.Do(t.Context(), req, &hitl.CallOptions{DetectOnly: true})
			if err != nil || resp.Interrupt == nil {
				t.Fatalf("Do = %v, %v", resp, err)
			}
			_ = resp.Body.Close()
			it := resp.Interrupt
			if err := tt.decide(svc, it.ID()); err != nil {
				t.Fatal(err)
			}

			var s testsuite.WorkflowTestSuite
			e := s.NewTestWorkflowEnvironment()
			a := &ht.Activities{Client: c}
			e.RegisterWorkflowWithOptions(ht.Workflow, workflow.RegisterOptions{Name: ht.WorkflowName})
			e.RegisterActivityWithOptions(a.Watch, activity.RegisterOptions{Name: ht.ActivityWatch})
			e.RegisterActivityWithOptions(a.Remind, activity.RegisterOptions{Name: ht.ActivityRemind})
			e.ExecuteWorkflow(ht.WorkflowName, ht.Input{Interrupt: *it})
			var r transport.Result
			if err := e.GetWorkflowResult(&r); err != nil {
				t.Fatal(err)
			}
			if r.Approved() || r.Status != tt.status || r.Decision == transport.DecisionApprove {
				t.Errorf("workflow result %+v; want %s, not an approval", r, tt.status)
			}
			if tt.status == transport.StatusExpired && (!r.DefaultApplied || r.DefaultAction != "approve" || r.Action != "") {
				t.Errorf("expiry %+v; want the default applied and no action", r)
			}
		})
	}
}
