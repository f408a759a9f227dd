// Package hitlgenkit connects Genkit Go tools (github.com/firebase/genkit/go) to hitlkit.
//
// On the tool side, a tool that needs a person's go-ahead calls [Approve] first thing, and a
// tool that asks the person for information calls [Ask]: on the tool's first run either one
// interrupts it (ai.InterruptWith) with a [Question], and Generate returns with
// FinishReason "interrupted".
//
// On the host side, [Questions] reads the questions from that response, the host puts each
// in front of a person through hitlkit — a HITL service ([hitl.Client.Do]), an HXP request,
// a Forwarder, any transport.Waiter — and [Answer] turns the Results into the restart
// parts (ai.WithToolRestarts) that Generate resumes with. Every question is restarted with
// its Result in the tool's resumed metadata; an edit is restarted with the edited fields put
// over the model's arguments as the tool's new input (the restart ai.ToolAction.RestartWith
// makes with ai.WithNewInput), when they fit the tool's input schema.
// The restarted tool goes ahead only when Approve says so: on an approval
// ([transport.Result.Approved]) or an edit that fits; a rejection, an expiry (whatever its default
// action), a cancellation, a failure or no Result at all returns, for the model, a line
// saying it did not run and why.
//
// Genkit keeps no checkpoint of its own: a run is resumed from its messages. A host that may
// stop while a person decides keeps them with [Keep] in a [HistoryStore], opens each
// question's case with [Labels] on a client with a [hitl.Store], and on start passes
// [ResumeHandler] to [hitl.Client.Resume]: the run resumes in the new process from its
// messages, and the tool runs once.
package hitlgenkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/firebase/genkit/go/ai"
	"github.com/xeipuuv/gojsonschema"

	"github.com/hitlkit/hitlkit/internal/toolgate"
	"github.com/hitlkit/hitlkit/transport"
)

// Question is what a tool asks a person with [Approve] or [Ask]. It is the interrupt's
// metadata (ai.InterruptAs reads it from the interrupted part).
type Question struct {
	// Prompt is what the person is asked.
	Prompt string `json:"prompt"`
	// Input is true for [Ask]: the person is asked for information, not a yes or no, and
	// the Result's Data is the answer.
	Input bool `json:"input,omitempty"`
	// Tool and Ref are the tool's name and the model's tool request ref, and Arguments the
	// request's input as JSON. Set by [Questions].
	Tool      string          `json:"-"`
	Ref       string          `json:"-"`
	Arguments json.RawMessage `json:"-"`
	// Part is the interrupted tool request: the part a restart is made from. Set by
	// [Questions].
	Part *ai.Part `json:"-"`
}

// The keys of the tool's resumed metadata (ai.ToolContext.Resumed).
const (
	resumedResult  = "hitlkit_result"  // the person's Result, as JSON
	resumedPending = "hitlkit_pending" // restarted only so that another question could be answered
	resumedUnfit   = "hitlkit_unfit"   // the edit did not fit the tool's input: the line for the model
)

// Approve is called first thing in a Genkit tool that must not act without a person's
// go-ahead. On the tool's first run it interrupts the tool with a [Question] asking prompt:
// the tool returns the error (err) as it is. Restarted by [Answer] or [ResumeHandler], it
// reports ok when the person approved ([transport.Result.Approved]), or edited the
// arguments and the restart carries them as the tool's new input (the input the tool
// received: the edited fields over the model's, see [Restart]); the tool then acts, once.
// An edit that did not fit the tool's input schema gives "not run: the person's edit does
// not fit the tool's arguments: " and how. Otherwise ok is false and why is the line for the
// model ("not run: the person rejected it: …"): the tool returns it as its output, or
// however its output type can say so. Restarted only so that another question of the run
// could be answered, it interrupts again with the same question.
func Approve(tc *ai.ToolContext, prompt string) (ok bool, why string, err error) {
	r, asked, err := ask(tc, Question{Prompt: prompt})
	if !asked {
		return false, "", err
	}
	run, edited, why := toolgate.Outcome(r)
	if run && edited != nil {
		if unfit, ok := tc.Resumed[resumedUnfit].(string); ok {
			return false, unfit, nil
		}
		if tc.OriginalInput == nil {
			return false, "not run: the person edited the call but the restart did not carry the edit", nil
		}
	}
	return run, why, nil
}

