// Package inflight counts the work a fake server has running in the background, so that its
// Close waits for all of it and no work starts once Close has begun.
//
// A bare sync.WaitGroup cannot do this: an Add that starts from zero while Wait is running
// is a misuse (the race detector reports it), and the work it counts may outlive Close.
package inflight

import "sync"

// Group is a count of running work. The zero value is ready; it must not be copied.
// All methods are safe for concurrent use.
type Group struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// Enter counts one piece of work in, and reports false, counting nothing, once Close has
// begun: the caller then does not start the work. Each Enter that reports true needs one Leave.
func (g *Group) Enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.wg.Add(1)
	return true
}

// Leave counts one piece of work out.
func (g *Group) Leave() { g.wg.Done() }

// Go runs f in a new goroutine, counted, and reports whether it did (false once Close has
// begun).
func (g *Group) Go(f func()) bool {
	if !g.Enter() {
		return false
	}
	go func() {
		defer g.Leave()
		f()
	}()
	return true
}

// Close refuses new work and waits until the work counted in has left. It may be called
// more than once, from several goroutines.
func (g *Group) Close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.wg.Wait()
}
