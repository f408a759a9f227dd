// Package flood attacks a public HTTP handler the way a hostile caller would: many
// connections at once, each declaring a body, sending part or most of it, and stopping. Tests
// of the public receivers use it to show that memory and handlers stay bounded.
package flood

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Attack is one flood: Conns connections, each sending a POST whose Content-Length is
// Declared and then Sent bytes of body, and then nothing more.
type Attack struct {
	Conns    int
	Declared int
	Sent     int
	// Header is added to every request (a wrong credential, say).
	Header http.Header
}

// Report is what the flood saw.
type Report struct {
	// Statuses counts the status codes the handler answered with (0: no answer before the
	// connection ended).
	Statuses map[int]int
	// PeakHandlers is the most handler calls that ran at once.
	PeakHandlers int64
	// ExtraHeap is the most heap in use over the baseline, sampled from the moment every
	// connection had sent what it would until the last handler returned.
	ExtraHeap uint64
	// Freed is how long after the last byte was sent the last handler returned.
	Freed time.Duration
}

// Run serves h on a loopback server (ReadHeaderTimeout 5 s), floods it and returns what
// happened. It fails tb when a handler is still running limit after the last byte was sent.
// Every connection and the server are closed before it returns.
func Run(tb testing.TB, h http.Handler, a Attack, limit time.Duration) Report {
	tb.Helper()
	var inFlight, peak atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		defer inFlight.Add(-1)
		h.ServeHTTP(w, r)
	}))
	srv.Config.ReadHeaderTimeout = 5 * time.Second
	srv.Start()
	defer srv.Close()

	var head bytes.Buffer
	fmt.Fprintf(&head, "POST /notify HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n",
		srv.Listener.Addr(), a.Declared)
	for k, vs := range a.Header {
		for _, v := range vs {
			fmt.Fprintf(&head, "%s: %s\r\n", k, v)
		}
	}
	head.WriteString("\r\n")
	chunk := bytes.Repeat([]byte("a"), 32<<10)

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	var (
		sent     sync.WaitGroup
		answered sync.WaitGroup
		mu       sync.Mutex
		statuses = map[int]int{}
		conns    = make([]net.Conn, 0, a.Conns)
	)
	for range a.Conns {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			tb.Fatalf("dial: %v", err)
		}
		_ = c.SetDeadline(time.Now().Add(limit + time.Minute))
		conns = append(conns, c)
		sent.Add(1)
		answered.Add(1)
		go func() {
			defer answered.Done()
			// The body is written while the answer is read: a server that refuses early
			// answers before the client has sent everything.
			go func() {
				defer sent.Done()
				if _, err := c.Write(head.Bytes()); err != nil {
					return
				}
				for left := a.Sent; left > 0; left -= len(chunk) {
					if _, err := c.Write(chunk[:min(left, len(chunk))]); err != nil {
						return
					}
				}
			}()
			code := 0
			if line, err := bufio.NewReader(c).ReadString('\n'); err == nil && len(line) >= 12 {
				code, _ = strconv.Atoi(line[9:12])
			}
			mu.Lock()
			statuses[code]++
			mu.Unlock()
			_ = c.Close()
		}()
	}
	sent.Wait()
	lastByte := time.Now()
	var peakHeap uint64
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peakHeap = max(peakHeap, m.HeapAlloc)
	}
	sample()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for inFlight.Load() > 0 {
		if time.Since(lastByte) > limit {
			tb.Errorf("%d handlers still running %v after the last byte", inFlight.Load(), limit)
			break
		}
		<-tick.C
		sample()
	}
	freed := time.Since(lastByte)
	for _, c := range conns {
		_ = c.Close()
	}
	answered.Wait()

	r := Report{Statuses: statuses, PeakHandlers: peak.Load(), Freed: freed}
	if peakHeap > before.HeapAlloc {
		r.ExtraHeap = peakHeap - before.HeapAlloc
	}
	return r
}
