package interop

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	hk "github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/transport"
)

// longRunningAgent asks as ADK Go's A2A launcher (served by a2a-go) does through a
// long-running tool: the input-required status message holds the bare function call
// {"id","name":"ask_human","args":{"question"}} with part metadata adk_type "function_call"
// and adk_is_long_running true, and the tool's pending response. It takes only a function
// response for the call's id (part metadata adk_type "function_response"); anything else
// gets the question again under a new call id.
type longRunningAgent struct {
	mu      sync.Mutex
	asked   map[a2a.TaskID]int
	answers map[a2a.TaskID][]string
}

func (e *longRunningAgent) callID(id a2a.TaskID) string {
	return fmt.Sprintf("lr-%s-%d", id, e.asked[id])
}

func (e *longRunningAgent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		e.mu.Lock()
		defer e.mu.Unlock()
		if ec.StoredTask == nil {
			if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
				return
			}
		} else if answer, ok := e.response(ec); ok {
			e.answers[ec.TaskID] = append(e.answers[ec.TaskID], answer)
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("Renamed to "+answer+"."))), nil)
			return
		}
		e.asked[ec.TaskID]++
		id := e.callID(ec.TaskID)
		call := a2a.NewDataPart(map[string]any{"id": id, "name": "ask_human", "args": map[string]any{"question": "What should f.txt be renamed to?"}})
		call.Metadata = map[string]any{"adk_type": "function_call", "adk_is_long_running": true}
		pending := a2a.NewDataPart(map[string]any{"id": id, "name": "ask_human", "response": map[string]any{"status": "pending"}})
		pending.Metadata = map[string]any{"adk_type": "function_response"}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired, a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, call, pending)), nil)
	}
}

// response reads the function response to the call asked last: its answer, and whether
// there was one.
func (e *longRunningAgent) response(ec *a2asrv.ExecutorContext) (string, bool) {
	if ec.Message == nil {
		return "", false
	}
	for _, p := range ec.Message.Parts {
		d, ok := p.Data().(map[string]any)
		if !ok || p.Metadata["adk_type"] != "function_response" || d["id"] != e.callID(ec.TaskID) || d["name"] != "ask_human" {
			continue
		}
		if r, ok := d["response"].(map[string]any); ok {
			if s, ok := r["answer"].(string); ok {
				return s, true
			}
		}
	}
	return "", false
}

func (e *longRunningAgent) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

func (e *longRunningAgent) answersOf(id string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.answers[a2a.TaskID(id)]...)
}

// startLongRunningPeer serves a longRunningAgent on a2a-go's four endpoints, as startPeer
// serves the approval agent.
func startLongRunningPeer(t *testing.T) (*peer, *longRunningAgent) {
	t.Helper()
	agent := &longRunningAgent{asked: map[a2a.TaskID]int{}, answers: map[a2a.TaskID][]string{}}
	h := a2asrv.NewHandler(agent, a2asrv.WithLogger(slog.New(slog.DiscardHandler)))
	mux := http.NewServeMux()
	mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(h))
	mux.Handle("/rest/", http.StripPrefix("/rest", a2asrv.NewRESTHandler(h)))
	mux.Handle("/rpc03", a2av0.NewJSONRPCHandler(h))
	mux.Handle("/rest03/", http.StripPrefix("/rest03", a2av0.NewRESTHandler(h)))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &peer{url: srv.URL, hc: srv.Client()}, agent
}

// TestADKLongRunningThroughA2AGo: ADK Go's long-running ask_human call, served by a2a-go's
// server on each of its four endpoints, is the pause's tool call (long-running, its id), its
// question the prompt; a plain text answer is not taken, so the human is asked again, told
// so, and a2a.Text's function response completes the task with the human's words. A program
// on a2a-go's client gets the same through PauseOf and Message.
func TestADKLongRunningThroughA2AGo(t *testing.T) {
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			p, agent := startLongRunningPeer(t)
			c := client(t, p)
			ep := p.endpoint(b)
			ev, err := c.Send(ctx(t), ep, hk.Message{Parts: []hk.Part{hk.TextPart("rename f.txt")}}, nil)
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			pause := hk.NewPause(ep, ev.Task)
			if pause == nil {
				t.Fatalf("not paused: %+v", ev.Task)
			}
			tc, ok := pause.ToolCall()
			if !ok || !tc.LongRunning || tc.Name != "ask_human" || tc.CallID != "lr-"+pause.TaskID+"-1" {
				t.Fatalf("ToolCall = %+v, %v", tc, ok)
			}
			if q := pause.Prompt(); q != "What should f.txt be renamed to?" {
				t.Errorf("Prompt = %q", q)
			}
			asked := 0
			r, err := c.Run(ctx(t), pause, func(_ context.Context, q *hk.Pause) (hk.Answer, error) {
				asked++
				if asked == 1 {
					return hk.Answer{Parts: []hk.Part{hk.TextPart("g.txt")}}, nil
				}
				if q.NotTaken == nil {
					t.Errorf("second ask without NotTaken")
				}
				return hk.Text(q, "g.txt"), nil
			}, nil)
			if err != nil || r.Status != transport.StatusCompleted || asked != 2 {
				t.Fatalf("Run = %v, %v after %d asks", r, err, asked)
			}
			if got := agent.answersOf(pause.TaskID); len(got) != 1 || got[0] != "g.txt" {
				t.Errorf("the agent read %v", got)
			}
		})
	}
	t.Run("a2a-go client", func(t *testing.T) {
		p, agent := startLongRunningPeer(t)
		ep := p.endpoint(hk.JSONRPC10)
		ac, err := a2aclient.NewFromEndpoints(ctx(t), []*a2a.AgentInterface{a2a.NewAgentInterface(ep.URL, a2a.TransportProtocolJSONRPC)},
			a2aclient.WithJSONRPCTransport(p.hc))
		if err != nil {
			t.Fatal(err)
		}
		res, err := ac.SendMessage(ctx(t), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("rename f.txt"))})
		if err != nil {
			t.Fatal(err)
		}
		task, ok := res.(*a2a.Task)
		if !ok {
			t.Fatalf("SendMessage = %T", res)
		}
		pause, err := PauseOf(ep, task)
		if err != nil || pause == nil {
			t.Fatalf("PauseOf = %+v, %v", pause, err)
		}
		m, err := Message(pause, hk.Text(pause, "g.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if res, err = ac.SendMessage(ctx(t), &a2a.SendMessageRequest{Message: m}); err != nil {
			t.Fatal(err)
		}
		if task, ok := res.(*a2a.Task); !ok || task.Status.State != a2a.TaskStateCompleted {
			t.Fatalf("answer's reply = %+v", res)
		}
		if got := agent.answersOf(string(task.ID)); len(got) != 1 || got[0] != "g.txt" {
			t.Errorf("the agent read %v", got)
		}
	})
}
