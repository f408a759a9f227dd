package toolgate

import "sync"

// Locks serialise work by key (a run's checkpoint): Lock(key) waits while another holder of
// key works, and the unlock it returns lets the next one in. A key no one holds or waits for
// is forgotten, so the set stays as small as the work in progress. The zero value is ready;
// safe for concurrent use.
type Locks struct {
	mu   sync.Mutex
	held map[string]*keyLock
}

type keyLock struct {
	sync.Mutex
	users int // holders and waiters
}

// Lock locks key and returns its unlock.
func (l *Locks) Lock(key string) (unlock func()) {
	l.mu.Lock()
	if l.held == nil {
		l.held = make(map[string]*keyLock)
	}
	k := l.held[key]
	if k == nil {
		k = &keyLock{}
		l.held[key] = k
	}
	k.users++
	l.mu.Unlock()
	k.Lock()
	return func() {
		k.Unlock()
		l.mu.Lock()
		if k.users--; k.users == 0 {
			delete(l.held, key)
		}
		l.mu.Unlock()
	}
}
