package hxptest

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/ws"
)

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hxp/v1/requests", s.agent(s.handleCreate))
	mux.HandleFunc("GET /hxp/v1/requests", s.agent(s.handleList))
	mux.HandleFunc("GET /hxp/v1/requests/{id}", s.agent(s.handleGet))
	mux.HandleFunc("POST /hxp/v1/requests/{id}/cancel", s.agent(s.handleCancel))
	mux.HandleFunc("GET /hxp/v1/inbox", s.human(s.handleInbox))
	mux.HandleFunc("POST /hxp/v1/requests/{id}/resolve", s.human(s.handleResolve))
	subscribe := s.agent(s.handleWS)
	if s.cfg.profile == ProfileReference {
		// The reference server's WebSocket asks for no key: it accepts any handshake.
		subscribe = s.guard(func(*http.Request) bool { return true }, s.handleWS)
	}
	mux.HandleFunc("GET /hxp/ws/{id}", s.socket(subscribe))
	mux.HandleFunc("GET /hxp/ws", s.socket(subscribe))
	return mux
}

// guard logs the request in s.reqs and answers 401 unless authorized accepts it.
func (s *Server) guard(authorized func(*http.Request) bool, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rec := &httpx.StatusWriter{ResponseWriter: w}
		defer func() {
			s.mu.Lock()
			id := r.PathValue("id")
			if id == "" {
				id = r.URL.Query().Get("request_id")
			}
			s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, RequestID: id,
				Header: r.Header.Clone(), Status: rec.Status, Time: time.Now()})
			s.mu.Unlock()
		}()
		if !authorized(r) {
			writeError(rec, http.StatusUnauthorized, "unauthorized", "invalid API key or token")
			return
		}
		h(rec, r)
	}
}

// socket counts a WebSocket request in for Close from before its upgrade until after its
// log entry, and refuses it (503) once Close has begun: a WebSocket Close ended is in the log
// when Close returns.
func (s *Server) socket(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.conns.Enter() {
			writeError(w, http.StatusServiceUnavailable, "unavailable", "server closing")
			return
		}
		defer s.conns.Leave()
		h(w, r)
	}
}

func (s *Server) agent(h http.HandlerFunc) http.HandlerFunc {
	return s.guard(func(r *http.Request) bool { return bearer(r, s.cfg.agentKey) }, h)
}

func (s *Server) human(h http.HandlerFunc) http.HandlerFunc {
	return s.guard(func(r *http.Request) bool { return bearer(r, s.cfg.humanToken) }, h)
}

func (s *Server) handleCreate(w http.ResponseWriter, r *http.Request) {
	var req hxp.Request
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "body is not a request")
		return
	}
	if err := req.Validate(); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	now := time.Now()
	rq := &request{id: newID(), req: req, status: "pending", createdAt: now, news: make(chan struct{})}
	if req.TimeoutSeconds > 0 {
		rq.expiresAt = now.Add(time.Duration(req.TimeoutSeconds) * time.Second)
		rq.timer = time.AfterFunc(time.Duration(req.TimeoutSeconds)*time.Second, func() { s.timeout(rq) })
	}
	s.mu.Lock()
	s.requests[rq.id] = rq
	s.order = append(s.order, rq.id)
	st := rq.state()
	s.mu.Unlock()
	select {
	case s.created <- rq.id:
	default:
	}
	out := map[string]any{"request_id": rq.id, "status": "pending", "created_at": st["created_at"],
		"expires_at": st["expires_at"], "poll_url": "/hxp/v1/requests/" + rq.id}
	wsBase := s.wsBase(r)
	switch {
	case wsBase == "": // the in-memory server: no WebSocket
	case s.cfg.shape == WSQuery:
		out["ws_url"] = wsBase + "/hxp/ws?request_id=" + rq.id
	case s.cfg.shape == WSPath:
		out["ws_url"] = wsBase + "/hxp/ws/" + rq.id
	}
	w.Header().Set("HXP-Status", "pending")
	w.Header().Set("HXP-Request-Id", rq.id)
	writeJSON(w, http.StatusCreated, out)
}

// wsBase is the scheme and host of the ws_url of a create answer to r, "" for none (the
// in-memory server, whose transport carries no WebSocket). ProfileSpec names the host r came
// to, the caller's own origin. ProfileReference names ws://localhost:PORT whatever the
// caller's host, as the reference server's code writes it, except over TLS, where it names
// the listener's own host: the certificate of StartTLS covers 127.0.0.1, not localhost.
func (s *Server) wsBase(r *http.Request) string {
	scheme := "ws://"
	if s.srv != nil && s.srv.TLS != nil {
		scheme = "wss://"
	}
	switch {
	case s.srv == nil:
		return ""
	case s.cfg.profile != ProfileReference:
		return scheme + r.Host
	case s.srv.TLS != nil:
		return scheme + s.srv.Listener.Addr().String()
	}
	return "ws://localhost:" + strconv.Itoa(int(s.srv.Listener.Addr().(*net.TCPAddr).AddrPort().Port()))
}

