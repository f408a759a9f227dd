package hitleino_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/hitl/hitleino"
	"github.com/hitlkit/hitlkit/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// scripted is a chat model that answers a conversation without a tool result with calls, and
// one with tool results with a message holding every tool result, so a test reads what the
// model was told.
type scripted struct{ calls []schema.ToolCall }

func (m scripted) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	var told []string
	for _, msg := range in {
		if msg.Role == schema.Tool {
			told = append(told, msg.ToolCallID+"="+msg.Content)
		}
	}
	if len(told) == 0 {
		return schema.AssistantMessage("", m.calls), nil
	}
	return schema.AssistantMessage("told: "+strings.Join(told, " | "), nil), nil
}

func (scripted) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, errors.New("scripted: no streaming")
}

func (m scripted) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }

// deleteFile is a delete_file tool that records each run's arguments.
type deleteFile struct {
	mu   sync.Mutex
	runs []string
}

func (*deleteFile) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "delete_file", Desc: "Delete a file.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"path": {Type: schema.String, Required: true}, "backup": {Type: schema.Boolean}})}, nil
}

func (d *deleteFile) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.runs = append(d.runs, args)
	return "deleted " + args, nil
}

func (d *deleteFile) ran() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.runs...)
}

func call(id, name, args string) schema.ToolCall {
	return schema.ToolCall{ID: id, Type: "function", Function: schema.FunctionCall{Name: name, Arguments: args}}
}

// files is a durable Eino CheckPointStore: one file per checkpoint in dir.
type files struct{ dir string }

func (f files) path(id string) string { return filepath.Join(f.dir, hex.EncodeToString([]byte(id))) }

