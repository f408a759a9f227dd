package a2atest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/internal/httpx"
)

// ServeHTTP serves the four bindings: JSON-RPC at PathJSONRPC10 and PathJSONRPC03, REST
// under PathREST10 (/message:send, /tasks/{id}, /tasks/{id}:subscribe) and PathREST03 (the
// same under /v1).
func (a *Agent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var b a2a.Binding
	var rest string
	switch p := r.URL.Path; {
	case p == PathJSONRPC10:
		b = a2a.JSONRPC10
	case p == PathJSONRPC03, strings.HasPrefix(p, PathAgents):
		b = a2a.JSONRPC03
	case strings.HasPrefix(p, PathREST03+"/v1/"):
		b, rest = a2a.REST03, strings.TrimPrefix(p, PathREST03+"/v1")
	case strings.HasPrefix(p, PathREST10+"/"):
		b, rest = a2a.REST10, strings.TrimPrefix(p, PathREST10)
	default:
		http.NotFound(w, r)
		return
	}
	f, faulty := a.nextFault(taskIDIn(rest, body))
	sw := &httpx.StatusWriter{ResponseWriter: w}
	w = sw
	e := new(entry)
	r = r.WithContext(context.WithValue(r.Context(), entryKey{}, e))
	defer a.ended(e, sw)
	switch {
	case faulty && f == FaultLostReply:
		a.serve(httptest.NewRecorder(), r, b, rest, body)
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, "<html>upstream timed out</html>")
	case faulty:
		a.serveFault(w, b, f, body)
	default:
		a.serve(w, r, b, rest, body)
	}
}

func (a *Agent) serve(w http.ResponseWriter, r *http.Request, b a2a.Binding, rest string, body []byte) {
	if strings.HasPrefix(string(b), "jsonrpc") {
		a.serveRPC(w, r, b, body)
		return
	}
	a.serveREST(w, r, b, rest, body)
}

// nextFault takes the first fault queued for task id or for any task.
func (a *Agent) nextFault(id string) (Fault, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, f := range a.faults {
		if f.taskID == "" || f.taskID == id {
			a.faults = append(a.faults[:i:i], a.faults[i+1:]...)
			return f.f, true
		}
	}
	return 0, false
}

// taskIDIn returns the task a request names: in its REST path (/tasks/{id}…), its params
// (id, or name "tasks/{id}") or the message it sends (taskId); "" when none.
func taskIDIn(rest string, body []byte) string {
	if id, ok := strings.CutPrefix(rest, "/tasks/"); ok {
		id, _, _ = strings.Cut(id, ":")
		return id
	}
	type named struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		Message struct {
			TaskID string `json:"taskId"`
		} `json:"message"`
	}
	var in struct {
		named
		Params named `json:"params"`
	}
	_ = json.Unmarshal(body, &in)
	for _, n := range []named{in.Params, in.named} {
		switch {
		case n.Message.TaskID != "":
			return n.Message.TaskID
		case n.ID != "":
			return n.ID
		case n.Name != "":
			return strings.TrimPrefix(n.Name, "tasks/")
		}
	}
	return ""
}

// entry is where a request's line in the log is, once recorded; entryKey carries it in the
// request's context.
type (
	entry struct {
		index    int
		recorded bool
	}
	entryKey struct{}
)

// ended writes the status of a recorded request into the log.
func (a *Agent) ended(e *entry, w *httpx.StatusWriter) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e.recorded {
		a.reqs[e.index].Status = w.Status
	}
}

func (a *Agent) serveFault(w http.ResponseWriter, b a2a.Binding, f Fault, body []byte) {
	sp := a.spell(b)
	switch f {
	case Fault503:
		w.Header().Set("Retry-After", "1")
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
	case Fault429:
		w.Header().Set("Retry-After", "2")
		http.Error(w, "slow down", http.StatusTooManyRequests)
	case FaultHTML502:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
	case FaultTruncated:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"id":"task-`)
	case FaultInternal: // answers the request's own id, as an agent does
		var in rpcIn
		if json.Unmarshal(body, &in) != nil || len(in.ID) == 0 {
			in.ID = json.RawMessage("null")
		}
		sp.writeError(w, in.ID, -32603, "INTERNAL_ERROR", "internal error")
	}
}

