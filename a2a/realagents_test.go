package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/transport"
)

// TestResumeAnsweredByAnotherTask: an agent of the previous Hector generation answers a
// resume for a task that has ended (or that it never knew) by starting a new task. That task
// is never the answer: Resume and Run fail with ErrTaskMismatch naming both ids, and the new
// task's question never reaches the Asker.
func TestResumeAnsweredByAnotherTask(t *testing.T) {
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(a2atest.ProfileLegacyHector))
			c := newClient(t, a2a.WithHTTPClient(agent.Client()))
			p := start(t, c, agent.Endpoint(b), nil)
			if _, err := c.Resume(t.Context(), p, a2a.HectorDecision(true)); err != nil {
				t.Fatal(err)
			}
			// The task has completed; the same pause, resumed again, reaches a new task.
			_, err := c.Resume(t.Context(), p, a2a.HectorDecision(true))
			var me *transport.MismatchError
			if !errors.Is(err, a2a.ErrTaskMismatch) || !errors.As(err, &me) || me.Want != p.TaskID || me.Got == p.TaskID || me.Got == "" {
				t.Fatalf("Resume of an ended task = %v, want a mismatch naming %s and the new task", err, p.TaskID)
			}
			gone := *p
			gone.TaskID = "task-unknown"
			asked := 0
			_, err = c.Run(t.Context(), &gone, func(context.Context, *a2a.Pause) (a2a.Answer, error) {
				asked++
				return a2a.HectorDecision(true), nil
			}, nil)
			if !errors.Is(err, a2a.ErrTaskMismatch) || asked != 1 {
				t.Fatalf("Run on an unknown task = %v after %d questions, want a mismatch after the one question", err, asked)
			}
		})
	}
}

