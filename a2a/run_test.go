package a2a_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/transport"
)

var bindings = []a2a.Binding{a2a.JSONRPC10, a2a.REST10, a2a.JSONRPC03, a2a.REST03}

func newClient(t *testing.T, opts ...transport.Option) *a2a.Client {
	t.Helper()
	c, err := a2a.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// start sends the first message and returns the pause it produced.
func start(t *testing.T, c *a2a.Client, ep a2a.Endpoint, o *a2a.SendOptions) *a2a.Pause {
	t.Helper()
	ev, err := c.Send(t.Context(), ep, a2a.Message{Parts: []a2a.Part{a2a.TextPart("clean up the reports")}}, o)
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	p := a2a.NewPause(ep, ev.Task)
	if p == nil {
		t.Fatalf("Send: task %+v is not paused", ev.Task)
	}
	return p
}

// TestRunToolApproval: against every profile and on every binding, a task that asks three
// questions is answered three times through the Asker and completes; each resume carries the
// task's ids and the answer, and the agent reads each answer as an approval.
func TestRunToolApproval(t *testing.T) {
	for _, profile := range a2atest.Profiles() {
		for _, b := range bindings {
			t.Run(profile.String()+" "+string(b), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewMemoryAgent(t, a2atest.WithQuestions(3), a2atest.WithProfile(profile))
					c := newClient(t, transport.WithHTTPClient(agent.Client()))
					p := start(t, c, agent.Endpoint(b), nil)
					if p.Class != a2a.ClassInputRequired || !strings.Contains(p.Prompt(), "Tool Approval Required") {
						t.Fatalf("pause = %v, prompt %q", p, p.Prompt())
					}
					var asked []string
					ask := func(_ context.Context, p *a2a.Pause) (a2a.Answer, error) {
						asked = append(asked, string(p.Question.Parts[1].Data))
						return a2a.HectorDecision(true), nil
					}
					r, err := c.Run(t.Context(), p, ask, nil)
					if err != nil {
						t.Fatal(err)
					}
					if r.Status != transport.StatusCompleted || r.Action != "approve" || r.CaseID != p.TaskID {
						t.Errorf("result = %v", r)
					}
					if len(asked) != 3 || !strings.Contains(asked[2], "report-3") {
						t.Errorf("questions = %q", asked)
					}
					st, _ := agent.Task(p.TaskID)
					if diff := cmp.Diff([]string{"approve", "approve", "approve"}, st.Answers); diff != "" {
						t.Errorf("agent read (-want +got):\n%s", diff)
					}
					task, err := a2a.TaskOf(r)
					if err != nil || task.State != a2a.StateCompleted || len(task.Artifacts) != 1 {
						t.Errorf("TaskOf = %+v, %v", task, err)
					}
				})
			})
		}
	}
}

// TestRunDeny: a deny completes the task with the agent's refusal; the Result is completed
// with Action deny (the human decided; the task itself did not fail).
func TestRunDeny(t *testing.T) {
	agent := a2atest.NewMemoryAgent(t)
	c := newClient(t, transport.WithHTTPClient(agent.Client()))
	p := start(t, c, agent.Endpoint(a2a.JSONRPC10), nil)
	r, err := c.Run(t.Context(), p, func(context.Context, *a2a.Pause) (a2a.Answer, error) { return a2a.HectorDecision(false), nil }, nil)
	if err != nil || r.Status != transport.StatusCompleted || r.Action != "deny" {
		t.Fatalf("Run = %v, %v", r, err)
	}
}