func (a *Agent) record(b a2a.Binding, op, taskID string, r *http.Request, body []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e, ok := r.Context().Value(entryKey{}).(*entry); ok {
		e.index, e.recorded = len(a.reqs), true
	}
	a.reqs = append(a.reqs, Request{Method: r.Method, Path: r.URL.Path, TaskID: taskID, Header: r.Header.Clone(),
		Time: time.Now(), Binding: b, Operation: op, Body: body})
}

type rpcIn struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type sendIn struct {
	Message       json.RawMessage `json:"message"`
	Configuration struct {
		Push03            *pushIn `json:"pushNotificationConfig"`
		PushREST          *pushIn `json:"pushNotification"`
		Push10            *pushIn `json:"taskPushNotificationConfig"`
		Blocking          *bool   `json:"blocking"`
		ReturnImmediately bool    `json:"returnImmediately"`
	} `json:"configuration"`
}

type pushIn struct {
	URL            string `json:"url"`
	Token          string `json:"token"`
	Authentication struct {
		Scheme      string   `json:"scheme"`
		Schemes     []string `json:"schemes"`
		Credentials string   `json:"credentials"`
	} `json:"authentication"`
}

// failure is an A2A error to answer with: its JSON-RPC code and ErrorInfo reason.
type failure struct {
	code    int
	reason  string
	message string
}

var (
	errNotFound    = &failure{-32001, "TASK_NOT_FOUND", "task not found"}
	errNoExecution = &failure{-32001, "TASK_NOT_FOUND", "task not found: no active execution"}
	errTerminal    = &failure{-32602, "INVALID_PARAMS", "task in a terminal state"}
	errContext     = &failure{-32602, "INVALID_PARAMS", "context id does not match the task"}
	errBadParams   = &failure{-32602, "INVALID_PARAMS", "invalid params"}
	errUnsupported = &failure{-32004, "UNSUPPORTED_OPERATION", "task is in a terminal state"}
	errNotCancel   = &failure{-32002, "TASK_NOT_CANCELABLE", "task cannot be canceled"}
	// errNoName is Hector v1's refusal of a task addressed by id: its gRPC InvalidArgument
	// reaches JSON-RPC as an internal error.
	errNoName = &failure{-32603, "INTERNAL_ERROR", "rpc error: code = InvalidArgument desc = task name is required"}
	// errNoTaskByName is Hector v1.9.9's answer to a query by name for a task it does not
	// know: its gRPC NotFound reaches JSON-RPC as invalid params.
	errNoTaskByName = &failure{-32602, "INVALID_PARAMS", "Task not found: rpc error: code = NotFound desc = task not found"}
)

// cancelTask cancels a task that has not ended and returns a copy of it.
func (a *Agent) cancelTask(id string) (*task, *failure) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.tasks[id]
	switch {
	case !ok:
		return nil, errNotFound
	case t.state.Terminal():
		return nil, errNotCancel
	}
	t.state, t.question, t.metadata = a2a.StateCanceled, []a2a.Part{a2a.TextPart("Canceled by the client.")}, nil
	a.touch(t)
	c := *t
	return &c, nil
}

