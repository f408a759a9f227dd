package hitlgenkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/hitl/hitlgenkit"
	"github.com/hitlkit/hitlkit/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// request is one tool request the scripted model makes.
type request struct{ name, ref, input string }

// agent is a Genkit instance with a scripted model and a delete_file tool that asks a
// person first (Approve) and records what it deleted, and an ask_human tool (Ask).
type agent struct {
	g      *genkit.Genkit
	model  ai.Model
	del    *ai.ToolAction[fileArgs, string]
	askH   *ai.ToolAction[question, string]
	mu     sync.Mutex
	erased []string
	log    string // a file each deletion is appended to, one a line, when set
}

type fileArgs struct {
	Path   string `json:"path"`
	Backup bool   `json:"backup,omitempty"`
}

type question struct {
	Question string `json:"question"`
}

// newAgent defines the model, which answers a conversation without a tool result with
// requests, and one with tool results with a message holding every tool result (so a test
// reads what the model was told), and the tools.
//
// Genkit's Init watches for signals until the context it is given ends: each test's ends
// with the test.
func newAgent(t testing.TB, requests ...request) *agent {
	return newAgentIn(t.Context(), requests...)
}

func newAgentIn(ctx context.Context, requests ...request) *agent {
	a := &agent{g: genkit.Init(ctx)}
	a.model = genkit.DefineModel(a.g, "test/scripted", &ai.ModelOptions{Supports: &ai.ModelSupports{Tools: true, Multiturn: true}},
		func(_ context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			var told []string
			for _, m := range req.Messages {
				for _, p := range m.Content {
					if p.IsToolResponse() {
						out, _ := json.Marshal(p.ToolResponse.Output)
						told = append(told, p.ToolResponse.Ref+"="+string(out))
					}
				}
			}
			if len(told) > 0 {
				return &ai.ModelResponse{Message: ai.NewModelTextMessage("told: " + strings.Join(told, " | "))}, nil
			}
			msg := &ai.Message{Role: ai.RoleModel}
			for _, r := range requests {
				var in map[string]any
				if err := json.Unmarshal([]byte(r.input), &in); err != nil {
					return nil, err
				}
				msg.Content = append(msg.Content, ai.NewToolRequestPart(&ai.ToolRequest{Name: r.name, Ref: r.ref, Input: in}))
			}
			return &ai.ModelResponse{Message: msg}, nil
		})
	a.del = genkit.DefineTool(a.g, "delete_file", "Delete a file.", func(tc *ai.ToolContext, in fileArgs) (string, error) {
		ok, why, err := hitlgenkit.Approve(tc, "Delete "+in.Path+"?")
		if err != nil || !ok {
			return why, err
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		if in.Backup {
			in.Path += " (backed up)"
		}
		a.erased = append(a.erased, in.Path)
		if a.log != "" {
			f, err := os.OpenFile(a.log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
			if err != nil {
				return "", err
			}
			defer f.Close()
			if _, err := f.WriteString(in.Path + "\n"); err != nil {
				return "", err
			}
		}
		return "deleted " + in.Path, nil
	})
	a.askH = genkit.DefineTool(a.g, "ask_human", "Ask the person.", func(tc *ai.ToolContext, in question) (string, error) {
		answer, why, err := hitlgenkit.Ask(tc, in.Question)
		if err != nil || answer == nil {
			return why, err
		}
		return string(answer), nil
	})
	return a
}

func (a *agent) ran() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.erased...)
}

func (a *agent) tools() []ai.Tool { return []ai.Tool{a.del, a.askH} }

// generate runs the agent: from a prompt, or resumed from history with restarts.
func (a *agent) generate(ctx context.Context, history []*ai.Message, restarts []*ai.Part) (*ai.ModelResponse, error) {
	opts := []ai.GenerateOption{ai.WithModel(a.model), ai.WithTools(a.del, a.askH)}
	if history == nil {
		opts = append(opts, ai.WithPrompt("clean up"))
	} else {
		opts = append(opts, ai.WithMessages(history...), ai.WithToolRestarts(restarts...))
	}
	return genkit.Generate(ctx, a.g, opts...)
}

