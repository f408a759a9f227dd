// Package hitleino connects CloudWeGo Eino agents (github.com/cloudwego/eino) to hitlkit.
//
// On the tool side, [Approval] wraps an Eino tool so that every call first asks a person,
// and [Input] is a tool the model calls to ask a person for information. Either one
// interrupts the run with tool.StatefulInterrupt, carrying a [Question]; the run's Runner
// saves its checkpoint and ends with an interrupted event.
//
// On the host side, [Questions] reads the questions from that event, the host puts each in
// front of a person through hitlkit — a HITL service ([hitl.Client.Do]), an HXP request, a
// Forwarder, any [transport.Waiter] — and [Answer] turns the Results into the
// adk.ResumeParams that Runner.ResumeWithParams resumes the run with. The resumed tool runs
// its wrapped tool once only when the person approved ([transport.Result.Approved]) or
// edited the arguments (the edited fields over the model's, if they fit the tool); a
// rejection, an expiry (whatever its default action), a cancellation, a failure or no Result
// at all runs nothing and tells the model why.
//
// A host that may stop while a person decides opens each question's case with [Labels] on
// a client with a [hitl.Store], keeps Eino's checkpoints in a durable CheckPointStore, and
// on start passes [ResumeHandler] to [hitl.Client.Resume]: the run resumes in the new
// process from its checkpoint, and the tool runs once.
package hitleino

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/xeipuuv/gojsonschema"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/internal/toolgate"
	"github.com/hitlkit/hitlkit/transport"
)

func init() {
	// The question is the interrupt's state, which the Runner saves with gob in its
	// checkpoint; a gob value held in an interface needs its type registered.
	schema.RegisterName[*Question]("hitlkit_hitleino_question")
}

// Question is what a tool wrapped by [Approval] or made by [Input] asks a person. It is the
// interrupt's info (in the run's interrupted event) and its state (in the checkpoint).
type Question struct {
	// ID is the interrupt's id in the run (adk.InterruptCtx.ID): the key its Result resumes
	// it under (adk.ResumeParams.Targets). Set by [Questions]; empty inside the tool. Eino
	// gives a new ID each time the question interrupts again (after another question of the
	// run was answered): take it from the latest interrupted event.
	ID string
	// Tool is the tool's name and CallID the model's tool call id.
	Tool   string
	CallID string
	// Arguments are the call's arguments as the model gave them (JSON); for an [Input]
	// tool, the model's question as JSON ({"question": "..."}).
	Arguments string
	// Prompt is what the person is asked.
	Prompt string
	// Input is true for an [Input] tool: the person is asked for information, not a yes or
	// no, and the Result's Data is what the tool returns.
	Input bool
}

// Approval wraps t so that each call asks a person first: the call interrupts the run with
// a [Question] whose Prompt is prompt(arguments) (nil: "Run <tool> with <arguments>?"), and
// when the run is resumed with the person's *transport.Result under the question's ID, t
// runs once with the model's arguments if the Result is Approved, or with the edited
// arguments if the person edited them (Action "edit", an approval review's "edits" object,
// on a completed case with no default applied). An edit holds the fields the person changed:
// each is put over the model's arguments, and the fields not edited keep the model's values.
// When the merged arguments do not fit the tool's parameters (its ToolInfo's ParamsOneOf,
// checked as a JSON Schema: a wrong type, a field the tool does not have), t does not run
// and the model is told "not run: the person's edit does not fit the tool's arguments: " and
// how; the run goes on. Any other Result — a rejection, an expiry even with default_action
// approve, a cancellation, a failure, a nil or missing Result — runs nothing: the tool
// returns, for the model, a line saying it did not run and why.
// Resumed without data for it (another question of the same run was answered), the call
// interrupts again with the same question.
func Approval(t tool.InvokableTool, prompt func(arguments string) string) tool.InvokableTool {
	return &approval{inner: t, prompt: prompt}
}