func (a *Agent) serveRPC(w http.ResponseWriter, r *http.Request, b a2a.Binding, body []byte) {
	sp := a.spell(b)
	var in rpcIn
	if err := json.Unmarshal(body, &in); err != nil {
		sp.writeError(w, json.RawMessage("null"), -32700, "PARSE_ERROR", "parse error")
		return
	}
	if in.JSONRPC != "2.0" || in.Method == "" {
		sp.writeError(w, in.ID, -32600, "INVALID_REQUEST", "invalid request")
		return
	}
	v10 := b == a2a.JSONRPC10
	var params struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	_ = json.Unmarshal(in.Params, &params)
	switch m := in.Method; {
	case m == pick(v10, "SendMessage", "message/send"):
		t, f := a.send(b, in.Params)
		a.record(b, m, taskIDOf(t), r, body)
		if f != nil {
			sp.writeError(w, in.ID, f.code, f.reason, f.message)
			return
		}
		res := sp.render(t)
		if v10 {
			res = map[string]any{"task": res}
		}
		sp.writeResult(w, in.ID, res)
	case m == pick(v10, "SendStreamingMessage", "message/stream"):
		t, f := a.send(b, in.Params)
		a.record(b, m, taskIDOf(t), r, body)
		if f != nil {
			sp.writeError(w, in.ID, f.code, f.reason, f.message)
			return
		}
		sp.streamTurn(w, in.ID, t)
		a.forget(t)
	case m == pick(v10, "GetTask", "tasks/get"):
		id := params.ID
		if a.cfg.profile == ProfileLegacyHector {
			// The previous generation asks for the resource name, {"name":"tasks/<id>"}.
			id = strings.TrimPrefix(params.Name, "tasks/")
			if params.Name == "" {
				a.record(b, m, params.ID, r, body)
				sp.writeError(w, in.ID, errNoName.code, errNoName.reason, errNoName.message)
				return
			}
			sp.nullMeta = true
		}
		a.record(b, m, id, r, body)
		t, f := a.get(id)
		if f == errNotFound && a.cfg.profile == ProfileLegacyHector {
			f = errNoTaskByName
		}
		if f != nil {
			sp.writeError(w, in.ID, f.code, f.reason, f.message)
			return
		}
		sp.writeResult(w, in.ID, sp.render(t))
	case m == pick(v10, "CancelTask", "tasks/cancel"):
		id := params.ID
		if a.cfg.profile == ProfileLegacyHector {
			id = strings.TrimPrefix(params.Name, "tasks/")
			if params.Name == "" {
				a.record(b, m, params.ID, r, body)
				sp.writeError(w, in.ID, errNoName.code, errNoName.reason, errNoName.message)
				return
			}
		}
		a.record(b, m, id, r, body)
		t, f := a.cancelTask(id)
		if f == errNotFound && a.cfg.profile == ProfileLegacyHector {
			f = errNoTaskByName
		}
		if f != nil {
			sp.writeError(w, in.ID, f.code, f.reason, f.message)
			return
		}
		sp.writeResult(w, in.ID, sp.render(t))
	case m == pick(v10, "SubscribeToTask", "tasks/resubscribe"):
		a.record(b, m, params.ID, r, body)
		a.subscribe(w, r, b, in.ID, params.ID)
	default:
		a.record(b, m, "", r, body)
		sp.writeError(w, in.ID, -32601, "METHOD_NOT_FOUND", "method not found")
	}
}

