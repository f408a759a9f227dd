package toolgate

import (
	"sync"
	"testing"
)

// Locks serialise one key's holders and forget a key once no one holds it.
func TestLocks(t *testing.T) {
	var l Locks
	var wg sync.WaitGroup
	inside := 0
	for range 50 {
		wg.Go(func() {
			unlock := l.Lock("run-1")
			inside++ // the race detector reports it if two holders overlap
			if inside != 1 {
				t.Error("two holders of one key at once")
			}
			inside--
			unlock()
		})
	}
	wg.Wait()
	other := l.Lock("run-2")
	other()
	if n := len(l.held); n != 0 {
		t.Errorf("%d keys remembered after every holder left, want 0", n)
	}
}
