package a2a

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
)

// Checkpoint is an interrupt a graph framework left pending in a task it reports as
// completed: trpc-agent-go's graph.Interrupt checkpoints the graph, completes the A2A task
// and carries the interrupt as base64-encoded JSON in metadata.state_delta._pregel_metadata
// (of an artifact, of the task, or of a streamed message). The task is not done: the graph
// waits for a resume from a new message in the same context that names the checkpoint
// ([TRPCResume]).
type Checkpoint struct {
	// Key is the interrupt's key ("approve"); the resume answers it.
	Key string `json:"key"`
	// Value is what the graph asked, raw: {"question","tool","arguments"} as a rule.
	Value        json.RawMessage `json:"value,omitempty"`
	LineageID    string          `json:"lineage_id,omitempty"`
	CheckpointID string          `json:"checkpoint_id,omitempty"`
	CheckpointNS string          `json:"checkpoint_ns,omitempty"`
}

// maxPregel bounds the encoded interrupt read from one metadata object.
const maxPregel = 1 << 20

// checkpointOf returns the pending interrupt t carries, or nil: in an artifact's metadata,
// the task's own, or its status message's.
func checkpointOf(t *Task) *Checkpoint {
	if t == nil {
		return nil
	}
	for _, a := range t.Artifacts {
		if c := pregelIn(a.Metadata); c != nil {
			return c
		}
	}
	if c := pregelIn(t.Metadata); c != nil {
		return c
	}
	if t.Question != nil {
		return pregelIn(t.Question.Metadata)
	}
	return nil
}

// pregelIn reads metadata.state_delta._pregel_metadata: base64 of a JSON object with
// interruptKey and interruptValue. Anything else (absent, not base64, no pending interrupt)
// is nil.
func pregelIn(meta json.RawMessage) *Checkpoint {
	if len(meta) == 0 || !bytes.Contains(meta, []byte("_pregel_metadata")) {
		return nil
	}
	var m struct {
		Delta struct {
			Pregel json.RawMessage `json:"_pregel_metadata"`
		} `json:"state_delta"`
	}
	if json.Unmarshal(meta, &m) != nil || len(m.Delta.Pregel) == 0 || len(m.Delta.Pregel) > maxPregel {
		return nil
	}
	raw := []byte(m.Delta.Pregel)
	var enc string
	if json.Unmarshal(m.Delta.Pregel, &enc) == nil {
		raw = nil
		for _, e := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if b, err := e.DecodeString(enc); err == nil {
				raw = b
				break
			}
		}
	}
	var p struct {
		Key          string          `json:"interruptKey"`
		Value        json.RawMessage `json:"interruptValue"`
		LineageID    string          `json:"lineageId"`
		CheckpointID string          `json:"checkpointId"`
		CheckpointNS string          `json:"checkpointNs"`
	}
	if json.Unmarshal(raw, &p) != nil || p.Key == "" {
		return nil
	}
	return &Checkpoint{Key: p.Key, Value: nonNull(p.Value), LineageID: p.LineageID, CheckpointID: p.CheckpointID, CheckpointNS: p.CheckpointNS}
}

// ErrNoCheckpoint: the pause is not a graph interrupt a [TRPCResume] answers.
var ErrNoCheckpoint = errors.New("a2a: the pause holds no pending graph interrupt")

// TRPCResume is the vendor-specific answer to a trpc-agent-go graph interrupt (a pause whose
// Checkpoint is set): a message in the task's context, with no task id (the task has
// completed), whose metadata carries lineage_id, checkpoint_id, checkpoint_ns and
// resume_map {key: approve}, and a text part "approve" or "deny". [Client.Run] and
// [Client.Resume] follow the new task the agent starts for it. ErrNoCheckpoint otherwise.
func TRPCResume(p *Pause, approve bool) (Answer, error) {
	if p == nil || p.Checkpoint == nil {
		return Answer{}, ErrNoCheckpoint
	}
	c := p.Checkpoint
	meta, err := json.Marshal(map[string]any{
		"lineage_id": c.LineageID, "checkpoint_id": c.CheckpointID, "checkpoint_ns": c.CheckpointNS,
		"resume_map": map[string]bool{c.Key: approve},
	})
	if err != nil {
		return Answer{}, err
	}
	d := map[bool]string{true: "approve", false: "deny"}[approve]
	return Answer{Action: d, Parts: []Part{TextPart(d)}, Metadata: meta}, nil
}