// start runs the agent until it interrupts and returns the response and its questions.
func (a *agent) start(t *testing.T) (*ai.ModelResponse, []hitlgenkit.Question) {
	t.Helper()
	resp, err := a.generate(t.Context(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinishReason != ai.FinishReasonInterrupted {
		t.Fatalf("finish reason %q, want interrupted", resp.FinishReason)
	}
	return resp, hitlgenkit.Questions(resp)
}

var (
	approve = &transport.Result{Status: transport.StatusCompleted, Action: "approve", Decision: transport.DecisionApprove}
	reject  = &transport.Result{Status: transport.StatusCompleted, Action: "reject", Decision: transport.DecisionReject, Data: []byte(`{"feedback":"keep the report"}`)}
)

func answer(r *transport.Result) hitlgenkit.Asker {
	return func(context.Context, hitlgenkit.Question) (*transport.Result, error) { return r, nil }
}

// TestApprove: against Genkit's Generate with a scripted model, a delete_file tool that calls
// Approve interrupts before it acts; restarted with the person's Result it acts once only on
// an approval, or on the edited arguments (its new input, through the restart) on an edit;
// otherwise the model is told it did not run and why.
func TestApprove(t *testing.T) {
	for _, tt := range []struct {
		name   string
		result *transport.Result
		ran    []string
		told   string
	}{
		{"approved", approve, []string{"/tmp/report.txt"}, `call-1="deleted /tmp/report.txt"`},
		{"rejected", reject, nil, `call-1="not run: the person rejected it: keep the report"`},
		{"expired with default approve", &transport.Result{Status: transport.StatusExpired, DefaultApplied: true, DefaultAction: "approve"}, nil, "not run: the request expired"},
		{"cancelled", &transport.Result{Status: transport.StatusCancelled, Reason: "superseded"}, nil, "not run: the request was cancelled: superseded"},
		{"failed", &transport.Result{Status: transport.StatusFailed}, nil, "not run: the request failed"},
		{"no result", nil, nil, "not run: no decision was given"},
		{"edited", &transport.Result{Status: transport.StatusCompleted, Action: "edit", Decision: transport.DecisionAnswer, Data: []byte(`{"edits":{"path":"/tmp/old-report.txt"}}`)},
			[]string{"/tmp/old-report.txt"}, `call-1="deleted /tmp/old-report.txt"`},
		{"one field edited", &transport.Result{Status: transport.StatusCompleted, Action: "edit", Decision: transport.DecisionAnswer, Data: []byte(`{"edits":{"backup":true}}`)},
			[]string{"/tmp/report.txt (backed up)"}, `call-1="deleted /tmp/report.txt (backed up)"`},
		{"a field edited in another case", &transport.Result{Status: transport.StatusCompleted, Action: "edit", Decision: transport.DecisionAnswer, Data: []byte(`{"edits":{"Path":"/tmp/old.txt"}}`)},
			[]string{"/tmp/old.txt"}, `call-1="deleted /tmp/old.txt"`},
		{"edited with the wrong type", &transport.Result{Status: transport.StatusCompleted, Action: "edit", Decision: transport.DecisionAnswer, Data: []byte(`{"edits":{"path":5}}`)},
			nil, `call-1="not run: the person's edit does not fit the tool's arguments: path: Invalid type. Expected: string, given: integer"`},
		{"edited with a field the tool does not have", &transport.Result{Status: transport.StatusCompleted, Action: "edit", Decision: transport.DecisionAnswer, Data: []byte(`{"edits":{"reason":"use a different path please"}}`)},
			nil, `call-1="not run: the person's edit does not fit the tool's arguments: the tool has no argument \"reason\""`},
		{"edited without arguments", &transport.Result{Status: transport.StatusCompleted, Action: "edit", Decision: transport.DecisionAnswer}, nil, "not run: the person edited the call but gave no arguments"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := newAgent(t, request{"delete_file", "call-1", `{"path":"/tmp/report.txt"}`})
			resp, qs := a.start(t)
			if len(qs) != 1 || len(a.ran()) != 0 {
				t.Fatalf("questions %+v, ran %q", qs, a.ran())
			}
			if q := qs[0]; q.Tool != "delete_file" || q.Ref != "call-1" || q.Prompt != "Delete /tmp/report.txt?" || q.Input || string(q.Arguments) != `{"path":"/tmp/report.txt"}` {
				t.Errorf("question %+v", q)
			}
			parts, err := hitlgenkit.Answer(t.Context(), qs, answer(tt.result), a.tools()...)
			if err != nil {
				t.Fatal(err)
			}
			resp, err = a.generate(t.Context(), resp.History(), parts)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(a.ran()) != fmt.Sprint(tt.ran) {
				t.Errorf("ran %q, want %q", a.ran(), tt.ran)
			}
			if !strings.Contains(resp.Text(), tt.told) {
				t.Errorf("the model was told %q, want %q in it", resp.Text(), tt.told)
			}
		})
	}
}

// TestRestartByHand: a restart made without hitlgenkit (Genkit's own RestartWith, with no
// Result) is no go-ahead, and a restart carrying an edit Result but not the edited input runs
// nothing either.
func TestRestartByHand(t *testing.T) {
	a := newAgent(t, request{"delete_file", "call-1", `{"path":"/a"}`})
	resp, qs := a.start(t)
	p, err := a.del.RestartWith(qs[0].Part)
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.generate(t.Context(), resp.History(), []*ai.Part{p})
	if err != nil || len(a.ran()) != 0 || !strings.Contains(out.Text(), "not run: no decision was given") {
		t.Fatalf("restarted by hand: ran %q, told %q, %v", a.ran(), out.Text(), err)
	}
	edit := map[string]any{"hitlkit_result": `{"status":"completed","action":"edit","decision":"answer","data":{"edits":{"path":"/b"}}}`}
	p, err = a.del.RestartWith(qs[0].Part, ai.WithResumedMetadata[fileArgs](edit))
	if err != nil {
		t.Fatal(err)
	}
	out, err = a.generate(t.Context(), resp.History(), []*ai.Part{p})
	if err != nil || len(a.ran()) != 0 || !strings.Contains(out.Text(), "not run: the person edited the call but the restart did not carry the edit") {
		t.Fatalf("an edit without its input: ran %q, told %q, %v", a.ran(), out.Text(), err)
	}
}

// TestTwoQuestionsInOneRun: two delete_file requests in one model message interrupt with two
// questions, each with its own ref and arguments, and each Result reaches its own request.
func TestTwoQuestionsInOneRun(t *testing.T) {
	a := newAgent(t, request{"delete_file", "call-a", `{"path":"/a"}`}, request{"delete_file", "call-b", `{"path":"/b"}`})
	resp, qs := a.start(t)
	if len(qs) != 2 || qs[0].Ref == qs[1].Ref {
		t.Fatalf("questions %+v", qs)
	}
	parts, err := hitlgenkit.Answer(t.Context(), qs, func(_ context.Context, q hitlgenkit.Question) (*transport.Result, error) {
		if string(q.Arguments) == `{"path":"/a"}` {
			return approve, nil
		}
		return reject, nil
	}, a.tools()...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.generate(t.Context(), resp.History(), parts)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(a.ran()) != "[/a]" || !strings.Contains(out.Text(), `call-a="deleted /a"`) || !strings.Contains(out.Text(), `call-b="not run: the person rejected it`) {
		t.Errorf("ran %q, told %q", a.ran(), out.Text())
	}
}

// TestAsk: the model asks the person with a tool that calls Ask; the answer is the tool's
// output; an expiry gives no answer and says why.
func TestAsk(t *testing.T) {
	for _, tt := range []struct {
		name   string
		result *transport.Result
		told   string
	}{
		{"answered", &transport.Result{Status: transport.StatusCompleted, Action: "submit", Decision: transport.DecisionAnswer, Data: []byte(`{"owner":"Ana"}`)}, `call-1="{\"owner\":\"Ana\"}"`},
		{"expired", &transport.Result{Status: transport.StatusExpired, DefaultApplied: true, DefaultAction: "submit", Data: []byte(`{"owner":"x"}`)}, `call-1="no answer: the request expired`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := newAgent(t, request{"ask_human", "call-1", `{"question":"Whose report is it?"}`})
			resp, qs := a.start(t)
			if len(qs) != 1 || !qs[0].Input || qs[0].Prompt != "Whose report is it?" {
				t.Fatalf("questions %+v", qs)
			}
			parts, err := hitlgenkit.Answer(t.Context(), qs, answer(tt.result), a.tools()...)
			if err != nil {
				t.Fatal(err)
			}
			out, err := a.generate(t.Context(), resp.History(), parts)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.Text(), tt.told) {
				t.Errorf("told %q, want %q", out.Text(), tt.told)
			}
		})
	}
}

