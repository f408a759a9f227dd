package a2a

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// metadataStream is a stream of n status updates, each adding one member to the task's
// metadata, then the turn's end.
func metadataStream(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `data: {"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t1","contextId":"c1","status":{"state":"working"},"metadata":{"k%06d":"%s"},"final":false}}`+"\n\n",
			i, strings.Repeat("v", 32))
	}
	b.WriteString(`data: {"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t1","contextId":"c1","status":{"state":"completed"},"final":true}}` + "\n\n")
	return b.String()
}

// bytesAllocated is what reading s allocates.
func bytesAllocated(t *testing.T, s string) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ev, err := readStream(strings.NewReader(s), nil)
	runtime.ReadMemStats(&after)
	if err != nil || ev.Task == nil {
		t.Fatalf("readStream = %+v, %v", ev, err)
	}
	return after.TotalAlloc - before.TotalAlloc
}

// A stream whose every update adds a metadata member costs work linear in its length: the
// metadata is merged as a map and encoded once, where merging into the encoded object at each
// event cost the whole object every time (a 1 MiB stream: 34 s of CPU). Measured by the bytes
// the read allocates, not by a clock: ten times the events may cost at most about ten times
// the bytes (the quadratic merge cost about a hundred times).
func TestStreamMetadataMergeLinear(t *testing.T) {
	small, large := metadataStream(300), metadataStream(3000)
	a, b := bytesAllocated(t, small), bytesAllocated(t, large)
	if ratio := float64(b) / float64(a); ratio > 15 {
		t.Errorf("3,000 updates allocate %d bytes, 300 allocate %d: ×%.0f for ×10 the events, want linear", b, a, ratio)
	}
	ev, _ := readStream(strings.NewReader(large), nil)
	var meta map[string]string
	if err := json.Unmarshal(ev.Task.Metadata, &meta); err != nil || len(meta) != 3000 || meta["k002999"] == "" {
		t.Errorf("merged metadata has %d members (%v), want all 3,000", len(meta), err)
	}
}