// TestRunRelay: a relay holds the task; the client polls tasks/get on the relay endpoint at
// the configured interval until the administrator decides: approval completes, rejection
// ("failed" through the relay) is a rejected Result with the administrator's reason.
func TestRunRelay(t *testing.T) {
	tests := []struct {
		name   string
		form   a2atest.RelayForm
		reject bool
		want   transport.Status
	}{
		{"working+relay_task approved", a2atest.RelayWorking, false, transport.StatusCompleted},
		{"working+relay_task rejected", a2atest.RelayWorking, true, transport.StatusRejected},
		{"working+relay_reason approved", a2atest.RelayReason, false, transport.StatusCompleted},
		{"completed+hitl_pending approved", a2atest.RelayPending, false, transport.StatusCompleted},
		{"completed+hitl_pending rejected", a2atest.RelayPending, true, transport.StatusRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				relay := a2atest.NewMemoryRelay(t, a2atest.WithRelayForm(tt.form))
				c := newClient(t, transport.WithHTTPClient(relay.Client()))
				p := start(t, c, relay.Endpoint(), nil)
				if !p.Class.Paused() || p.Relay == nil {
					t.Fatalf("pause = %v", p)
				}
				id := relay.NextHold(t.Context().Done())
				go func() {
					<-time.After(58 * time.Second)
					if tt.reject {
						_ = relay.Reject(id, "not allowed by policy")
					} else {
						_ = relay.Approve(id)
					}
				}()
				notified := 0
				began := time.Now()
				r, err := c.Run(t.Context(), p, nil, &a2a.RunOptions{Notify: func(context.Context, *a2a.Pause) { notified++ }})
				if err != nil {
					t.Fatal(err)
				}
				if r.Status != tt.want || notified != 1 {
					t.Errorf("result %v, notified %d", r, notified)
				}
				if tt.reject && r.Reason != "not allowed by policy" {
					t.Errorf("reason = %q", r.Reason)
				}
				// Polled every 5 s from the start: 0 s, 5 s, …, 60 s, which sees the decision of 58 s.
				polls := 0
				for _, q := range relay.Requests() {
					if q.Operation == "tasks/get" {
						polls++
					}
				}
				if got, want := polls, 13; got != want {
					t.Errorf("polls = %d, want %d", got, want)
				}
				if d := time.Since(began); d != time.Minute {
					t.Errorf("returned after %v", d)
				}
			})
		})
	}
}

// TestAuthRequired: the task waits for credentials out of band; the client is told once,
// keeps polling, and answers the question that follows.
func TestAuthRequired(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewMemoryAgent(t, a2atest.WithAuthFirst())
				c := newClient(t, transport.WithHTTPClient(agent.Client()), transport.WithPollInterval(30*time.Second))
				p := start(t, c, agent.Endpoint(a2a.JSONRPC10), nil)
				if p.Class != a2a.ClassAuthRequired {
					t.Fatalf("class = %s", p.Class)
				}
				go func() {
					<-time.After(10 * time.Second)
					_ = agent.Authorize(p.TaskID)
				}()
				var notified []a2a.Class
				began := time.Now()
				var askedAt time.Duration
				r, err := c.Run(t.Context(), p, func(_ context.Context, q *a2a.Pause) (a2a.Answer, error) {
					askedAt = time.Since(began)
					return a2a.HectorDecision(true), nil
				}, &a2a.RunOptions{Notify: func(_ context.Context, q *a2a.Pause) { notified = append(notified, q.Class) }, Wait: a2a.WaitOptions{Stream: stream}})
				if err != nil || r.Status != transport.StatusCompleted {
					t.Fatalf("Run = %v, %v", r, err)
				}
				if diff := cmp.Diff([]a2a.Class{a2a.ClassAuthRequired}, notified); diff != "" {
					t.Errorf("notified (-want +got):\n%s", diff)
				}
				// Polling alone learns of it at the next poll (30 s); the stream at once (10 s).
				want := 30 * time.Second
				if stream {
					want = 10 * time.Second
				}
				if askedAt != want {
					t.Errorf("asked after %v, want %v", askedAt, want)
				}
			})
		})
	}
}

// TestCase20And21ResumeErrors: the agent's refusals come back typed: a resume of a
// completed task is ErrTaskTerminal (a2a-go's -32602), of an unknown one ErrTaskNotFound.
func TestCase20And21ResumeErrors(t *testing.T) {
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			agent := a2atest.NewMemoryAgent(t)
			c := newClient(t, transport.WithHTTPClient(agent.Client()))
			p := start(t, c, agent.Endpoint(b), nil)
			if _, err := c.Resume(t.Context(), p, a2a.HectorDecision(true)); err != nil {
				t.Fatal(err)
			}
			_, err := c.Resume(t.Context(), p, a2a.HectorDecision(true))
			if !errors.Is(err, a2a.ErrTaskTerminal) || !errors.Is(err, a2a.ErrInvalidParams) {
				t.Errorf("resume of a completed task: %v", err)
			}
			gone := *p
			gone.TaskID = "task-404"
			if _, err := c.Resume(t.Context(), &gone, a2a.HectorDecision(true)); !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Errorf("resume of an unknown task: %v", err)
			}
			if _, err := c.GetTask(t.Context(), agent.Endpoint(b), "task-404"); !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Errorf("get of an unknown task: %v", err)
			}
		})
	}
}