type approval struct {
	inner  tool.InvokableTool
	prompt func(string) string
}

func (a *approval) Info(ctx context.Context) (*schema.ToolInfo, error) { return a.inner.Info(ctx) }

func (a *approval) InvokableRun(ctx context.Context, args string, opts ...tool.Option) (string, error) {
	r, asked, err := ask(ctx, func() (*Question, error) {
		info, err := a.inner.Info(ctx)
		if err != nil {
			return nil, err
		}
		q := &Question{Tool: info.Name, CallID: compose.GetToolCallID(ctx), Arguments: args}
		if a.prompt != nil {
			q.Prompt = a.prompt(args)
		} else {
			q.Prompt = fmt.Sprintf("Run %s with %s?", info.Name, args)
		}
		return q, nil
	})
	if !asked {
		return "", err
	}
	run, edited, why := Outcome(r)
	if !run {
		return why, nil
	}
	if edited != "" {
		merged, err := toolgate.Edit(json.RawMessage(args), json.RawMessage(edited))
		if err == nil {
			err = a.fits(ctx, json.RawMessage(edited), merged)
		}
		if err != nil {
			return toolgate.Unfit(err), nil
		}
		args = string(merged)
	}
	return a.inner.InvokableRun(ctx, args, opts...)
}

// fits checks an edit against the wrapped tool's parameters (its ToolInfo's ParamsOneOf as a
// JSON Schema; a tool without parameters takes any object): each edited field must be one
// of them (toolgate.Unknown), and the merged arguments must fit the schema, so that an edit
// the tool cannot take is told to the model rather than failing the run or being dropped.
func (a *approval) fits(ctx context.Context, edits, args json.RawMessage) error {
	info, err := a.inner.Info(ctx)
	if err != nil {
		return fmt.Errorf("the tool's parameters cannot be read: %w", err)
	}
	if info == nil || info.ParamsOneOf == nil {
		return nil
	}
	s, err := info.ParamsOneOf.ToJSONSchema()
	if err != nil {
		return fmt.Errorf("the tool's parameters cannot be read: %w", err)
	}
	if s == nil {
		return nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("the tool's parameters cannot be read: %w", err)
	}
	if err := toolgate.Unknown(b, edits); err != nil {
		return err
	}
	res, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(b), gojsonschema.NewBytesLoader(args))
	if err != nil {
		return fmt.Errorf("the tool's parameters cannot be checked: %w", err)
	}
	if res.Valid() {
		return nil
	}
	var errs []string
	for _, e := range res.Errors() {
		errs = append(errs, e.String())
	}
	return errors.New(strings.Join(errs, "; "))
}

// Input returns a tool named name that the model calls with {"question": "..."} to ask a
// person: the call interrupts the run with a [Question] (Input true, Prompt the model's
// question), and when the run is resumed with the person's *transport.Result the tool
// returns the person's answer — the Result's Data, raw JSON — to the model, if the case
// completed with a person's answer (an approval or an answer; no default applied).
// Otherwise it returns a line saying no answer came and why.
func Input(name, description string) tool.InvokableTool {
	return &input{info: &schema.ToolInfo{Name: name, Desc: description,
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"question": {Type: schema.String, Desc: "What to ask the person.", Required: true},
		})}}
}

type input struct{ info *schema.ToolInfo }

func (in *input) Info(context.Context) (*schema.ToolInfo, error) { return in.info, nil }

func (in *input) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	r, asked, err := ask(ctx, func() (*Question, error) {
		var a struct {
			Question string `json:"question"`
		}
		if err := json.Unmarshal([]byte(args), &a); err != nil || strings.TrimSpace(a.Question) == "" {
			return nil, errBadInput
		}
		return &Question{Tool: in.info.Name, CallID: compose.GetToolCallID(ctx), Arguments: args, Prompt: a.Question, Input: true}, nil
	})
	if errors.Is(err, errBadInput) {
		return `not asked: the arguments must be {"question": "..."}`, nil
	}
	if !asked {
		return "", err
	}
	answer, ok, why := toolgate.Answer(r)
	if !ok {
		return why, nil
	}
	return string(answer), nil
}