// nextFault takes the first fault queued for request id or for any request and returns its
// status, 0 when none. Called with s.mu held.
func (s *Server) nextFault(id string) int {
	for i, f := range s.faults {
		if f.id == "" || f.id == id {
			s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			return map[Fault]int{Fault503: http.StatusServiceUnavailable, Fault500: http.StatusInternalServerError,
				FaultUnauthorized: http.StatusUnauthorized, FaultNotFound: http.StatusNotFound}[f.f]
		}
	}
	return 0
}

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	fault := s.nextFault(id)
	rq, ok := s.requests[id]
	var st map[string]any
	var status string
	if ok {
		st, status = rq.state(), rq.status
	}
	s.mu.Unlock()
	switch {
	case fault != 0:
		writeError(w, fault, "injected", http.StatusText(fault))
	case !ok:
		writeError(w, http.StatusNotFound, "not_found", "request not found")
	default:
		w.Header().Set("HXP-Status", status)
		w.Header().Set("HXP-Request-Id", id)
		writeJSON(w, http.StatusOK, st)
	}
}

func (s *Server) handleList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	switch {
	case limit <= 0:
		limit = 50
	case limit > 100 && s.cfg.profile != ProfileReference:
		limit = 100
	}
	s.mu.Lock()
	out := []map[string]any{}
	for _, id := range s.order {
		rq := s.requests[id]
		if (q.Get("agent_id") != "" && rq.req.AgentID != q.Get("agent_id")) ||
			(q.Get("project_id") != "" && rq.req.ProjectID != q.Get("project_id")) ||
			(q.Get("status") != "" && rq.status != q.Get("status")) {
			continue
		}
		if len(out) < limit {
			out = append(out, rq.state())
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"requests": out, "total": len(out)})
}

func (s *Server) handleCancel(w http.ResponseWriter, r *http.Request) {
	switch err := s.Cancel(r.PathValue("id")); {
	case errors.Is(err, ErrNotFound):
		writeError(w, http.StatusNotFound, "not_found", "request not found")
	case errors.Is(err, ErrEnded):
		writeError(w, http.StatusConflict, "already_resolved", "request already resolved")
	default:
		writeJSON(w, http.StatusOK, map[string]string{"status": "cancelled"})
	}
}

func (s *Server) handleInbox(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	out := []map[string]any{}
	unresolved := 0
	for _, id := range s.order {
		rq := s.requests[id]
		if !rq.terminal() {
			unresolved++
		}
		if (q.Get("status") != "" && rq.status != q.Get("status")) ||
			(q.Get("priority") != "" && string(rq.req.Priority) != q.Get("priority")) ||
			(q.Get("action") != "" && string(rq.req.Action()) != q.Get("action")) {
			continue
		}
		out = append(out, rq.state())
	}
	total := len(s.order)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"requests": out, "total": total, "unresolved": unresolved})
}

func (s *Server) handleResolve(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Result json.RawMessage `json:"result"`
		Reason json.RawMessage `json:"reason"`
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if json.Unmarshal(body, &in) != nil || len(in.Result) == 0 || string(in.Result) == "null" {
		writeError(w, http.StatusBadRequest, "invalid_request", "result is required")
		return
	}
	var text string
	if s.cfg.profile != ProfileReference && len(in.Reason) > 0 && string(in.Reason) != "null" && json.Unmarshal(in.Reason, &text) != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "reason must be a string")
		return
	}
	var result any
	_ = json.Unmarshal(in.Result, &result)
	rc, err := s.ResolveWithReason(r.PathValue("id"), result, in.Reason, HumanID)
	var mm *hxp.ReceiptMismatchError
	switch {
	case errors.Is(err, ErrNotFound):
		writeError(w, http.StatusNotFound, "not_found", "request not found")
	case errors.Is(err, ErrEnded):
		writeError(w, http.StatusConflict, "already_resolved", "request already resolved")
	case errors.As(err, &mm) && mm.Field == "reason":
		writeError(w, http.StatusUnprocessableEntity, "reason_required", "a rejection needs a reason")
	case errors.As(err, &mm):
		writeError(w, http.StatusUnprocessableEntity, "invalid_result", mm.Problem)
	case err != nil:
		writeError(w, http.StatusBadRequest, "invalid_request", "result is not JSON")
	default:
		writeJSON(w, http.StatusOK, map[string]any{"receipt": rc})
	}
}

// handleWS serves §5.2 at both shapes: on connect the terminal event, if any; then each new
// event; the connection closes after a terminal one.
func (s *Server) handleWS(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if id == "" {
		id = r.URL.Query().Get("request_id")
	}
	// What the subscriber is sent is fixed before the upgrade: every event after it is
	// delivered, however soon.
	s.mu.Lock()
	rq, ok := s.requests[id]
	var sent int
	var silent bool
	if ok {
		sent = len(rq.events)
		// The reference server replays receipts only: a request that ended without one gets
		// nothing, and the connection stays open.
		silent = rq.terminal() && s.cfg.profile == ProfileReference && (rq.receipt == nil || rq.receipt.Status != "completed")
		if rq.terminal() && sent > 0 {
			sent--
		}
	}
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "not_found", "request not found")
		return
	}
	c, err := ws.Accept(w, r)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.sockets[c] = true
	s.accepted++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.sockets, c)
		s.mu.Unlock()
		_ = c.CloseNow()
	}()
	ctx := r.Context()
	go c.Wait(ctx) // answers pings; ends when the client goes
	if silent {
		select {
		case <-ctx.Done():
		case <-s.stop.Done():
		}
		return
	}
	for {
		s.mu.Lock()
		pending := slices.Clone(rq.events[sent:])
		news, terminal := rq.news, rq.terminal()
		s.mu.Unlock()
		for _, ev := range pending {
			if c.Write(ctx, ev) != nil {
				return
			}
			sent++
		}
		if terminal {
			_ = c.Close()
			return
		}
		select {
		case <-news:
		case <-ctx.Done():
			return
		case <-s.stop.Done():
			return
		}
	}
}