// TestAnswerCancelled: cancelling the asks returns an error and no restart: nothing runs.
func TestAnswerCancelled(t *testing.T) {
	a := newAgent(t, request{"delete_file", "call-a", `{"path":"/a"}`}, request{"delete_file", "call-b", `{"path":"/b"}`})
	_, qs := a.start(t)
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{}, 1)
	done := make(chan struct{})
	var (
		parts []*ai.Part
		err   error
	)
	go func() {
		defer close(done)
		parts, err = hitlgenkit.Answer(ctx, qs, func(ctx context.Context, q hitlgenkit.Question) (*transport.Result, error) {
			if q.Ref == "call-a" {
				return approve, nil
			}
			started <- struct{}{}
			<-ctx.Done()
			return nil, context.Cause(ctx)
		}, a.tools()...)
	}()
	<-started
	cancel()
	<-done
	if parts != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("Answer = %v, %v; want no parts and context.Canceled", parts, err)
	}
	if _, err := hitlgenkit.Answer(t.Context(), qs, answer(approve)); !errors.Is(err, hitlgenkit.ErrNoTool) {
		t.Errorf("without the tools: %v, want ErrNoTool", err)
	}
	if _, err := hitlgenkit.Answer(t.Context(), []hitlgenkit.Question{{Tool: "x"}}, answer(approve), a.tools()...); err == nil {
		t.Error("a question without its part was answered")
	}
	if len(a.ran()) != 0 {
		t.Errorf("ran %q", a.ran())
	}
}
