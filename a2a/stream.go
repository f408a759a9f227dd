package a2a

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"

	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/sse"
)

// readEvents reads an A2A event stream (the body of message/stream, SendStreamingMessage,
// POST message:stream or a subscription) to the end of the turn and returns what it
// learned: the task as its events built it (snapshot, then status and artifact updates), or
// the message when the agent answered with one.
//
// The turn ends at a 0.3 "final": true, at a terminal or interrupted state (input-required,
// auth-required), or at the end of the stream; a stream that ends in another state returns
// the task in that state, and the caller should ask GetTask for the truth, as
// [Client.SendStream] does. An error event in the stream (JSON-RPC error or REST
// {"error"}, sent with HTTP 200) is returned as an [*Error]; an event that is not A2A, as
// a [*MalformedError]. id:, event: and comment lines are allowed and ignored.
func readEvents(r io.Reader) (*Event, error) {
	ev, err := readStream(r, nil)
	if err != nil {
		return nil, err
	}
	return ev, nil
}

// readStream is readEvents that also returns, with a read error (a stream cut off), what the
// stream had said until then.
func readStream(r io.Reader, wantID json.RawMessage) (*Event, error) {
	var (
		out  = &Event{}
		serr error
		meta metadata // out.Task's metadata as the stream's events merge into it
	)
	err := sse.Read(r, maxStreamEvent, func(e sse.Event) bool {
		ev, err := decode(e.Data, wantID)
		if err != nil {
			serr = err
			return false
		}
		out.Envelope, out.ProtoJSON, out.Content = ev.Envelope, out.ProtoJSON || ev.ProtoJSON, out.Content || ev.Content
		final := false
		switch {
		case out.Task != nil && ev.TaskID() != "" && ev.TaskID() != out.Task.ID:
			// An event of another task: never folded into this one.
		case ev.Task != nil:
			out.Task, out.Message = ev.Task, nil
			meta = metadata{}
		case ev.Message != nil && out.Task == nil:
			out.Message = ev.Message
			return false // a message answers the whole call (1.0 §3.1.2)
		case ev.Message != nil && len(ev.Message.Parts) == 0:
			// A message without parts says nothing to answer: progress (trpc-agent-go sends
			// its graph's steps so). Its metadata may carry a graph interrupt, which the
			// task keeps (see Checkpoint).
			if pregelIn(ev.Message.Metadata) != nil {
				meta.merge(out.Task, ev.Message.Metadata)
			}
		case ev.Message != nil:
			// Older agents send the question as an agent's message event after the task:
			// it is the task's status message, and a task still running is then waiting
			// for the answer — the end of the turn.
			c := *out.Task
			c.Question = ev.Message
			if ev.Message.Role == RoleAgent && !c.State.Terminal() && !c.State.interrupted() {
				c.State = StateInputRequired
			}
			out.Task = &c
		case ev.Status != nil:
			if out.Task == nil || out.Task.ID != ev.Status.TaskID {
				meta = metadata{} // a task of its own, from this event on
			}
			out.Task = applyStatus(out.Task, &StatusUpdate{TaskID: ev.Status.TaskID, ContextID: ev.Status.ContextID,
				State: ev.Status.State, RawState: ev.Status.RawState, Message: ev.Status.Message})
			if len(ev.Status.Metadata) > 0 {
				meta.merge(out.Task, ev.Status.Metadata)
			}
			final = ev.Status.Final
		case ev.Artifact != nil && out.Task != nil:
			out.Task.Artifacts = append(out.Task.Artifacts, ev.Artifact.Artifact)
		}
		if t := out.Task; t != nil && (t.State.Terminal() || t.State.interrupted()) {
			final = true
		}
		return !final
	})
	if serr != nil {
		return nil, serr
	}
	meta.apply(out.Task)
	if err != nil {
		return out, err
	}
	if out.Task == nil && out.Message == nil {
		return nil, malformed(errUnrecognised, "stream ended without a task or message")
	}
	return out, nil
}

// metadata is a task's metadata while a stream's events merge into it: decoded once, each
// event's members merged in, encoded once at the end — linear in what the stream sends,
// where merging into the encoded object at every event cost the whole object each time.
type metadata struct {
	members map[string]json.RawMessage
	replace json.RawMessage // metadata that is not an object: the last one wins
	touched bool
}

