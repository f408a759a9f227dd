package hitlgenkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/firebase/genkit/go/ai"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/internal/toolgate"
	"github.com/hitlkit/hitlkit/transport"
)

// HistoryStore keeps the messages of the runs that wait for a person, by run id: Genkit's
// only checkpoint. It must outlive the process (a database, files) for a run to resume in
// another, and be safe for concurrent use. Get reports false for a run it does not hold.
type HistoryStore interface {
	Get(ctx context.Context, runID string) ([]byte, bool, error)
	Set(ctx context.Context, runID string, history []byte) error
	Delete(ctx context.Context, runID string) error
}

// Keep saves the messages of an interrupted response (resp.History()) in s under runID, for
// [ResumeHandler]; call it before asking the response's questions.
func Keep(ctx context.Context, s HistoryStore, runID string, resp *ai.ModelResponse) error {
	if s == nil || resp == nil || runID == "" {
		return errors.New("hitlgenkit: Keep needs a store, a run id and a response")
	}
	b, err := json.Marshal(resp.History())
	if err != nil {
		return fmt.Errorf("hitlgenkit: keep run %s: %w", runID, err)
	}
	return s.Set(ctx, runID, b)
}

// The label keys [Labels] puts on an interrupt.
const (
	labelRun  = "genkit.run"
	labelTool = "genkit.tool"
	labelRef  = "genkit.ref"
)

// Labels are the keys to open a question's case with (hitl.CallOptions.Labels): the run id
// its messages are kept under ([Keep]), the tool and the tool request's ref. The interrupt
// keeps them, in its JSON and in a hitl.Store, so that a host that restarts resumes the
// right run at the right tool request ([ResumeHandler]).
func Labels(runID string, q Question) map[string]string {
	return map[string]string{labelRun: runID, labelTool: q.Tool, labelRef: q.Ref}
}

// ErrNotGenkit: the interrupt [ResumeHandler] was given carries no [Labels].
var ErrNotGenkit = errors.New("hitlgenkit: the interrupt carries no Genkit labels")

// Generate resumes a run: Genkit's Generate with the run's model, tools and options, and
// ai.WithMessages(history...) and ai.WithToolRestarts(restarts...).
type Generate func(ctx context.Context, history []*ai.Message, restarts []*ai.Part) (*ai.ModelResponse, error)

// ResumeHandler returns the hitl.ResumeHandler that resumes, in this process, the Genkit run
// an interrupt of a previous process was opened for: it reads the run id, the tool and the
// ref from the interrupt's [Labels], loads the run's messages from s, and calls generate
// with them and a restart for each interrupted tool request of the last message — the one
// the interrupt is for with the Result, every other so that it interrupts again (Genkit
// resumes a message only with a directive for each of its interrupted requests). tools are
// the run's tools.
//
// A run that interrupts again has its new messages kept under the same id; resumes of one
// run are made one at a time, so two questions of one run answered at once are answered in
// turn. A run that ends — with a response or with an error, which done receives (nil: dropped) — has
// been given the Result: its messages are deleted and the handler returns nil, so that the
// same Result delivered again (hitl's Resume is at least once) finds no run and runs
// nothing. A run whose messages cannot be read, or an interrupt without Labels
// (ErrNotGenkit), fails the handler and the interrupt stays in the hitl store.
func ResumeHandler(s HistoryStore, generate Generate, done func(*ai.ModelResponse, error), tools ...ai.Tool) hitl.ResumeHandler {
	var locks toolgate.Locks // one resume of a run at a time
	return func(ctx context.Context, it *hitl.Interrupt, res *transport.Result) error {
		if s == nil || generate == nil {
			return errors.New("hitlgenkit: ResumeHandler needs a HistoryStore and a Generate")
		}
		if it == nil || it.Labels[labelRun] == "" || it.Labels[labelTool] == "" {
			return ErrNotGenkit
		}
		run := it.Labels[labelRun]
		defer locks.Lock(run)()
		b, ok, err := s.Get(ctx, run)
		if err != nil {
			return fmt.Errorf("hitlgenkit: run %s: %w", run, err)
		}
		if !ok {
			return nil // resumed before, and ended
		}
		var history []*ai.Message
		if err := json.Unmarshal(b, &history); err != nil || len(history) == 0 || history[len(history)-1] == nil {
			return fmt.Errorf("hitlgenkit: run %s: the kept messages cannot be read", run)
		}
		var (
			restarts []*ai.Part
			mine     bool
		)
		for _, p := range history[len(history)-1].Content {
			if p == nil || !p.IsInterrupt() || p.ToolRequest == nil {
				continue
			}
			this := p.ToolRequest.Name == it.Labels[labelTool] && p.ToolRequest.Ref == it.Labels[labelRef]
			mine = mine || this
			rp, err := restart(p, res, !this, tools)
			if err != nil {
				return fmt.Errorf("hitlgenkit: run %s: %w", run, err)
			}
			restarts = append(restarts, rp)
		}
		if !mine {
			return nil // this question was answered before
		}
		resp, err := generate(ctx, history, restarts)
		if resp != nil && resp.FinishReason == ai.FinishReasonInterrupted {
			return Keep(ctx, s, run, resp)
		}
		if done != nil {
			done(resp, err)
		}
		if err := s.Delete(ctx, run); err != nil {
			return fmt.Errorf("hitlgenkit: run %s: delete the kept messages: %w", run, err)
		}
		return nil
	}
}