// Ask is called by a Genkit tool that asks the person for information. On the tool's first
// run it interrupts the tool with a [Question] asking question (Input true): the tool
// returns the error as it is. Restarted with the person's Result, it returns the answer —
// the Result's data, raw JSON — when the case completed with a person's answer (an approval
// or an answer, no default applied); otherwise answer is nil and why is the line for the
// model ("no answer: the request expired …").
func Ask(tc *ai.ToolContext, question string) (answer json.RawMessage, why string, err error) {
	r, asked, err := ask(tc, Question{Prompt: question, Input: true})
	if !asked {
		return nil, "", err
	}
	answer, _, why = toolgate.Answer(r)
	return answer, why, nil
}

// ask interrupts on the first run and when restarted only for another question; restarted
// with a Result (or without one, by hand), it returns that Result (nil when none).
func ask(tc *ai.ToolContext, q Question) (*transport.Result, bool, error) {
	if tc == nil {
		return nil, false, errors.New("hitlgenkit: no tool context")
	}
	if !tc.IsResumed() || tc.Resumed[resumedPending] == true {
		return nil, false, ai.InterruptWith(tc, q)
	}
	raw, ok := tc.Resumed[resumedResult].(string)
	if !ok {
		return nil, true, nil
	}
	var r transport.Result
	if json.Unmarshal([]byte(raw), &r) != nil {
		return nil, true, nil
	}
	return &r, true, nil
}

// Questions returns the questions of an interrupted response (ai.FinishReasonInterrupted),
// in the order of its interrupted tool requests; interrupts of other tools are left out
// (answer them as those tools expect).
func Questions(resp *ai.ModelResponse) []Question {
	if resp == nil {
		return nil
	}
	var out []Question
	for _, p := range resp.Interrupts() {
		q, ok := ai.InterruptAs[Question](p)
		if !ok || q.Prompt == "" || p.ToolRequest == nil {
			continue
		}
		q.Tool, q.Ref, q.Part = p.ToolRequest.Name, p.ToolRequest.Ref, p
		q.Arguments, _ = json.Marshal(p.ToolRequest.Input)
		out = append(out, q)
	}
	return out
}

// Asker puts one question in front of a person and returns the person's Result: a HITL
// service call (hitl.Client.Do with hitl.CallOptions.EveryDecisionOK, so that a rejection is
// a Result rather than an error, and with [Labels] for a host that may restart), an HXP
// request, a Forwarder and a transport.Waiter — whichever way the host chooses. A
// rejection, an expiry or a cancellation is a Result, which the tool turns into "not run"
// and why; an error means the outcome is unknown, and [Answer] then resumes nothing.
type Asker func(ctx context.Context, q Question) (*transport.Result, error)

// Answer asks every question at once, each with ask, and returns the restart parts that
// resume the run with every Result (Generate with ai.WithMessages(resp.History()...) and
// ai.WithToolRestarts(parts...)). tools are the run's tools (each question's tool among
// them). If any ask fails, Answer returns no parts and the errors, once every ask has
// returned. Cancelling ctx cancels the asks.
func Answer(ctx context.Context, qs []Question, ask Asker, tools ...ai.Tool) ([]*ai.Part, error) {
	if ask == nil {
		return nil, errors.New("hitlgenkit: Answer needs an Asker")
	}
	results, err := toolgate.AskAll(ctx, qs, ask,
		func(i int, q Question) error {
			if q.Part == nil {
				return fmt.Errorf("hitlgenkit: question %d (%s) has no part: take questions from Questions", i, q.Tool)
			}
			return nil
		},
		func(q Question, err error) error {
			return fmt.Errorf("hitlgenkit: ask %s (ref %s): %w", q.Tool, q.Ref, err)
		})
	if err != nil {
		return nil, err
	}
	parts := make([]*ai.Part, len(qs))
	for i, q := range qs {
		p, err := Restart(q.Part, results[i], tools...)
		if err != nil {
			return nil, err
		}
		parts[i] = p
	}
	return parts, nil
}