// TestRunDeliversAnswerOnce: when a resume fails with its fate unknown, Run asks the agent
// for the task, and sends the same message again only if the question is still open: every
// answer reaches the agent exactly once, and the human is asked each question once.
func TestRunDeliversAnswerOnce(t *testing.T) {
	tests := []struct {
		name  string
		fault a2atest.Fault
		n     int
	}{
		{"reply lost after the agent acted", a2atest.FaultLostReply, 1},
		{"agent unavailable, then its task query too", a2atest.Fault503, 2},
		{"proxy error page", a2atest.FaultHTML502, 1},
		{"rate limited", a2atest.Fault429, 1},
	}
	for _, tt := range tests {
		for _, profile := range a2atest.Profiles() {
			for _, b := range []a2a.Binding{a2a.JSONRPC03, a2a.REST10} {
				t.Run(tt.name+" "+profile.String()+" "+string(b), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						agent := a2atest.NewMemoryAgent(t, a2atest.WithQuestions(2), a2atest.WithProfile(profile))
						c := newClient(t, transport.WithHTTPClient(agent.Client()))
						p := start(t, c, agent.Endpoint(b), nil)
						agent.FailNext("", tt.fault, tt.n)
						asked := 0
						r, err := c.Run(t.Context(), p, func(context.Context, *a2a.Pause) (a2a.Answer, error) {
							asked++
							return a2a.HectorDecision(true), nil
						}, nil)
						if err != nil || r.Status != transport.StatusCompleted {
							t.Fatalf("Run = %v, %v", r, err)
						}
						st, _ := agent.Task(p.TaskID)
						if diff := cmp.Diff([]string{"approve", "approve"}, st.Answers); diff != "" || asked != 2 {
							t.Errorf("agent read (-want +got):\n%s; asked %d", diff, asked)
						}
					})
				})
			}
		}
	}
	t.Run("agent's own refusal is not retried", func(t *testing.T) {
		agent := a2atest.NewMemoryAgent(t)
		c := newClient(t, transport.WithHTTPClient(agent.Client()))
		p := start(t, c, agent.Endpoint(a2a.JSONRPC10), nil)
		gone := *p
		gone.TaskID = "task-404"
		_, err := c.Run(t.Context(), &gone, func(context.Context, *a2a.Pause) (a2a.Answer, error) { return a2a.HectorDecision(true), nil }, nil)
		if !errors.Is(err, a2a.ErrTaskNotFound) {
			t.Fatalf("Run = %v", err)
		}
		sends := 0
		for _, r := range agent.Requests() {
			if r.Operation == "SendMessage" {
				sends++
			}
		}
		if sends != 1 { // the first message: the task was asked for before the human
			t.Errorf("%d sends", sends)
		}
	})
}

// TestWaitRidesOutFaults: while a task waits (here for authorisation), polls that meet
// transient faults back off and carry on; the outcome is the same as without them.
func TestWaitRidesOutFaults(t *testing.T) {
	faults := []struct {
		name  string
		fault a2atest.Fault
	}{
		{"503 with Retry-After", a2atest.Fault503},
		{"429 with Retry-After", a2atest.Fault429},
		{"HTML 502 from a proxy", a2atest.FaultHTML502},
		{"truncated JSON", a2atest.FaultTruncated},
		{"agent internal error", a2atest.FaultInternal},
	}
	for _, f := range faults {
		for _, profile := range a2atest.Profiles() {
			for _, b := range bindings {
				t.Run(f.name+" "+profile.String()+" "+string(b), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						agent := a2atest.NewMemoryAgent(t, a2atest.WithAuthFirst(), a2atest.WithProfile(profile))
						c := newClient(t, transport.WithHTTPClient(agent.Client()))
						p := start(t, c, agent.Endpoint(b), nil)
						agent.FailNext("", f.fault, 4)
						go func() {
							<-time.After(time.Minute)
							_ = agent.Authorize(p.TaskID)
						}()
						r, err := c.Run(t.Context(), p, func(context.Context, *a2a.Pause) (a2a.Answer, error) { return a2a.HectorDecision(true), nil }, nil)
						if err != nil || r.Status != transport.StatusCompleted {
							t.Fatalf("Run = %v, %v", r, err)
						}
						if st, _ := agent.Task(p.TaskID); len(st.Answers) != 1 {
							t.Errorf("agent read %v", st.Answers)
						}
					})
				})
			}
		}
	}
}