func (a *Agent) serveREST(w http.ResponseWriter, r *http.Request, b a2a.Binding, path string, body []byte) {
	sp := a.spell(b)
	switch {
	case path == "/message:send" && r.Method == http.MethodPost:
		t, f := a.send(b, body)
		a.record(b, "message:send", taskIDOf(t), r, body)
		if f != nil {
			sp.writeError(w, nil, f.code, f.reason, f.message)
			return
		}
		sp.writeJSON(w, http.StatusOK, map[string]any{"task": sp.render(t)})
	case path == "/message:stream" && r.Method == http.MethodPost:
		t, f := a.send(b, body)
		a.record(b, "message:stream", taskIDOf(t), r, body)
		if f != nil {
			sp.writeError(w, nil, f.code, f.reason, f.message)
			return
		}
		sp.streamTurn(w, nil, t)
		a.forget(t)
	case strings.HasPrefix(path, "/tasks/") && strings.HasSuffix(path, ":cancel") && r.Method == http.MethodPost:
		id := strings.TrimSuffix(strings.TrimPrefix(path, "/tasks/"), ":cancel")
		a.record(b, "tasks:cancel", id, r, body)
		t, f := a.cancelTask(id)
		if f != nil {
			sp.writeError(w, nil, f.code, f.reason, f.message)
			return
		}
		sp.writeJSON(w, http.StatusOK, sp.render(t))
	case strings.HasPrefix(path, "/tasks/") && strings.HasSuffix(path, ":subscribe"):
		id := strings.TrimSuffix(strings.TrimPrefix(path, "/tasks/"), ":subscribe")
		a.record(b, "tasks:subscribe", id, r, body)
		a.subscribe(w, r, b, nil, id)
	case strings.HasPrefix(path, "/tasks/") && r.Method == http.MethodGet:
		id := strings.TrimPrefix(path, "/tasks/")
		a.record(b, "tasks/get", id, r, body)
		t, f := a.get(id)
		if f != nil {
			sp.writeError(w, nil, f.code, f.reason, f.message)
			return
		}
		sp.nullMeta = a.cfg.profile == ProfileLegacyHector
		sp.writeJSON(w, http.StatusOK, sp.render(t))
	default:
		a.record(b, path, "", r, body)
		sp.writeError(w, nil, -32601, "METHOD_NOT_FOUND", "no such operation")
	}
}

func pick(v10 bool, a, b string) string {
	if v10 {
		return a
	}
	return b
}

func taskIDOf(t *task) string {
	if t == nil {
		return ""
	}
	return t.id
}

// send creates a task, or resumes the one the message names, and returns a copy of it.
func (a *Agent) send(b a2a.Binding, params []byte) (*task, *failure) {
	var in sendIn
	if json.Unmarshal(params, &in) != nil || len(in.Message) == 0 {
		return nil, errBadParams
	}
	ev, err := a2a.Decode(in.Message)
	if err != nil || ev.Message == nil {
		return nil, errBadParams
	}
	m := ev.Message
	a.mu.Lock()
	defer a.mu.Unlock()
	var t *task
	if m.TaskID == "" && a.cfg.profile == ProfileTRPC && m.ContextID != "" {
		if t, ok := a.resumeGraph(m.ContextID, m.Metadata); ok {
			a.touch(t)
			c := *t
			return &c, nil
		}
	}
	if m.TaskID == "" {
		t = a.newTask(m.ContextID)
		t.push = pushOf(b, in)
		a.touch(t)
		c := *t
		if cfg := in.Configuration; cfg.ReturnImmediately || (cfg.Blocking != nil && !*cfg.Blocking) {
			// Non-blocking: the task as it was when it was accepted.
			c.state, c.question, c.metadata = a2a.StateSubmitted, nil, nil
		}
		return &c, nil
	}
	t, ok := a.tasks[m.TaskID]
	switch {
	case a.cfg.profile == ProfileLegacyHector && (!ok || t.state.Terminal()):
		// The previous Hector generation does not check the id: a message for a task it
		// does not know, or that has ended, starts a new task.
		t = a.newTask(m.ContextID)
		a.touch(t)
		c := *t
		return &c, nil
	case !ok:
		return nil, errNotFound
	case t.state.Terminal():
		return nil, errTerminal
	case m.ContextID != "" && m.ContextID != t.contextID:
		return nil, errContext
	}
	before := *t
	if t.state == a2a.StateInputRequired {
		a.answer(t, m.Parts)
		a.touch(t)
	}
	if a.cfg.profile == ProfileLegacyHector {
		// It replies before it has read the answer: the task as it was.
		return &before, nil
	}
	c := *t
	return &c, nil
}