// ErrNoTool: the tool a question belongs to is not among the tools given.
var ErrNoTool = errors.New("hitlgenkit: the question's tool is not among the tools given")

// Restart returns the part that restarts the interrupted tool request part with the
// person's Result r (nil: no Result, which the tool takes as no decision): the Result goes
// in the tool's resumed metadata, and an edit's arguments become the tool's new input, as
// ai.ToolAction.RestartWith does with ai.WithNewInput. An edit holds the fields the person
// changed (the approval's "edits" object): each is put over the request's input, and the
// fields not edited keep the model's values. When the merged input does not fit the tool's
// input schema (the check Genkit makes before it runs a tool: a wrong type, a field the
// tool does not have), the request is restarted with its own input and [Approve] tells the
// model the edit did not fit, so that Generate goes on rather than failing. tools must hold
// the part's tool (ErrNoTool).
func Restart(part *ai.Part, r *transport.Result, tools ...ai.Tool) (*ai.Part, error) {
	return restart(part, r, false, tools)
}

func restart(part *ai.Part, r *transport.Result, pending bool, tools []ai.Tool) (*ai.Part, error) {
	if part == nil || !part.IsToolRequest() {
		return nil, errors.New("hitlgenkit: Restart needs an interrupted tool request part")
	}
	var t ai.Tool
	for _, c := range tools {
		if c != nil && c.Name() == part.ToolRequest.Name {
			t = c
		}
	}
	if t == nil {
		return nil, fmt.Errorf("%w: %q", ErrNoTool, part.ToolRequest.Name)
	}
	meta := map[string]any{}
	opts := &ai.RestartOptions{ResumedMetadata: meta}
	if pending {
		meta[resumedPending] = true
	} else if r != nil {
		b, err := json.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("hitlgenkit: restart %s: %w", part.ToolRequest.Name, err)
		}
		meta[resumedResult] = string(b)
		if run, edited, _ := toolgate.Outcome(r); run && edited != nil {
			if in, err := editedInput(part, edited, t); err != nil {
				meta[resumedUnfit] = toolgate.Unfit(err)
			} else {
				opts.ReplaceInput = in
			}
		}
	}
	p := t.Restart(part, opts)
	if p == nil {
		return nil, fmt.Errorf("hitlgenkit: %s made no restart", part.ToolRequest.Name)
	}
	return p, nil
}

// editedInput is the tool's new input for an edit: the edited fields over the request's
// input (toolgate.Edit), each a field of the tool's input schema (toolgate.Unknown), checked
// against that schema as Genkit checks a restart's input (gojsonschema), so that an edit that
// does not fit is told to the model instead of failing Generate or being dropped.
func editedInput(part *ai.Part, edits json.RawMessage, t ai.Tool) (map[string]any, error) {
	args, err := json.Marshal(part.ToolRequest.Input)
	if err != nil {
		return nil, errors.New("the model's arguments cannot be read")
	}
	merged, err := toolgate.Edit(args, edits)
	if err != nil {
		return nil, err
	}
	if def := t.Definition(); def != nil && def.InputSchema != nil {
		schema, err := json.Marshal(def.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("the tool's input schema cannot be read: %w", err)
		}
		if err := toolgate.Unknown(schema, edits); err != nil {
			return nil, err
		}
		res, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(schema), gojsonschema.NewBytesLoader(merged))
		if err != nil {
			return nil, fmt.Errorf("the tool's input schema cannot be checked: %w", err)
		}
		if !res.Valid() {
			var errs []string
			for _, e := range res.Errors() {
				errs = append(errs, e.String())
			}
			return nil, errors.New(strings.Join(errs, "; "))
		}
	}
	var in map[string]any
	if err := json.Unmarshal(merged, &in); err != nil {
		return nil, err
	}
	return in, nil
}