func (f files) Get(_ context.Context, id string) ([]byte, bool, error) {
	b, err := os.ReadFile(f.path(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	return b, err == nil, err
}

func (f files) Set(_ context.Context, id string, b []byte) error {
	return os.WriteFile(f.path(id), b, 0o600)
}

func (f files) Delete(_ context.Context, id string) error {
	err := os.Remove(f.path(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// newRunner is an Eino ChatModelAgent on a scripted model making calls, with tools, in a
// Runner keeping its checkpoints in store.
func newRunner(t *testing.T, store adk.CheckPointStore, calls []schema.ToolCall, tools ...tool.BaseTool) *adk.Runner {
	t.Helper()
	a, err := adk.NewChatModelAgent(t.Context(), &adk.ChatModelAgentConfig{
		Name: "files", Description: "Works on files.", Instruction: "Do what the user asks.",
		Model:       scripted{calls: calls},
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return adk.NewRunner(t.Context(), adk.RunnerConfig{Agent: a, CheckPointStore: store})
}

// drain reads a run to its end and returns its interrupted event (nil when it finished) and
// its last message.
func drain(t *testing.T, iter *adk.AsyncIterator[*adk.AgentEvent]) (interrupted *adk.AgentEvent, last string) {
	t.Helper()
	for {
		ev, ok := iter.Next()
		if !ok {
			return interrupted, last
		}
		if ev.Err != nil {
			t.Fatalf("run: %v", ev.Err)
		}
		if ev.Action != nil && ev.Action.Interrupted != nil {
			interrupted = ev
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil && ev.Output.MessageOutput.Message != nil {
			last = ev.Output.MessageOutput.Message.Content
		}
	}
}

var (
	approve = &transport.Result{Status: transport.StatusCompleted, Action: "approve", Decision: transport.DecisionApprove}
	reject  = &transport.Result{Status: transport.StatusCompleted, Action: "reject", Decision: transport.DecisionReject, Data: []byte(`{"feedback":"keep the report"}`)}
)

// TestApproval: against a real Eino Runner with a scripted model, a delete_file call wrapped
// with Approval interrupts the run before the tool runs; resumed with the person's Result, the
// tool runs once only on an approval (or with the edited arguments on an edit), and otherwise
// the model is told it did not run and why.
func TestApproval(t *testing.T) {
	for _, tt := range []struct {
		name   string
		result *transport.Result
		ran    []string // the arguments the tool ran with
		told   string   // in what the model was told
	}{
		{"approved", approve, []string{`{"path":"/tmp/report.txt"}`}, `deleted {"path":"/tmp/report.txt"}`},
		{"rejected", reject, nil, "not run: the person rejected it: keep the report"},
		{"expired with default approve", &transport.Result{Status: transport.StatusExpired, DefaultApplied: true, DefaultAction: "approve"}, nil, "not run: the request expired"},
		{"cancelled", &transport.Result{Status: transport.StatusCancelled, Reason: "superseded"}, nil, "not run: the request was cancelled: superseded"},
		{"failed", &transport.Result{Status: transport.StatusFailed}, nil, "not run: the request failed"},
		{"no result", nil, nil, "not run: no decision was given"},
		{"approve decision with a default applied", &transport.Result{Status: transport.StatusCompleted, Action: "approve", Decision: transport.DecisionApprove, DefaultApplied: true, DefaultAction: "approve"}, nil, "not run"},
		{"edited", &transport.Result{Status: transport.StatusCompleted, Action: "edit", Decision: transport.DecisionAnswer, Data: []byte(`{"edits":{"path":"/tmp/old-report.txt"}}`)},
			[]string{`{"path":"/tmp/old-report.txt"}`}, `deleted {"path":"/tmp/old-report.txt"}`},
		{"one field edited", &transport.Result{Status: transport.StatusCompleted, Action: "edit", Decision: transport.DecisionAnswer, Data: []byte(`{"edits":{"backup":true}}`)},
			[]string{`{"backup":true,"path":"/tmp/report.txt"}`}, `deleted {"backup":true,"path":"/tmp/report.txt"}`},
		{"edited with the wrong type", &transport.Result{Status: transport.StatusCompleted, Action: "edit", Decision: transport.DecisionAnswer, Data: []byte(`{"edits":{"path":5}}`)},
			nil, "not run: the person's edit does not fit the tool's arguments: path: Invalid type. Expected: string, given: integer"},
		{"edited with a field the tool does not have", &transport.Result{Status: transport.StatusCompleted, Action: "edit", Decision: transport.DecisionAnswer, Data: []byte(`{"edits":{"reason":"use another path"}}`)},
			nil, `not run: the person's edit does not fit the tool's arguments: the tool has no argument "reason"`},
		{"edited without arguments", &transport.Result{Status: transport.StatusCompleted, Action: "edit", Decision: transport.DecisionAnswer, Data: []byte(`{"feedback":"hm"}`)}, nil, "not run: the person edited the call but gave no arguments"},
		{"expired edit", &transport.Result{Status: transport.StatusExpired, Action: "edit", DefaultApplied: true, DefaultAction: "edit", Data: []byte(`{"edits":{"path":"/"}}`)}, nil, "not run: the request expired"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			del := &deleteFile{}
			store := files{t.TempDir()}
			r := newRunner(t, store, []schema.ToolCall{call("call-1", "delete_file", `{"path":"/tmp/report.txt"}`)}, hitleino.Approval(del, nil))
			ev, _ := drain(t, r.Query(t.Context(), "clean up the report", adk.WithCheckPointID("cp-1")))
			qs := hitleino.Questions(ev)
			if len(qs) != 1 || len(del.ran()) != 0 {
				t.Fatalf("questions %+v, runs %q: want one question and no run", qs, del.ran())
			}
			q := qs[0]
			if q.Tool != "delete_file" || q.CallID != "call-1" || q.Arguments != `{"path":"/tmp/report.txt"}` || q.Input || q.ID == "" ||
				q.Prompt != `Run delete_file with {"path":"/tmp/report.txt"}?` {
				t.Errorf("question %+v", q)
			}
			params, err := hitleino.Answer(t.Context(), qs, func(context.Context, hitleino.Question) (*transport.Result, error) { return tt.result, nil })
			if err != nil {
				t.Fatal(err)
			}
			iter, err := r.ResumeWithParams(t.Context(), "cp-1", params)
			if err != nil {
				t.Fatal(err)
			}
			ev, last := drain(t, iter)
			if ev != nil {
				t.Fatalf("interrupted again: %+v", hitleino.Questions(ev))
			}
			if got := del.ran(); fmt.Sprint(got) != fmt.Sprint(tt.ran) {
				t.Errorf("tool ran with %q, want %q", got, tt.ran)
			}
			if !strings.Contains(last, tt.told) {
				t.Errorf("the model was told %q, want %q in it", last, tt.told)
			}
		})
	}
}

// TestEditFitsTheTool: with a tool Eino builds from a Go function (utils.InferTool), which
// decodes its arguments itself, a person's edit is put over the model's arguments field by
// field; an edit the tool's arguments cannot take (a wrong type, a field the tool does not
// have) runs nothing, and the model is told so while the run goes on to its end.
func TestEditFitsTheTool(t *testing.T) {
	for _, tt := range []struct {
		name  string
		edits string
		ran   []string
		told  string
	}{
		{"one field", `{"Force":true}`, []string{"/tmp/report.txt force=true"}, "deleted /tmp/report.txt"},
		{"a field in another case", `{"path":"/tmp/old.txt"}`, []string{"/tmp/old.txt force=false"}, "deleted /tmp/old.txt"},
		{"the wrong type", `{"Path":5}`, nil, "not run: the person's edit does not fit the tool's arguments: Path: Invalid type. Expected: string, given: integer"},
		{"a field the tool does not have", `{"Reason":"use a different path please"}`, nil, `not run: the person's edit does not fit the tool's arguments: the tool has no argument "Reason"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var (
				mu  sync.Mutex
				ran []string
			)
			del, err := utils.InferTool("delete_file", "Delete a file.", func(_ context.Context, f struct {
				Path  string
				Force bool `json:",omitempty"`
			}) (string, error) {
				mu.Lock()
				defer mu.Unlock()
				ran = append(ran, fmt.Sprintf("%s force=%v", f.Path, f.Force))
				return "deleted " + f.Path, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			r := newRunner(t, files{t.TempDir()}, []schema.ToolCall{call("call-1", "delete_file", `{"Path":"/tmp/report.txt"}`)}, hitleino.Approval(del, nil))
			ev, _ := drain(t, r.Query(t.Context(), "clean up", adk.WithCheckPointID("cp")))
			edit := &transport.Result{Status: transport.StatusCompleted, Action: "edit", Decision: transport.DecisionAnswer, Data: []byte(`{"edits":` + tt.edits + `}`)}
			params, err := hitleino.Answer(t.Context(), hitleino.Questions(ev), func(context.Context, hitleino.Question) (*transport.Result, error) { return edit, nil })
			if err != nil {
				t.Fatal(err)
			}
			iter, err := r.ResumeWithParams(t.Context(), "cp", params)
			if err != nil {
				t.Fatal(err)
			}
			ev, last := drain(t, iter) // a run error fails the test here
			mu.Lock()
			defer mu.Unlock()
			if ev != nil || fmt.Sprint(ran) != fmt.Sprint(tt.ran) || !strings.Contains(last, tt.told) {
				t.Errorf("ran %q, told %q (interrupted %v); want ran %q, told %q", ran, last, ev != nil, tt.ran, tt.told)
			}
		})
	}
}

// TestResumeWithoutAnAnswer: Runner.Resume (no data for anyone) and a resume with data of
// another type are no go-ahead: the first asks again, the second runs nothing.
func TestResumeWithoutAnAnswer(t *testing.T) {
	del := &deleteFile{}
	r := newRunner(t, files{t.TempDir()}, []schema.ToolCall{call("call-1", "delete_file", `{"path":"/a"}`)}, hitleino.Approval(del, nil))
	ev, _ := drain(t, r.Query(t.Context(), "go", adk.WithCheckPointID("cp")))
	qs := hitleino.Questions(ev)
	iter, err := r.Resume(t.Context(), "cp")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := drain(t, iter)
	a := hitleino.Questions(again)
	if len(a) != 1 || a[0].CallID != qs[0].CallID || a[0].Arguments != `{"path":"/a"}` {
		t.Fatalf("after a blank resume: %+v, want the same question again", a)
	}
	iter, err = r.ResumeWithParams(t.Context(), "cp", &adk.ResumeParams{Targets: map[string]any{a[0].ID: "yes"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, last := drain(t, iter); len(del.ran()) != 0 || !strings.Contains(last, "not run: no decision") {
		t.Errorf("resumed with a string: ran %q, told %q", del.ran(), last)
	}
}

// TestTwoQuestionsInOneRun: a model message with two delete_file calls interrupts once with
// two questions, each with its own ID and arguments; each Result reaches its own call, and
// answering one leaves the other asking.
func TestTwoQuestionsInOneRun(t *testing.T) {
	del := &deleteFile{}
	r := newRunner(t, files{t.TempDir()}, []schema.ToolCall{
		call("call-a", "delete_file", `{"path":"/a"}`), call("call-b", "delete_file", `{"path":"/b"}`),
	}, hitleino.Approval(del, nil))
	ev, _ := drain(t, r.Query(t.Context(), "clean up", adk.WithCheckPointID("cp")))
	qs := hitleino.Questions(ev)
	if len(qs) != 2 || qs[0].ID == qs[1].ID {
		t.Fatalf("questions %+v: want two, apart", qs)
	}
	byCall := map[string]hitleino.Question{}
	for _, q := range qs {
		byCall[q.CallID] = q
	}
	a, b := byCall["call-a"], byCall["call-b"]
	if a.Arguments != `{"path":"/a"}` || b.Arguments != `{"path":"/b"}` {
		t.Fatalf("questions %+v", qs)
	}

	// Only b is answered (rejected): a asks again, nothing ran.
	iter, err := r.ResumeWithParams(t.Context(), "cp", &adk.ResumeParams{Targets: map[string]any{b.ID: reject}})
	if err != nil {
		t.Fatal(err)
	}
	ev, _ = drain(t, iter)
	left := hitleino.Questions(ev)
	if len(left) != 1 || left[0].CallID != "call-a" || len(del.ran()) != 0 {
		t.Fatalf("after answering b: questions %+v, runs %q; want a's question and no run", left, del.ran())
	}
	// a is approved, under its new ID: only a runs, and the model hears of both.
	iter, err = r.ResumeWithParams(t.Context(), "cp", &adk.ResumeParams{Targets: map[string]any{left[0].ID: approve}})
	if err != nil {
		t.Fatal(err)
	}
	ev, last := drain(t, iter)
	if ev != nil || fmt.Sprint(del.ran()) != `[{"path":"/a"}]` {
		t.Fatalf("after answering a: interrupted %v, runs %q", ev != nil, del.ran())
	}
	if !strings.Contains(last, `call-a=deleted {"path":"/a"}`) || !strings.Contains(last, "call-b=not run: the person rejected it") {
		t.Errorf("the model was told %q", last)
	}
}

// TestInput: the model asks the person with an Input tool; the person's answer is the tool's
// result; an expiry gives the model no answer and says why.
func TestInput(t *testing.T) {
	for _, tt := range []struct {
		name   string
		result *transport.Result
		told   string
	}{
		{"answered", &transport.Result{Status: transport.StatusCompleted, Action: "submit", Decision: transport.DecisionAnswer, Data: []byte(`{"name":"Ana"}`)}, `call-1={"name":"Ana"}`},
		{"expired", &transport.Result{Status: transport.StatusExpired, DefaultApplied: true, DefaultAction: "submit", Data: []byte(`{"name":"default"}`)}, "call-1=no answer: the request expired"},
		{"rejected", reject, "call-1=no answer: the person rejected it"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRunner(t, files{t.TempDir()}, []schema.ToolCall{call("call-1", "ask_human", `{"question":"Whose report is it?"}`)},
				hitleino.Input("ask_human", "Ask the person."))
			ev, _ := drain(t, r.Query(t.Context(), "whose?", adk.WithCheckPointID("cp")))
			qs := hitleino.Questions(ev)
			if len(qs) != 1 || !qs[0].Input || qs[0].Prompt != "Whose report is it?" {
				t.Fatalf("questions %+v", qs)
			}
			params, err := hitleino.Answer(t.Context(), qs, func(context.Context, hitleino.Question) (*transport.Result, error) { return tt.result, nil })
			if err != nil {
				t.Fatal(err)
			}
			iter, err := r.ResumeWithParams(t.Context(), "cp", params)
			if err != nil {
				t.Fatal(err)
			}
			if _, last := drain(t, iter); !strings.Contains(last, tt.told) {
				t.Errorf("the model was told %q, want %q", last, tt.told)
			}
		})
	}
}

// TestInputRefusesBadArguments: an Input call without a question asks no one and tells the
// model what it must send.
func TestInputRefusesBadArguments(t *testing.T) {
	r := newRunner(t, files{t.TempDir()}, []schema.ToolCall{call("call-1", "ask_human", `{"q":1}`)}, hitleino.Input("ask_human", "Ask."))
	ev, last := drain(t, r.Query(t.Context(), "?", adk.WithCheckPointID("cp")))
	if ev != nil || !strings.Contains(last, `not asked: the arguments must be {"question": "..."}`) {
		t.Errorf("interrupted %v, told %q", ev != nil, last)
	}
}

// TestAnswerCancelled: cancelling the asks returns an error and no parameters: the run is
// not resumed, and nothing runs.
func TestAnswerCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	qs := []hitleino.Question{{ID: "a", Tool: "delete_file"}, {ID: "b", Tool: "delete_file"}}
	started := make(chan struct{}, 2)
	done := make(chan struct{})
	var p *adk.ResumeParams
	var err error
	go func() {
		defer close(done)
		p, err = hitleino.Answer(ctx, qs, func(ctx context.Context, q hitleino.Question) (*transport.Result, error) {
			if q.ID == "a" {
				return approve, nil
			}
			started <- struct{}{}
			<-ctx.Done()
			return nil, context.Cause(ctx)
		})
	}()
	<-started
	cancel()
	<-done
	if p != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("Answer = %+v, %v; want no parameters and context.Canceled", p, err)
	}
	if _, err := hitleino.Answer(t.Context(), []hitleino.Question{{Tool: "x"}}, func(context.Context, hitleino.Question) (*transport.Result, error) {
		return approve, nil
	}); err == nil || !strings.Contains(err.Error(), "no ID") {
		t.Errorf("a question without ID: %v", err)
	}
	if _, err := hitleino.Answer(t.Context(), qs, nil); err == nil {
		t.Error("Answer took a nil Asker")
	}
}

// FuzzOutcome: whatever Result a service or a store hands back, the tool runs only on an
// approval or a completed, human edit carrying an arguments object, and Outcome never panics.
func FuzzOutcome(f *testing.F) {
	f.Add([]byte(`{"status":"completed","decision":"approve","action":"approve"}`))
	f.Add([]byte(`{"status":"completed","action":"edit","decision":"answer","data":{"edits":{"path":"/"}}}`))
	f.Add([]byte(`{"status":"expired","default_applied":true,"default_action":"approve"}`))
	f.Add([]byte(`{"status":"completed","action":"edit","data":{"edits":[1]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r transport.Result
		if err := json.Unmarshal(b, &r); err != nil {
			return
		}
		run, edited, why := hitleino.Outcome(&r)
		allowed := r.Approved() || (r.Status == transport.StatusCompleted && !r.DefaultApplied && r.Action == "edit" && edited != "")
		if run && !allowed {
			t.Fatalf("ran on %+v", r)
		}
		if !run && !strings.HasPrefix(why, "not run: ") {
			t.Fatalf("why %q", why)
		}
	})
}