func pushOf(b a2a.Binding, in sendIn) *pushConfig {
	p := in.Configuration.Push10
	if p == nil {
		p = in.Configuration.Push03
	}
	if p == nil {
		p = in.Configuration.PushREST
	}
	if p == nil || p.URL == "" {
		return nil
	}
	scheme := p.Authentication.Scheme
	if scheme == "" && len(p.Authentication.Schemes) > 0 {
		scheme = p.Authentication.Schemes[0]
	}
	pc := &pushConfig{url: p.URL, token: p.Token, v10: b == a2a.JSONRPC10 || b == a2a.REST10}
	if scheme != "" {
		pc.auth = scheme + " " + p.Authentication.Credentials
	}
	return pc
}

func (a *Agent) get(id string) (*task, *failure) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.tasks[id]
	if !ok || t.forgotten {
		return nil, errNotFound
	}
	c := *t
	return &c, nil
}

// forget marks a streamed task forgotten, as trpc-agent-go forgets a task when its stream
// ends.
func (a *Agent) forget(t *task) {
	if t == nil || a.cfg.profile != ProfileTRPC {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if cur, ok := a.tasks[t.id]; ok {
		cur.forgotten = true
	}
}

// subscribe streams a task that is still running: its snapshot, then one event per change,
// until it ends or asks for input. Like a2a-go, it refuses a task paused for input (its
// execution ended at the pause) with -32001, and a finished one with -32004.
func (a *Agent) subscribe(w http.ResponseWriter, r *http.Request, b a2a.Binding, id json.RawMessage, taskID string) {
	sp := a.spell(b)
	t, f := a.get(taskID)
	switch {
	case f != nil:
	case t.state == a2a.StateInputRequired:
		f = errNoExecution
	case t.state.Terminal():
		f = errUnsupported
	}
	if f != nil {
		sp.writeError(w, id, f.code, f.reason, f.message)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	last := -1
	for {
		a.mu.Lock()
		cur := *a.tasks[taskID]
		changed := a.changed
		a.mu.Unlock()
		if cur.version != last {
			last = cur.version
			ev := map[string]any{"task": sp.render(&cur)}
			var data any = ev
			switch {
			case b == a2a.JSONRPC03:
				data = map[string]any{"jsonrpc": "2.0", "id": id, "result": sp.render(&cur)}
			case b == a2a.JSONRPC10:
				data = map[string]any{"jsonrpc": "2.0", "id": id, "result": ev}
			}
			line, _ := json.Marshal(data)
			_, _ = fmt.Fprintf(w, "id: %d\ndata: %s\n\n", last, line)
			if fl != nil {
				fl.Flush()
			}
			if cur.state.Terminal() || cur.state == a2a.StateInputRequired {
				return
			}
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		case <-a.stop.Done():
			return
		}
	}
}

// streamTurn streams one turn of t as a2a-go does: the task (submitted), a working
// status update, then its state now, and closes. 0.3 JSON-RPC marks the last update final;
// 0.3 REST, like a2a-go's, does not.
func (sp spelling) streamTurn(w http.ResponseWriter, id json.RawMessage, t *task) {
	b := sp.b
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	first := *t
	first.state, first.question, first.metadata, first.artifacts = a2a.StateSubmitted, nil, nil, nil
	working := first
	working.state = a2a.StateWorking
	events := []any{sp.render(&first), sp.statusUpdate(&working, false), sp.statusUpdate(t, true)}
	if b != a2a.JSONRPC03 {
		events[0] = map[string]any{"task": events[0]}
	}
	if sp.profile == ProfileA2AGoV03 {
		events = events[1:] // no task snapshot: the first event is a status update
	}
	if sp.profile == ProfileTRPC {
		// Graph progress as agent messages without parts, the interrupt in one's metadata,
		// then the completed status without it.
		progress := []any{sp.progress(t, nil), sp.progress(t, nil)}
		if t.artifactMeta != nil {
			progress = append(progress, sp.progress(t, t.artifactMeta))
		}
		final := *t
		final.artifactMeta = nil
		events = append(append(events[:2:2], progress...), sp.statusUpdate(&final, true))
	}
	for i, ev := range events {
		var data any = ev
		if b == a2a.JSONRPC03 || b == a2a.JSONRPC10 {
			data = map[string]any{"jsonrpc": "2.0", "id": id, "result": ev}
		}
		line, _ := json.Marshal(data)
		_, _ = fmt.Fprintf(w, "id: %d\nevent: message\ndata: %s\n\n: keep-alive\n\n", i, line)
	}
}

// progress spells trpc-agent-go's progress event: an agent message with "parts": null and
// the task's id, carrying meta when given.
func (sp spelling) progress(t *task, meta map[string]any) any {
	m := map[string]any{"messageId": fmt.Sprintf("%s-p%d", t.id, len(meta)), "taskId": t.id, "contextId": t.contextID}
	switch sp.b {
	case a2a.JSONRPC03:
		m["kind"], m["role"], m["parts"] = "message", "agent", nil
	case a2a.REST03:
		m["role"], m["content"] = "ROLE_AGENT", nil
	default:
		m["role"], m["parts"] = "ROLE_AGENT", nil
	}
	if meta != nil {
		m["metadata"] = meta
	}
	if sp.b == a2a.JSONRPC03 {
		return m
	}
	return map[string]any{"message": m}
}

// statusUpdate spells a status-update event for t.
func (sp spelling) statusUpdate(t *task, final bool) any {
	b := sp.b
	snap := sp.render(t).(map[string]any)
	u := map[string]any{"taskId": t.id, "contextId": t.contextID, "status": snap["status"]}
	if t.metadata != nil {
		u["metadata"] = t.metadata
	}
	switch b {
	case a2a.JSONRPC03:
		u["kind"], u["final"] = "status-update", final
		return u
	default:
		return map[string]any{"statusUpdate": u}
	}
}

// render spells t as binding b does.
func (sp spelling) render(t *task) any {
	b := sp.b
	state := string(t.state)
	if b != a2a.JSONRPC03 {
		state = "TASK_STATE_" + strings.ToUpper(strings.ReplaceAll(state, "-", "_"))
		if b == a2a.REST03 && t.state == a2a.StateCanceled {
			state = "TASK_STATE_CANCELLED"
		}
	}
	status := map[string]any{"state": state, "timestamp": t.updated.UTC().Format(time.RFC3339Nano)}
	if len(t.question) > 0 {
		status["message"] = sp.renderMessage(t, t.question)
	}
	out := map[string]any{"id": t.id, "status": status}
	if t.contextID != "" {
		out["contextId"] = t.contextID
	}
	if b == a2a.JSONRPC03 {
		out["kind"] = "task"
	}
	if len(t.artifacts) > 0 {
		art := map[string]any{"artifactId": "result", "parts": sp.renderParts(t.artifacts)}
		if t.artifactMeta != nil {
			art["metadata"] = t.artifactMeta
		}
		out["artifacts"] = []any{art}
	}
	if t.metadata != nil {
		out["metadata"] = t.metadata
	}
	return out
}

func (sp spelling) renderMessage(t *task, parts []a2a.Part) map[string]any {
	b := sp.b
	m := map[string]any{"messageId": fmt.Sprintf("%s-q%d", t.id, t.asked), "taskId": t.id, "contextId": t.contextID}
	if t.retold > 0 {
		m["messageId"] = fmt.Sprintf("%s-q%d-again%d", t.id, t.asked, t.retold)
	}
	if sp.profile == ProfileLegacyHector {
		delete(m, "messageId")
	}
	switch b {
	case a2a.JSONRPC03:
		m["kind"], m["role"], m["parts"] = "message", "agent", sp.renderParts(parts)
	case a2a.REST03:
		m["role"], m["content"] = "ROLE_AGENT", sp.renderParts(parts)
	default:
		m["role"], m["parts"] = "ROLE_AGENT", sp.renderParts(parts)
	}
	return m
}

func (sp spelling) renderParts(parts []a2a.Part) []any {
	b := sp.b
	out := make([]any, 0, len(parts))
	for _, p := range parts {
		var o map[string]any
		switch {
		case len(p.Data) > 0 && (b == a2a.REST03 || sp.profile == ProfileLegacyHector):
			o = map[string]any{"data": map[string]any{"data": p.Data}}
		case len(p.Data) > 0:
			o = map[string]any{"data": p.Data}
		default:
			o = map[string]any{"text": p.Text}
		}
		if b == a2a.JSONRPC03 {
			o["kind"] = map[bool]string{true: "data", false: "text"}[len(p.Data) > 0]
		}
		switch {
		case len(p.Metadata) > 0:
			o["metadata"] = p.Metadata
		case sp.nullMeta:
			o["metadata"] = nil
		}
		out = append(out, o)
	}
	return out
}

// pushBody is the notification for t's current state: a 1.0 StreamResponse, or a 0.3 bare
// Task. Called with a.mu held.
func (a *Agent) pushBody(t *task) []byte {
	if t.push.v10 {
		return mustJSON(map[string]any{"task": a.spell(a2a.REST10).render(t)})
	}
	return mustJSON(a.spell(a2a.JSONRPC03).render(t))
}

// deliver POSTs one notification in the background; Close waits for it, and once Close has
// begun nothing is sent.
func (a *Agent) deliver(p pushConfig, body []byte) {
	a.pushes.Go(func() {
		req, err := http.NewRequestWithContext(a.stop, http.MethodPost, p.url, bytes.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", "application/json")
		if p.token != "" {
			if p.v10 {
				req.Header.Set("A2A-Notification-Token", p.token)
			} else {
				req.Header.Set("X-A2A-Notification-Token", p.token)
			}
		}
		if p.auth != "" {
			req.Header.Set("Authorization", p.auth)
		}
		if resp, err := a.push.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
	})
}

func (sp spelling) writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	if sp.profile == ProfileA2AGoV03 && (sp.b == a2a.JSONRPC03 || sp.b == a2a.JSONRPC10) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8") // as a2a-go v0.3's server does
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (sp spelling) writeResult(w http.ResponseWriter, id json.RawMessage, result any) {
	sp.writeJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

// httpStatus is the HTTP status of an A2A error code in the REST binding (1.0 §5.4).
func httpStatus(code int) (int, string) {
	switch code {
	case -32001:
		return 404, "NOT_FOUND"
	case -32602, -32600, -32700, -32002, -32003, -32004, -32005, -32601:
		return 400, "INVALID_ARGUMENT"
	default:
		return 500, "INTERNAL"
	}
}

// writeError answers with an A2A error, as a2a-go spells it in each binding.
func (sp spelling) writeError(w http.ResponseWriter, id json.RawMessage, code int, reason, message string) {
	b := sp.b
	var info any = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason, "domain": "a2a-protocol.org"}}
	switch {
	case sp.profile == ProfileA2AGoV03 && code == -32602:
		// a2a-go v0.3: the generic "invalid params", the reason in data.error.
		info, message = map[string]any{"error": message}, "invalid params"
	case sp.profile == ProfileLegacyHector && code == -32001 && b != a2a.JSONRPC03 && b != a2a.JSONRPC10:
		sp.writeJSON(w, http.StatusNotFound, map[string]any{"error": "Task not found"})
		return
	}
	if b == a2a.JSONRPC03 || b == a2a.JSONRPC10 {
		if id == nil {
			id = json.RawMessage("null")
		}
		sp.writeJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message, "data": info}})
		return
	}
	status, name := httpStatus(code)
	sp.writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "status": name, "message": message, "details": info}})
}