var errBadInput = errors.New("hitleino: bad input arguments")

// ask is the interrupt-and-resume protocol both tools share. On the first run it interrupts
// with the question build makes (asked false, err the interrupt). Resumed with an answer for
// it — in ctx from [ResumeHandler], or as the resume target's data — it returns that Result
// (nil when none or of another type) and asked true. Resumed for another question, it
// interrupts again with the saved question.
func ask(ctx context.Context, build func() (*Question, error)) (r *transport.Result, asked bool, err error) {
	was, _, q := tool.GetInterruptState[*Question](ctx)
	if !was || q == nil {
		q, err := build()
		if err != nil {
			return nil, false, err
		}
		return nil, false, tool.StatefulInterrupt(ctx, q, q)
	}
	if a, ok := ctx.Value(answerKey{}).(answer); ok && a.tool == q.Tool && a.call == q.CallID {
		return a.result, true, nil
	}
	target, _, r := tool.GetResumeContext[*transport.Result](ctx)
	if !target {
		return nil, false, tool.StatefulInterrupt(ctx, q, q)
	}
	return r, true, nil
}

// answer is the Result [ResumeHandler] resumes a run with, for the question of one tool call.
type answer struct {
	tool, call string
	result     *transport.Result
}

type answerKey struct{}

// Outcome is what an [Approval] tool does with r: run reports whether the wrapped tool runs
// — only for an Approved Result, or for an edit (Action "edit" on a completed case, no
// default applied) whose data holds the edited fields as a JSON object in "edits", returned
// in edited; the tool puts them over the model's arguments and runs only if the result fits
// its parameters. When it does not run, why is the line the model gets instead:
// "not run: " and what happened (rejected, expired, cancelled, failed, no decision), with
// the person's feedback or the service's reason when there is one.
func Outcome(r *transport.Result) (run bool, edited string, why string) {
	run, e, why := toolgate.Outcome(r)
	return run, string(e), why
}

