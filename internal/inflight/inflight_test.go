package inflight

import (
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestCloseWaitsForWork: Close returns only after every piece of work counted in has left,
// and nothing is counted in after it began.
func TestCloseWaitsForWork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g Group
		release := make(chan struct{})
		var done atomic.Int32
		for range 3 {
			if !g.Go(func() { <-release; done.Add(1) }) {
				t.Fatal("Go refused before Close")
			}
		}
		closed := make(chan struct{})
		go func() { g.Close(); close(closed) }()
		synctest.Wait()
		select {
		case <-closed:
			t.Fatal("Close returned while work was running")
		default:
		}
		if g.Enter() {
			t.Error("Enter counted work in after Close began")
		}
		if g.Go(func() { t.Error("work started after Close began") }) {
			t.Error("Go reported true after Close began")
		}
		close(release)
		<-closed
		if n := done.Load(); n != 3 {
			t.Errorf("%d pieces of work finished before Close returned, want 3", n)
		}
		g.Close() // again: returns at once
	})
}

// TestEnterRacesClose: work entering from many goroutines while Close runs is either counted
// and waited for, or refused; the race detector finds no misuse of the count.
func TestEnterRacesClose(t *testing.T) {
	for range 200 {
		var g Group
		var running, left atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if g.Enter() {
					running.Add(1)
					left.Add(1)
					g.Leave()
				}
			}()
		}
		close(start)
		g.Close()
		n := running.Load()
		wg.Wait()
		if running.Load() != n {
			t.Fatalf("work counted in after Close returned: %d then %d", n, running.Load())
		}
		if left.Load() != n {
			t.Fatalf("%d entered, %d left", n, left.Load())
		}
	}
}