// TestWaitIgnoresAnotherTask: a task query answered with another task (a proxy mixing up
// answers, an agent confused by its ids) is not the outcome; the wait carries on and returns
// the task asked about when it comes — nothing is lost to the check.
func TestWaitIgnoresAnotherTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var polls atomic.Int32
		agent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			id := "task-mine"
			if polls.Add(1) <= 2 {
				id = "task-other"
			}
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"`+id+`","contextId":"ctx","status":{"state":"completed"}}}`)
		})
		c := newClient(t, a2a.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: agent}}))
		ep := a2a.Endpoint{URL: "https://agent.test/rpc03", Binding: a2a.JSONRPC03}
		p := &a2a.Pause{Class: a2a.ClassAuthRequired, Endpoint: ep, TaskID: "task-mine", ContextID: "ctx"}
		task, err := c.Wait(t.Context(), p, nil)
		if err != nil || task.ID != "task-mine" || task.State != a2a.StateCompleted {
			t.Fatalf("Wait = %+v, %v", task, err)
		}
		if n := polls.Load(); n != 3 {
			t.Errorf("%d polls, want the two mismatches and the answer", n)
		}
	})
}

// TestNoQuestionAskedTwice: an agent that answers a resume with the task as it was before it
// read the answer (the question just answered, again) is polled until the task moves on; the
// human is asked each question once.
func TestNoQuestionAskedTwice(t *testing.T) {
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(a2atest.ProfileLegacyHector), a2atest.WithQuestions(2))
				c := newClient(t, a2a.WithHTTPClient(agent.Client()))
				p := start(t, c, agent.Endpoint(b), nil)
				var asked []string
				r, err := c.Run(t.Context(), p, func(_ context.Context, q *a2a.Pause) (a2a.Answer, error) {
					asked = append(asked, q.Question.MessageID)
					return a2a.HectorDecision(true), nil
				}, nil)
				if err != nil || r.Status != transport.StatusCompleted {
					t.Fatalf("Run = %v, %v", r, err)
				}
				if len(asked) != 2 || asked[0] == asked[1] {
					t.Errorf("questions asked: %q, want two different ones", asked)
				}
				gets := 0
				for _, req := range agent.Requests() {
					if strings.Contains(strings.ToLower(req.Method), "get") {
						gets++
					}
				}
				if gets < 2 {
					t.Errorf("%d task queries after stale replies, want at least 2", gets)
				}
			})
		})
	}
}

// TestEveryWaitEnds: an agent that keeps answering the task query with the same internal
// error ends the wait after DefaultMaxRepeats answers, with that error; errors that are not
// transient (invalid request, method not found, invalid params) end it at the first answer.
func TestEveryWaitEnds(t *testing.T) {
	t.Run("the same internal error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			agent := a2atest.NewMemoryAgent(t, a2atest.WithAuthFirst())
			var sent atomic.Int32
			counting := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				sent.Add(1)
				return agent.Client().Transport.RoundTrip(r)
			})
			c := newClient(t, a2a.WithHTTPClient(&http.Client{Transport: counting}))
			p := start(t, c, agent.Endpoint(a2a.JSONRPC10), nil)
			agent.FailNext(a2atest.FaultInternal, 1000)
			began := time.Now()
			_, err := c.Wait(t.Context(), p, nil)
			if !errors.Is(err, a2a.ErrRepeatedError) || !errors.Is(err, a2a.ErrInternal) {
				t.Fatalf("Wait = %v, want ErrRepeatedError wrapping ErrInternal", err)
			}
			if gets := int(sent.Load()) - 1; gets != a2a.DefaultMaxRepeats {
				t.Errorf("%d task queries, want %d", gets, a2a.DefaultMaxRepeats)
			}
			t.Logf("ended after %v (virtual)", time.Since(began))
		})
	})
	for _, tc := range []struct {
		code     int
		sentinel error
	}{{-32600, a2a.ErrInvalidRequest}, {-32601, a2a.ErrMethodNotFound}, {-32602, a2a.ErrInvalidParams}} {
		t.Run(tc.sentinel.Error(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var n atomic.Int32
				agent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					n.Add(1)
					body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "error": map[string]any{"code": tc.code, "message": "no"}})
					_, _ = w.Write(body)
				})
				c := newClient(t, a2a.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: agent}}))
				p := &a2a.Pause{Class: a2a.ClassAuthRequired, TaskID: "t1", Endpoint: a2a.Endpoint{URL: "https://agent.test/rpc", Binding: a2a.JSONRPC03}}
				if _, err := c.Wait(t.Context(), p, nil); !errors.Is(err, tc.sentinel) {
					t.Fatalf("Wait = %v, want %v", err, tc.sentinel)
				}
				if n.Load() != 1 {
					t.Errorf("%d queries, want 1", n.Load())
				}
			})
		})
	}
}

// TestRefusalShapes: a refusal to touch an ended task matches ErrTaskTerminal whatever its
// shape, and a REST 404 with a bare message matches ErrTaskNotFound; against the profiles
// that send them.
func TestRefusalShapes(t *testing.T) {
	for name, e := range map[string]*a2a.Error{
		"-32004":                      {Code: -32004, Message: "unsupported operation"},
		"phrase in message":           {Code: -32603, Message: "Task is in a terminal state"},
		"phrase in data":              {Code: -32000, Message: "error", Data: json.RawMessage(`"task already in terminal state completed"`)},
		"phrase in data.error":        {Code: -32602, Message: "invalid params", Data: json.RawMessage(`{"error":"task in a terminal state"}`)},
		"phrase in data.message":      {Code: -32603, Message: "failed", Data: json.RawMessage(`{"message":"TERMINAL state"}`)},
		"a2a-go v2 invalid params":    {Code: -32602, Message: "task in a terminal state"},
		"not terminal: invalid input": {Code: -32602, Message: "invalid params", Data: json.RawMessage(`{"error":"contextId mismatch"}`)},
	} {
		want := !strings.HasPrefix(name, "not terminal")
		if got := errors.Is(e, a2a.ErrTaskTerminal); got != want {
			t.Errorf("%s: Is(ErrTaskTerminal) = %v, want %v", name, got, want)
		}
	}
	t.Run("a2a-go v0.3 agent", func(t *testing.T) {
		agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(a2atest.ProfileA2AGoV03))
		c := newClient(t, a2a.WithHTTPClient(agent.Client()))
		p := start(t, c, agent.Endpoint(a2a.JSONRPC03), nil)
		if _, err := c.Resume(t.Context(), p, a2a.HectorDecision(false)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Resume(t.Context(), p, a2a.HectorDecision(false)); !errors.Is(err, a2a.ErrTaskTerminal) || !errors.Is(err, a2a.ErrInvalidParams) {
			t.Fatalf("Resume of an ended task = %v, want ErrTaskTerminal", err)
		}
	})
	t.Run("legacy REST 404", func(t *testing.T) {
		agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(a2atest.ProfileLegacyHector))
		c := newClient(t, a2a.WithHTTPClient(agent.Client()))
		_, err := c.GetTask(t.Context(), agent.Endpoint(a2a.REST10), "task-unknown")
		var ae *a2a.Error
		if !errors.Is(err, a2a.ErrTaskNotFound) || !errors.As(err, &ae) || ae.HTTPStatus != http.StatusNotFound {
			t.Fatalf("GetTask of an unknown task = %v, want ErrTaskNotFound with status 404", err)
		}
	})
}

// TestLegacyHectorReadsTheDataPart: the previous Hector generation reads the decision only
// from a wrapped data part; HectorDecision's data part carries it there, so the decision holds
// with neutral text beside it.
func TestLegacyHectorReadsTheDataPart(t *testing.T) {
	for _, approve := range []bool{true, false} {
		agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(a2atest.ProfileLegacyHector))
		c := newClient(t, a2a.WithHTTPClient(agent.Client()))
		p := start(t, c, agent.Endpoint(a2a.JSONRPC03), nil)
		d := a2a.HectorDecision(approve)
		neutral := a2a.Answer{Action: d.Action, Parts: []a2a.Part{a2a.TextPart("ok, noted"), d.Parts[1]}}
		if _, err := c.Resume(t.Context(), p, neutral); err != nil {
			t.Fatal(err)
		}
		st, _ := agent.Task(p.TaskID)
		if len(st.Answers) != 1 || st.Answers[0] != d.Action {
			t.Errorf("approve=%v: the agent read %v", approve, st.Answers)
		}
	}
}
