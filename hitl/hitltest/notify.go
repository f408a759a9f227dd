package hitltest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/internal/notify"
)

// streamEvent is one event of a case's stream (§8.5).
type streamEvent struct {
	id, name string
	data     []byte
}

func (e streamEvent) wire() string {
	return "id: " + e.id + "\nevent: " + e.name + "\ndata: " + string(e.data) + "\n\n"
}

// catchUp is the event the live service opens each stream with: the case's status, in the
// poll's shape, under the id of the last event so far.
func (s *Server) catchUp(c *fakeCase) streamEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return streamEvent{id: c.eventID(len(c.events)), name: "review.status", data: mustJSON(c.pollBody())}
}

// eventID is the id of c's n-th event: evt_n, or {case_id}-n (ProfileLive).
func (c *fakeCase) eventID(n int) string {
	if c.live {
		return c.id + "-" + strconv.Itoa(n)
	}
	return "evt_" + strconv.Itoa(n)
}

// emit adds an event to c's stream and wakes its readers. Guarded by Server.mu.
func (c *fakeCase) emit(name string, data map[string]any) {
	raw, _ := json.Marshal(data)
	c.events = append(c.events, streamEvent{id: c.eventID(len(c.events) + 1), name: name, data: raw})
	close(c.news)
	c.news = make(chan struct{})
}

// StreamFault is a failure the server injects into one event-stream connection.
type StreamFault int

// Faults for FailStream.
const (
	// StreamDropMidEvent sends the events already due, then the first half of the next new
	// one, then drops the connection.
	StreamDropMidEvent StreamFault = iota + 1
	// StreamNeverClose keeps the stream open after the terminal event.
	StreamNeverClose
	// StreamHeartbeatsOnly sends a heartbeat comment every 15 s and never an event.
	StreamHeartbeatsOnly
	// StreamOversized pads the next event's data past 64 KiB (a 100 KiB "padding" member).
	StreamOversized
	// StreamUnauthorized answers 401.
	StreamUnauthorized
	// Stream503 answers 503 with Retry-After: 2.
	Stream503
)

// FailStream makes the next n connections to caseID's event stream (any case when caseID is
// "") fail with f.
func (s *Server) FailStream(caseID string, f StreamFault, n int) {
	enqueue(s, s.streamFaults, caseID, f, n)
}

// enqueue appends n faults f for caseID ("" for any case) to a queue of s.
func enqueue[F any](s *Server, faults map[string][]F, caseID string, f F, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		faults[caseID] = append(faults[caseID], f)
	}
}

// takeFirst pops the next fault for id, or for any case. Guarded by Server.mu.
func takeFirst[F any](faults map[string][]F, id string) (F, bool) {
	for _, key := range []string{id, ""} {
		if q := faults[key]; len(q) > 0 {
			faults[key] = q[1:]
			return q[0], true
		}
	}
	var zero F
	return zero, false
}

// handleEvents is GET events_url (§8.5): the case's events after Last-Event-ID, then each
// new one as it happens, closing after the terminal event.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	c, ok := s.cases[id]
	fault, _ := takeFirst(s.streamFaults, id)
	s.mu.Unlock()
	if s.refuseStream(w, r, id, ok, fault) {
		return
	}
	s.record(r, id, http.StatusOK)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	flush()

	heartbeat := s.cfg.heartbeat
	if fault == StreamHeartbeatsOnly {
		heartbeat = 15 * time.Second
	}
	var beat <-chan time.Time
	if heartbeat > 0 {
		t := time.NewTicker(heartbeat)
		defer t.Stop()
		beat = t.C
	}
	s.mu.Lock()
	expiry := time.NewTimer(max(time.Until(c.expiresAt), 0))
	s.mu.Unlock()
	defer expiry.Stop()
	reference := s.cfg.profile == ProfileReference
	sent := s.openStream(w, r, c, flush)
	for first := true; ; first = false {
		s.mu.Lock()
		s.expireIfDue(c, time.Now())
		var pending []streamEvent
		if fault != StreamHeartbeatsOnly {
			pending = eventsAfter(c.events, sent)
		}
		news, terminal := c.news, c.terminal()
		s.mu.Unlock()

		for _, e := range pending {
			out := e.wire()
			switch fault {
			case StreamDropMidEvent:
				if first {
					break
				}
				_, _ = io.WriteString(w, out[:len(out)/2])
				flush()
				return
			case StreamOversized:
				fault = 0
				var m map[string]any
				_ = json.Unmarshal(e.data, &m)
				m["padding"] = strings.Repeat("p", 100<<10)
				e.data, _ = json.Marshal(m)
				out = e.wire()
			}
			if _, err := io.WriteString(w, out); err != nil {
				return
			}
			flush()
			sent = e.id
		}
		if terminal && fault != StreamNeverClose && fault != StreamHeartbeatsOnly && !reference {
			return
		}
		select {
		case <-news:
		case <-expiry.C: // the next pass expires the case
		case <-beat:
			if _, err := io.WriteString(w, ": heartbeat\n\n"); err != nil {
				return
			}
			flush()
		case <-r.Context().Done():
		case <-s.stop.Done():
		}
		if r.Context().Err() != nil || s.stop.Err() != nil {
			return
		}
	}
}