// merge merges add's members into t's metadata (as [mergeObjects] would, event by event).
func (m *metadata) merge(t *Task, add json.RawMessage) {
	if !m.touched {
		m.touched = true
		if json.Unmarshal(t.Metadata, &m.members) != nil || m.members == nil {
			m.members, m.replace = nil, add // mergeObjects: a base that is no object yields add
			_ = json.Unmarshal(add, &m.members)
			return
		}
	}
	if m.members == nil {
		m.replace = add
		_ = json.Unmarshal(add, &m.members)
		return
	}
	var y map[string]json.RawMessage
	if json.Unmarshal(add, &y) != nil {
		return
	}
	for k, v := range y {
		m.members[k] = v
	}
	m.replace = nil
}

// apply writes the merged metadata into t, once.
func (m *metadata) apply(t *Task) {
	if t == nil || !m.touched {
		return
	}
	switch {
	case m.replace != nil:
		t.Metadata = m.replace
	default:
		t.Metadata, _ = json.Marshal(m.members) // re-encoding decoded raw members cannot fail
	}
}

// applyStatus folds a status update into the task it concerns; metadata members are merged,
// as agents merge a status event's metadata into the task's.
func applyStatus(t *Task, s *StatusUpdate) *Task {
	if t == nil || t.ID != s.TaskID {
		t = &Task{ID: s.TaskID, ContextID: s.ContextID}
	} else {
		c := *t
		t = &c
	}
	t.State, t.RawState, t.Question = s.State, s.RawState, s.Message
	if len(s.Metadata) > 0 {
		t.Metadata = mergeObjects(t.Metadata, s.Metadata)
	}
	return t
}

func mergeObjects(a, b json.RawMessage) json.RawMessage {
	var x, y map[string]json.RawMessage
	if json.Unmarshal(a, &x) != nil || x == nil {
		return b
	}
	if json.Unmarshal(b, &y) != nil {
		return a
	}
	for k, v := range y {
		x[k] = v
	}
	out, _ := json.Marshal(x) // re-encoding decoded raw members cannot fail
	return out
}

// SendStream sends m with the streaming method of ep's binding (message/stream,
// SendStreamingMessage, POST message:stream) and reads the stream to the end of the turn (a
// 0.3 "final": true, a terminal or interrupted state, or the end of the stream). When the stream ends with the task still working, or is cut off after
// it named the task, it asks GetTask for the truth. It returns the task, or the message the
// agent answered with. The stream is closed before SendStream returns, whatever the agent
// does with it after the turn's last event.
func (c *Client) SendStream(ctx context.Context, ep Endpoint, m Message, o *SendOptions) (*Event, error) {
	if c == nil {
		return nil, errNilClient
	}
	req, wantID, err := c.request(ctx, ep, opStream, "", c.outgoing(&m), o)
	if err != nil {
		return nil, err
	}
	resp, err := c.do(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := streamRefused(resp, c.maxBody, wantID); err != nil {
		httpx.DrainClose(resp.Body)
		return nil, err
	}
	ev, err := readStream(resp.Body, wantID)
	// Closed, never drained: a stream the agent keeps open after the turn's last event would
	// hold a drain (and the call) until it sent 4 KiB or hung up. Closing an unfinished
	// body ends the stream and its connection.
	_ = resp.Body.Close()
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, context.Cause(ctx)
	case err != nil && (ev == nil || ev.Task == nil):
		return nil, scrub(err, req)
	case err != nil:
		// Cut off after the task was known: the task goes on at the agent; ask it.
		c.logger.LogAttrs(ctx, slog.LevelDebug, "a2a stream cut off", slog.String("task", ev.Task.ID))
	}
	if t := ev.Task; t != nil && !t.State.Terminal() && !t.State.interrupted() {
		c.logger.LogAttrs(ctx, slog.LevelDebug, "a2a stream ended early", slog.String("task", t.ID), slog.String("state", string(t.State)))
		got, err := c.GetTask(ctx, ep, t.ID)
		if err != nil {
			return nil, err
		}
		ev.Task = got
	}
	return ev, nil
}
