package hitlmcp

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
)

// paused is what a requestState holds: the paused call's random id (the same in every state
// of the call, the key in the Ledger), when the state stops being valid (Unix seconds), when
// the case opened, and the case.
type paused struct {
	Call      string          `json:"call"`
	Expires   int64           `json:"exp"`
	Opened    int64           `json:"opened,omitempty"` // Unix milliseconds
	Interrupt *hitl.Interrupt `json:"it"`
}

// statePrefix names the seal's version; a state without it does not open.
const statePrefix = "v1."

// maxState bounds the requestState a retry may carry; a sealed case is a few kilobytes.
const maxState = 64 << 10

// aead is AES-256-GCM under a key derived from Secret for sealing requestState alone.
func (t *Tool) aead() (cipher.AEAD, error) {
	m := hmac.New(sha256.New, t.Secret)
	m.Write([]byte("hitlmcp requestState v1"))
	block, err := aes.NewCipher(m.Sum(nil))
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// seal is "v1." base64url(nonce ‖ AES-256-GCM(p, additional data: bind)).
func (t *Tool) seal(bind []byte, p *paused) (string, error) {
	plain, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	g, err := t.aead()
	if err != nil {
		return "", err
	}
	nonce := make([]byte, g.NonceSize(), g.NonceSize()+len(plain)+g.Overhead())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails
	return statePrefix + base64.RawURLEncoding.EncodeToString(g.Seal(nonce, nonce, plain, bind)), nil
}

// open returns what state holds if this tool sealed it for bind and it has not expired;
// anything else is ErrBadState.
func (t *Tool) open(bind []byte, state string) (*paused, error) {
	body, ok := strings.CutPrefix(state, statePrefix)
	if !ok || len(state) > maxState {
		return nil, ErrBadState
	}
	sealed, err := base64.RawURLEncoding.Strict().DecodeString(body)
	if err != nil {
		return nil, ErrBadState
	}
	g, err := t.aead()
	if err != nil {
		return nil, err
	}
	if len(sealed) < g.NonceSize()+g.Overhead() {
		return nil, ErrBadState
	}
	plain, err := g.Open(nil, sealed[:g.NonceSize()], sealed[g.NonceSize():], bind)
	if err != nil {
		return nil, ErrBadState
	}
	var p paused
	if err := json.Unmarshal(plain, &p); err != nil || p.Call == "" || p.Interrupt == nil || p.Interrupt.Case == nil || p.Interrupt.Case.ReviewURL == "" {
		return nil, ErrBadState
	}
	if !time.Now().Before(time.Unix(p.Expires, 0)) {
		return nil, fmt.Errorf("%w: expired", ErrBadState)
	}
	return &p, nil
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