// Questions returns the questions an interrupted event holds, each with its ID: those of
// [Approval] and [Input] tools, in the order of the event's interrupt contexts. Other
// interrupts are left out (resume them as their components expect).
func Questions(ev *adk.AgentEvent) []Question {
	if ev == nil || ev.Action == nil || ev.Action.Interrupted == nil {
		return nil
	}
	var out []Question
	for _, ic := range ev.Action.Interrupted.InterruptContexts {
		if q, ok := ic.Info.(*Question); ok && q != nil && ic.IsRootCause {
			c := *q
			c.ID = ic.ID
			out = append(out, c)
		}
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

// Answer asks every question at once, each with ask, and returns the parameters that resume
// the run with every Result (Runner.ResumeWithParams). If any ask fails, Answer returns no
// parameters and the errors, once every ask has returned. Cancelling ctx cancels the asks.
func Answer(ctx context.Context, qs []Question, ask Asker) (*adk.ResumeParams, error) {
	if ask == nil {
		return nil, errors.New("hitleino: Answer needs an Asker")
	}
	results, err := toolgate.AskAll(ctx, qs, ask,
		func(i int, q Question) error {
			if q.ID == "" {
				return fmt.Errorf("hitleino: question %d (%s) has no ID: take questions from Questions", i, q.Tool)
			}
			return nil
		},
		func(q Question, err error) error {
			return fmt.Errorf("hitleino: ask %s (call %s): %w", q.Tool, q.CallID, err)
		})
	if err != nil {
		return nil, err
	}
	p := &adk.ResumeParams{Targets: map[string]any{}}
	for i, q := range qs {
		p.Targets[q.ID] = results[i]
	}
	return p, nil
}

// The label keys [Labels] puts on an interrupt.
const (
	labelCheckpoint = "eino.checkpoint"
	labelTool       = "eino.tool"
	labelCall       = "eino.call_id"
)

// Labels are the keys to open a question's case with (hitl.CallOptions.Labels): the run's
// checkpoint id (adk.WithCheckPointID), and the question's tool and tool call id. The
// interrupt keeps them, in its JSON and in a hitl.Store, so that a host that restarts
// resumes the right run at the right tool call ([ResumeHandler]). (Not the question's ID:
// Eino gives an interrupt a new ID each time it interrupts again.) A tool and a tool call id
// name one question only while the model's call ids are unique within the run.
func Labels(checkpointID string, q Question) map[string]string {
	return map[string]string{labelCheckpoint: checkpointID, labelTool: q.Tool, labelCall: q.CallID}
}

// ErrNotEino: the interrupt [ResumeHandler] was given carries no [Labels].
var ErrNotEino = errors.New("hitleino: the interrupt carries no Eino labels")

// ResumeHandler returns the hitl.ResumeHandler that resumes, in this process, the Eino run
// an interrupt of a previous process was opened for: it reads the checkpoint id, the tool
// and the tool call id from the interrupt's [Labels], resumes r (whose CheckPointStore is
// store and holds that checkpoint) with Runner.Resume and the Result for that tool call, and
// passes each event of the resumed run to events (nil: dropped). The other questions of the
// run interrupt again, and the run saves its checkpoint under the same id; resumes of one
// checkpoint are made one at a time, so two questions of one run answered at once are
// answered in turn.
//
// When the resumed run ends without interrupting again, the checkpoint is deleted if store
// is an adk.CheckPointDeleter, so that the same Result delivered again (hitl's Resume is at
// least once: a crash before it deleted the interrupt) finds no checkpoint and runs
// nothing: a missing checkpoint is taken as already resumed. A run that ends in an error
// event has been given the Result all the same: the error reaches events and the handler
// returns nil, so that the Result is not given again. A checkpoint that cannot be loaded, or
// an interrupt without Labels (ErrNotEino), fails the handler and the interrupt stays in the
// hitl store.
func ResumeHandler(r *adk.Runner, store adk.CheckPointStore, events func(*adk.AgentEvent)) hitl.ResumeHandler {
	var locks toolgate.Locks // one resume of a run at a time
	return func(ctx context.Context, it *hitl.Interrupt, res *transport.Result) error {
		if r == nil || store == nil {
			return errors.New("hitleino: ResumeHandler needs a Runner and its CheckPointStore")
		}
		if it == nil || it.Labels[labelCheckpoint] == "" || it.Labels[labelTool] == "" {
			return ErrNotEino
		}
		cp := it.Labels[labelCheckpoint]
		defer locks.Lock(cp)()
		if _, ok, err := store.Get(ctx, cp); err != nil {
			return fmt.Errorf("hitleino: checkpoint %s: %w", cp, err)
		} else if !ok {
			return nil // resumed before, and finished
		}
		ctx = context.WithValue(ctx, answerKey{}, answer{tool: it.Labels[labelTool], call: it.Labels[labelCall], result: res})
		iter, err := r.Resume(ctx, cp)
		if err != nil {
			return fmt.Errorf("hitleino: resume checkpoint %s: %w", cp, err)
		}
		interrupted := false
		for {
			ev, ok := iter.Next()
			if !ok {
				break
			}
			if ev.Action != nil && ev.Action.Interrupted != nil {
				interrupted = true
			}
			if events != nil {
				events(ev)
			}
		}
		if d, ok := store.(adk.CheckPointDeleter); ok && !interrupted {
			if err := d.Delete(ctx, cp); err != nil {
				return fmt.Errorf("hitleino: delete checkpoint %s: %w", cp, err)
			}
		}
		return nil
	}
}