// refuseStream answers an event-stream request that gets no stream (an unknown case, an
// injected fault) and reports whether it did.
func (s *Server) refuseStream(w http.ResponseWriter, r *http.Request, id string, found bool, fault StreamFault) bool {
	switch {
	case !found:
		s.record(r, id, http.StatusNotFound)
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "not_found"})
		return true
	case fault == StreamUnauthorized:
		s.record(r, id, http.StatusUnauthorized)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return true
	case fault == Stream503:
		s.record(r, id, http.StatusServiceUnavailable)
		w.Header().Set("Retry-After", "2")
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return true
	}
	return false
}

// openStream writes what a profile sends before a stream's first event (the reference
// services' review.pending, the live service's catch-up) and returns the id of the last event
// the client has seen.
func (s *Server) openStream(w http.ResponseWriter, r *http.Request, c *fakeCase, flush func()) (sent string) {
	sent = r.Header.Get("Last-Event-ID")
	switch s.cfg.profile {
	case ProfileReference:
		// The reference services ignore Last-Event-ID and begin every stream with the
		// case's state as review.pending.
		_, _ = io.WriteString(w, "event: review.pending\ndata: "+string(mustJSON(map[string]any{"case_id": c.id, "status": "pending"}))+"\n\n")
		flush()
		return ""
	case ProfileLive:
		_, _ = io.WriteString(w, s.catchUp(c).wire())
		flush()
	}
	return sent
}

// eventsAfter returns the events after the one with id last (all of them when last is
// unknown or empty).
func eventsAfter(events []streamEvent, last string) []streamEvent {
	for i, e := range events {
		if e.id == last {
			return events[i+1:]
		}
	}
	return events
}

// CallbackFault is a misbehaviour of the server's next callback for a case.
type CallbackFault int

// Faults for FailCallback.
const (
	// CallbackDuplicate delivers the callback twice.
	CallbackDuplicate CallbackFault = iota + 1
	// CallbackForged signs the callback with the wrong secret (it should be refused, and
	// since a 4xx ends the retries, never arrive).
	CallbackForged
)

// FailCallback makes the next n callbacks for caseID (any case when caseID is "")
// misbehave with f.
func (s *Server) FailCallback(caseID string, f CallbackFault, n int) {
	enqueue(s, s.callbackFaults, caseID, f, n)
}

// Callback is one callback delivery attempt the server made, for assertions.
type Callback struct {
	CaseID, Event string
	// Status is the agent's answer, 0 when the request failed.
	Status int
	Forged bool
	Time   time.Time
}

// Callbacks returns every callback delivery attempt so far.
func (s *Server) Callbacks() []Callback {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Callback(nil), s.callbacks...)
}

// CallbackSecret returns the secret the server signs callbacks with.
func (s *Server) CallbackSecret() []byte { return append([]byte(nil), s.cfg.secret...) }

// sendCallback starts delivering c's terminal event to its callback URL (§9): signed,
// retried after 1 s, 5 s and 30 s on a 5xx or a failed request. Guarded by Server.mu.
func (s *Server) sendCallback(c *fakeCase, event string) {
	body := map[string]any{"event": event, "case_id": c.id, "timestamp": stamp(c.endedAt)}
	if c.state == "completed" {
		body["completed_at"] = stamp(c.endedAt)
		body["result"] = map[string]any{"action": c.action, "data": c.data}
		if c.by != nil {
			body["responded_by"] = c.by
		}
	}
	raw, _ := json.Marshal(body)
	fault, _ := takeFirst(s.callbackFaults, c.id)
	copies := 1
	if fault == CallbackDuplicate {
		copies = 2
	}
	secret := s.cfg.secret
	if fault == CallbackForged {
		secret = []byte("not-the-secret")
	}
	sig := notify.SignHMACSHA256(secret, raw, "sha256=")
	if s.cfg.profile == ProfileLive {
		mac := hmac.New(sha256.New, secret)
		mac.Write(raw)
		sig = "algorithm=HS256, value=" + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
	}
	client := s.callbackClient
	url := c.callbackURL
	for range copies {
		s.deliveries.Go(func() {
			s.deliver(client, url, raw, sig, Callback{CaseID: c.id, Event: event, Forged: fault == CallbackForged})
		})
	}
}

func (s *Server) deliver(client *http.Client, url string, body []byte, sig string, rec Callback) {
	for attempt := 0; ; attempt++ {
		rec.Status = post(s.stop, client, url, body, sig)
		rec.Time = time.Now()
		s.mu.Lock()
		s.callbacks = append(s.callbacks, rec)
		s.mu.Unlock()
		if (rec.Status != 0 && rec.Status < 500) || attempt == len(s.cfg.callbackRetries) {
			return
		}
		t := time.NewTimer(s.cfg.callbackRetries[attempt])
		select {
		case <-t.C:
		case <-s.stop.Done():
			t.Stop()
			return
		}
	}
}

func post(ctx context.Context, client *http.Client, url string, body []byte, sig string) int {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-HITL-Signature", sig)
	resp, err := client.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	_ = resp.Body.Close()
	return resp.StatusCode
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
