package interop

import (
	"context"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"

	hk "github.com/hitlkit/hitlkit/a2a"
)

// approvalAgent asks for approval questions times per task, in the Hector v1 shape (text
// part and a data part with options), and completes with an artifact once every question
// was approved, or at the first deny.
type approvalAgent struct {
	questions int
	mu        sync.Mutex
	asked     map[a2a.TaskID]int
	decisions map[a2a.TaskID][]string
}

func (e *approvalAgent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if ec.StoredTask == nil {
			if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
				return
			}
		} else if d := decision(ec.Message); d != "approve" {
			e.record(ec.TaskID, d)
			done := a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("Tool call denied.")))
			yield(done, nil)
			return
		} else if e.record(ec.TaskID, d) >= e.questions {
			if !yield(a2a.NewArtifactEvent(ec, a2a.NewDataPart(map[string]any{"deleted": e.questions})), nil) {
				return
			}
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("Done."))), nil)
			return
		}
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
			return
		}
		q := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec,
			a2a.NewTextPart("Tool approval required: delete_file. Reply approve or deny."),
			a2a.NewDataPart(map[string]any{"interaction_type": "tool_approval", "tool_name": "delete_file", "options": []any{"approve", "deny"}}))
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired, q), nil) // the execution ends here
	}
}

func (e *approvalAgent) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// record notes a decision and returns how many the task has had.
func (e *approvalAgent) record(id a2a.TaskID, d string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.decisions[id] = append(e.decisions[id], d)
	return len(e.decisions[id])
}

func (e *approvalAgent) decisionsOf(id string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.decisions[a2a.TaskID(id)]...)
}

// decision reads {"decision": …} from a data part, as Hector does.
func decision(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	for _, p := range m.Parts {
		if d, ok := p.Data().(map[string]any); ok {
			if s, ok := d["decision"].(string); ok {
				return strings.ToLower(s)
			}
		}
	}
	return "deny"
}

// peer is a running a2a-go server.
type peer struct {
	url   string
	agent *approvalAgent
	hc    *http.Client
}

// startPeer serves the agent on loopback on four endpoints, with push notifications to
// loopback allowed, and stops it when the test ends.
func startPeer(t testing.TB, questions int) *peer {
	t.Helper()
	agent := &approvalAgent{questions: questions, asked: map[a2a.TaskID]int{}, decisions: map[a2a.TaskID][]string{}}
	h := a2asrv.NewHandler(agent, a2asrv.WithLogger(slog.New(slog.DiscardHandler)), a2asrv.WithPushNotifications(push.NewInMemoryStore(),
		push.NewHTTPPushSender(&push.HTTPSenderConfig{AllowPrivateNetworks: true})))
	mux := http.NewServeMux()
	mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(h))
	mux.Handle("/rest/", http.StripPrefix("/rest", a2asrv.NewRESTHandler(h)))
	mux.Handle("/rpc03", a2av0.NewJSONRPCHandler(h))
	mux.Handle("/rest03/", http.StripPrefix("/rest03", a2av0.NewRESTHandler(h)))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &peer{url: srv.URL, agent: agent, hc: srv.Client()}
}

func (p *peer) endpoint(b hk.Binding) hk.Endpoint {
	path := map[hk.Binding]string{hk.JSONRPC10: "/rpc", hk.REST10: "/rest", hk.JSONRPC03: "/rpc03", hk.REST03: "/rest03"}[b]
	return hk.Endpoint{URL: p.url + path, Binding: b}
}
