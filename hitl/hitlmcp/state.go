package hitlmcp

import (
	"context"
	"sync"
	"time"

	"github.com/hitlkit/hitlkit/internal/mcpcore"
)

// paused is what a requestState holds (see mcpcore.Paused).
type paused = mcpcore.Paused

// seal seals p for bind under the Tool's Secret.
func (t *Tool) seal(bind []byte, p *paused) (string, error) { return mcpcore.Seal(t.Secret, bind, p) }

// open returns what state holds if this tool sealed it for bind and it has not expired;
// anything else is ErrBadState.
func (t *Tool) open(bind []byte, state string) (*paused, error) {
	return mcpcore.Open(t.Secret, bind, state)
}

// Ledger records which paused tool calls have returned the person's result, so that a
// replayed requestState is refused ([ErrReplayed]). Its methods are called concurrently and
// end when ctx does; an error fails the tool call.
//
// Replicas that serve the same tool share one Ledger (a table in the database they share,
// keyed by id, with a unique constraint Spend relies on), or a retry reaching another
// replica could return the result again.
type Ledger interface {
	// Spent reports whether the call id has returned its result.
	Spent(ctx context.Context, id string) (bool, error)
	// Spend records that the call id returns its result now, and reports whether this is
	// the first time; false means another retry did already. The record may be dropped
	// after until, when every state of the call has expired.
	Spend(ctx context.Context, id string, until time.Time) (bool, error)
}

// MemoryLedger is a [Ledger] in memory, for one process. The zero value is ready to use;
// it is safe for concurrent use, and forgets a call once its states have expired.
type MemoryLedger struct {
	mu    sync.Mutex
	spent map[string]time.Time
	prune int // the size at which expired records are dropped next
}

// Spent implements [Ledger].
func (l *MemoryLedger) Spent(_ context.Context, id string) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.spent[id]
	return ok, nil
}

// Spend implements [Ledger].
func (l *MemoryLedger) Spend(_ context.Context, id string, until time.Time) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.spent[id]; ok {
		return false, nil
	}
	if l.spent == nil {
		l.spent = map[string]time.Time{}
	}
	if len(l.spent) >= l.prune {
		now := time.Now()
		for k, u := range l.spent {
			if now.After(u) {
				delete(l.spent, k)
			}
		}
		l.prune = max(2*len(l.spent), 64)
	}
	l.spent[id] = until
	return true, nil
}

// ledger is t.Ledger, or the Tool's own MemoryLedger.
func (t *Tool) ledger() Ledger {
	if t.Ledger != nil {
		return t.Ledger
	}
	t.once.Do(func() { t.memory = &MemoryLedger{} })
	return t.memory
}

// The seal's version prefix and the longest requestState a retry may carry.
const (
	statePrefix = mcpcore.StatePrefix
	maxState    = mcpcore.MaxState
)
