package a2a_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/transport"
)

// unreachable is an Asker's own typed error.
type unreachable struct{ who string }

func (e *unreachable) Error() string { return e.who + " unreachable" }

// TestRunAskerError: an Asker's error ends Run with an error that says it came from the
// Asker and names the task asked about, and still matches the Asker's error with errors.Is
// and errors.As (a context's end included); the task stays paused.
func TestRunAskerError(t *testing.T) {
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			agent := a2atest.NewMemoryAgent(t)
			c := newClient(t, transport.WithHTTPClient(agent.Client()))
			p := start(t, c, agent.Endpoint(b), nil)
			human := &unreachable{"human"}
			for _, askErr := range []error{human, context.DeadlineExceeded} {
				_, err := c.Run(t.Context(), p, func(context.Context, *a2a.Pause) (a2a.Answer, error) { return a2a.Answer{}, askErr }, nil)
				if !errors.Is(err, askErr) {
					t.Errorf("Run = %v, want it to match the Asker's %v", err, askErr)
				}
				if msg := err.Error(); !strings.Contains(msg, "Asker") || !strings.Contains(msg, "task "+p.TaskID) || !strings.HasSuffix(msg, askErr.Error()) {
					t.Errorf("Run = %q, want it to say the Asker's error came from the Asker about task %s", msg, p.TaskID)
				}
			}
			var ue *unreachable
			if _, err := c.Run(t.Context(), p, func(context.Context, *a2a.Pause) (a2a.Answer, error) { return a2a.Answer{}, human }, nil); !errors.As(err, &ue) || ue != human {
				t.Errorf("Run = %v, want errors.As to give the Asker's *unreachable", err)
			}
			if task, err := c.GetTask(t.Context(), p.Endpoint, p.TaskID); err != nil || task.State != a2a.StateInputRequired {
				t.Errorf("task after the Asker's error: %+v, %v; want it still asking", task, err)
			}
		})
	}
}
