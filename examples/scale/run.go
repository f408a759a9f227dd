package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/filestore"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/internal/backoff"
	"github.com/hitlkit/hitlkit/transport"
)

// row is what one run of one way of waiting measured.
type row struct {
	Way                string        `json:"way"`
	Waits              int           `json:"waits"`
	HeapPerWait        float64       `json:"heap_per_wait"` // bytes
	RSSPerWait         float64       `json:"rss_per_wait"`  // bytes
	GoroutinesPerWait  float64       `json:"goroutines_per_wait"`
	Sockets            int           `json:"sockets"`
	Requests           int64         `json:"requests"`
	MinRequests        int64         `json:"min_requests"`
	Bytes              int64         `json:"bytes"`
	LastDecisionToDone time.Duration `json:"last_decision_to_done"`
	P50                time.Duration `json:"p50"`
	P99                time.Duration `json:"p99"`
	Leftover           int           `json:"leftover"`
	Failed             int           `json:"failed"`
	// MeasuredAfter is when, after the waits began, heap, goroutines and sockets were read.
	MeasuredAfter time.Duration `json:"measured_after"`
	// StorePerWait is the store file's size at the end of a "store" run over the waits: the
	// disk an open interrupt costs at the peak (bbolt keeps a file at its largest size).
	StorePerWait float64 `json:"store_per_wait"` // bytes
}

// counter counts the bytes a client's connections carry, the requests it sends and the
// answers it got (their headers).
type counter struct {
	bytes, requests, answered atomic.Int64
}

type countingConn struct {
	net.Conn
	c *counter
}

func (cc countingConn) Read(p []byte) (int, error) {
	n, err := cc.Conn.Read(p)
	cc.c.bytes.Add(int64(n))
	return n, err
}

func (cc countingConn) Write(p []byte) (int, error) {
	n, err := cc.Conn.Write(p)
	cc.c.bytes.Add(int64(n))
	return n, err
}

type countingTransport struct {
	base http.RoundTripper
	c    *counter
}

func (t countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.c.requests.Add(1)
	resp, err := t.base.RoundTrip(r)
	t.c.answered.Add(1)
	return resp, err
}

// newHTTPClient is an agent's client: one transport, a pool deep enough for every wait to
// keep its connection, bytes and requests counted.
func newHTTPClient(cfg config, c *counter, roots *x509.CertPool) (*http.Client, *http.Transport) {
	d := &net.Dialer{}
	tr := &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: roots},
		ForceAttemptHTTP2: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return countingConn{Conn: conn, c: c}, nil
		},
		MaxIdleConns:        20000,
		MaxIdleConnsPerHost: 20000,
		IdleConnTimeout:     time.Minute,
	}
	if !cfg.HTTP1 {
		// Over HTTP/1.1 it would bound the connections themselves, and each stream holds one.
		tr.MaxConnsPerHost = cfg.MaxConnsPerHost
	}
	if cfg.H2Queue {
		queueHTTP2(tr)
	}
	return &http.Client{Transport: countingTransport{base: tr, c: c}}, tr
}

type snapshot struct {
	heap       uint64
	rss        uint64
	goroutines int
	sockets    int
}

func snap() snapshot {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return snapshot{heap: ms.HeapAlloc, rss: rss(), goroutines: runtime.NumGoroutine(), sockets: sockets()}
}

// rss is the resident set size from /proc (0 where there is none).
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// sockets counts the process's open sockets (0 where /proc is missing).
func sockets() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.HasPrefix(target, "socket:") {
			n++
		}
	}
	return n
}

// measure runs n concurrent waits of one way against a fresh fake service.
func measure(ctx context.Context, cfg config, way string, n int) (row, error) {
	switch way {
	case "a2a":
		return measureA2A(ctx, cfg, n)
	case "hxp":
		return measureHXP(ctx, cfg, n)
	}
	r := row{Way: way, Waits: n}
	base, roots, stop, err := startServer(ctx, cfg, way == "sse", false, false)
	if err != nil {
		return r, err
	}
	defer stop()

	// The person: decides through the review page, on a client of its own (not counted).
	person := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16, MaxConnsPerHost: 16,
		TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true}}
	defer person.CloseIdleConnections()

	var cnt counter
	hc, tr := newHTTPClient(cfg, &cnt, roots)
	naiveRoots = roots
	opts := []transport.Option{transport.WithHTTPClient(hc), transport.WithAllowPrivateAddresses()}
	storePath := ""
	if way == "store" {
		// Polling, with every open interrupt kept in a file store (WithStore).
		dir, err := os.MkdirTemp("", "scale-store")
		if err != nil {
			return r, err
		}
		defer os.RemoveAll(dir)
		storePath = filepath.Join(dir, "hitl.db")
		st, err := filestore.Open(storePath)
		if err != nil {
			return r, err
		}
		defer st.Close()
		opts = append(opts, hitl.WithStore(st))
	}
	var cbURL string
	closeReceiver := func() {}
	receiver := 0 // goroutines of the callback receiver, which the cleanup ends
	if way == "callback" {
		cb, err := hitl.NewCallbacks([]byte(hitltest.DefaultCallbackSecret), &hitl.CallbacksOptions{MaxKept: 2 * n})
		if err != nil {
			return r, err
		}
		g := runtime.NumGoroutine()
		srv := httptest.NewServer(cb)
		defer srv.Close()
		receiver = runtime.NumGoroutine() - g
		closeReceiver = srv.Close
		cbURL = srv.URL + "/hitl/callback"
		opts = append(opts, hitl.WithCallbacks(cb))
	}
	client, err := hitl.NewClient(opts...)
	if err != nil {
		return r, err
	}

	// Create the cases with the person's client, so the agent's counters start at the waits.
	its := make([]*hitl.Interrupt, n)
	if err := createCases(ctx, person, client, base, cbURL, its); err != nil {
		return r, err
	}
	person.CloseIdleConnections()
	wait := func(i int) error {
		if way == "naive" {
			return naiveWait(ctx, its[i].Case.PollURL)
		}
		_, err := client.Wait(ctx, its[i], &hitl.WaitOptions{PollOnly: way == "poll" || way == "store", NoReminders: true})
		return err
	}
	answer := func(i int) error { return decide(ctx, person, its[i].Case.ReviewURL) }
	counted := &cnt
	if way == "naive" {
		counted = &naiveCounter
	}
	var closed sync.Once
	r, err = runWaits(ctx, cfg, r, counted, receiver, wait, answer, func() {
		tr.CloseIdleConnections()
		person.CloseIdleConnections()
		closed.Do(closeReceiver) // the callback receiver's connections are the server's, not the waits'
	})
	if fi, serr := os.Stat(storePath); storePath != "" && serr == nil {
		r.StorePerWait = float64(fi.Size()) / float64(n)
	}
	return r, err
}

// runWaits is one measurement: n waits started at once (wait(i) for each), measured once
// they settled, each decided (answer(i)) at a random time within the window, then the
// results and the goroutines left after cleanup. cnt counts the waits' traffic. owned is how
// many goroutines running before the waits began the cleanup ends (the callback receiver's):
// they are no wait's, so they leave the baseline the goroutines left are counted against.
func runWaits(ctx context.Context, cfg config, r row, cnt *counter, owned int, wait, answer func(i int) error, cleanup func()) (row, error) {
	n := r.Waits
	before := snap()
	type done struct {
		at  time.Time
		err error
	}
	results := make([]done, n)
	began := time.Now()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			err := wait(i)
			results[i] = done{time.Now(), err}
		})
	}

	// Let the waits settle, then take the measure: once they have had as many answers as
	// there are waits (to a first poll or stream each; at 100,000 waits the first polls, all
	// due at once, take the service many seconds to answer), and 2 s more, at least 3 s
	// after they began — so the figure is of open waits, not of a burst of first polls.
	for cnt.answered.Load() < int64(n) && time.Since(began) < settleLimit {
		if !backoff.Pause(ctx, 100*time.Millisecond, nil) {
			return r, ctx.Err()
		}
	}
	if !backoff.Pause(ctx, max(2*time.Second, 3*time.Second-time.Since(began)), nil) {
		return r, ctx.Err()
	}
	r.MeasuredAfter = time.Since(began)
	during := snap()
	r.HeapPerWait = float64(int64(during.heap)-int64(before.heap)) / float64(n)
	r.RSSPerWait = float64(int64(during.rss)-int64(before.rss)) / float64(n)
	r.GoroutinesPerWait = float64(during.goroutines-before.goroutines) / float64(n)
	r.Sockets = during.sockets - before.sockets

	// Decide every case at a random time within the window.
	rng := rand.New(rand.NewPCG(uint64(cfg.Seed), uint64(n)))
	decided := make([]time.Time, n)
	start := time.Now()
	order := make([]int, n)
	offsets := make([]time.Duration, n)
	for i := range order {
		order[i], offsets[i] = i, time.Duration(rng.Int64N(int64(cfg.Window)))
	}
	slices.SortFunc(order, func(a, b int) int { return int(offsets[a] - offsets[b]) })
	var dwg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for _, i := range order {
		if !backoff.Pause(ctx, time.Until(start.Add(offsets[i])), nil) {
			return r, ctx.Err()
		}
		sem <- struct{}{}
		dwg.Go(func() {
			defer func() { <-sem }()
			decided[i] = time.Now()
			if err := answer(i); err != nil {
				fmt.Fprintln(os.Stderr, "scale: decide:", err)
			}
		})
	}
	dwg.Wait()
	wg.Wait()

	var lastDecision, lastDone time.Time
	lat := make([]time.Duration, 0, n)
	for i, d := range results {
		if d.err != nil {
			r.Failed++
			continue
		}
		// The pacing's minimum: a poll at the start and one every Retry-After until the
		// decision shows, that is ⌈T/R⌉+1 polls for a case decided T after its wait began.
		r.MinRequests += int64((decided[i].Sub(began)+cfg.RetryAfter-1)/cfg.RetryAfter) + 1
		lastDecision = latest(lastDecision, decided[i])
		lastDone = latest(lastDone, d.at)
		lat = append(lat, d.at.Sub(decided[i]))
	}
	r.LastDecisionToDone = lastDone.Sub(lastDecision)
	slices.Sort(lat)
	if len(lat) > 0 {
		r.P50, r.P99 = lat[len(lat)/2], lat[len(lat)*99/100]
	}
	r.Requests, r.Bytes = cnt.requests.Load(), cnt.bytes.Load()
	// An HTTP/2 connection whose streams were reset is idle only once the server has
	// acknowledged the resets, so the pool is emptied again until then (up to 5 s); a
	// goroutine of a wait would not end at all.
	for range 50 {
		cleanup()
		if !backoff.Pause(ctx, 100*time.Millisecond, nil) {
			return r, ctx.Err()
		}
		if runtime.NumGoroutine() <= before.goroutines-owned {
			break
		}
	}
	// Fewer than the baseline means goroutines from before the waits ended, none of a wait's
	// is left.
	r.Leftover = max(0, runtime.NumGoroutine()-(before.goroutines-owned))
	if r.Leftover > 0 && os.Getenv("SCALE_DUMP") != "" { // to see what is left
		_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
	}
	return r, nil
}

// settleLimit bounds how long runWaits waits for the first requests before it measures.
const settleLimit = 5 * time.Minute

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// createCases makes len(its) approval cases and detects each.
func createCases(ctx context.Context, hc *http.Client, client *hitl.Client, base, cbURL string, its []*hitl.Interrupt) error {
	body := "{}"
	if cbURL != "" {
		b, _ := json.Marshal(map[string]string{hitl.CallbackURLField: cbURL})
		body = string(b)
	}
	return forEach(len(its), func(i int) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/actions/approval", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		its[i], err = client.Detect(resp)
		_, _ = io.Copy(io.Discard, resp.Body)
		if err == nil && its[i] == nil {
			err = errors.New("no interrupt in the answer")
		}
		return err
	})
}

// forEach runs f for 0..n-1, 32 at a time, and returns the first error.
func forEach(n int, f func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		sem   = make(chan struct{}, 32)
	)
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := f(i); err != nil {
				mu.Lock()
				first = cmpOr(first, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return first
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// decide approves a case on its review page, as a person's browser does.
func decide(ctx context.Context, hc *http.Client, reviewURL string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, reviewURL, strings.NewReader(url.Values{"action": {"approve"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := (&http.Client{Transport: hc.Transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return fmt.Errorf("review page answered %d", resp.StatusCode)
	}
	return nil
}

// naiveCounter counts the naive client's traffic, and naiveRoots is the certificate it
// trusts; one measuring process runs one way, so these are set once.
var (
	naiveCounter counter
	naiveRoots   *x509.CertPool
)

// naiveWait is the loop the HITL Protocol's SDK guide sketches, as many agents would write
// it: a client and a connection of its own; GET the poll URL (no ETag, no Retry-After); stop
// at a terminal status, else sleep 30 s and repeat.
func naiveWait(ctx context.Context, pollURL string) error {
	hc, tr := newHTTPClient(config{}, &naiveCounter, naiveRoots)
	defer tr.CloseIdleConnections()
	for {
		if resp, err := hc.Get(pollURL); err == nil {
			var st struct {
				Status string `json:"status"`
			}
			err = json.NewDecoder(resp.Body).Decode(&st)
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if err == nil && (st.Status == "completed" || st.Status == "expired" || st.Status == "cancelled") {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(30 * time.Second):
		}
	}
}

// printTable prints the table of rows: printHeader, then printRow for each.
func printTable(out io.Writer, cfg config, rows []row) {
	printHeader(out, cfg)
	for _, r := range rows {
		printRow(out, r)
	}
}

// columns are the table's headings and widths: each row is printed as it finishes, so the
// widths are fixed rather than fitted to the rows.
var columns = []struct {
	name  string
	width int
}{
	{"way", 9}, {"waits", 7}, {"measured after", 15}, {"heap/wait", 11}, {"RSS/wait", 11},
	{"goroutines/wait", 16}, {"sockets", 8}, {"requests", 9}, {"minimum", 9}, {"KiB/case", 9},
	{"last decision→last return", 26}, {"p50", 9}, {"p99", 9}, {"left", 5}, {"failed", 7}, {"store/wait", 11},
}

// printHeader prints the machine, the settings and the column headings.
func printHeader(out io.Writer, cfg config) {
	proto := "HTTPS with HTTP/2"
	if cfg.HTTP1 {
		proto = "plain HTTP/1.1"
	}
	fmt.Fprintf(out, "%d cores, %s, %s/%s; %s; window %v, Retry-After %v\n\n", runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH, proto, cfg.Window, cfg.RetryAfter)
	cells := make([]string, len(columns))
	for i, c := range columns {
		cells[i] = c.name
	}
	printCells(out, cells)
}

// printRow prints one row, right-aligned under the headings.
func printRow(out io.Writer, r row) {
	store := "-"
	if r.StorePerWait > 0 {
		store = fmt.Sprintf("%.1f KiB", r.StorePerWait/1024)
	}
	printCells(out, []string{r.Way, strconv.Itoa(r.Waits), r.MeasuredAfter.Round(100 * time.Millisecond).String(),
		fmt.Sprintf("%.1f KiB", r.HeapPerWait/1024), fmt.Sprintf("%.1f KiB", r.RSSPerWait/1024),
		fmt.Sprintf("%.2f", r.GoroutinesPerWait), strconv.Itoa(r.Sockets), strconv.FormatInt(r.Requests, 10),
		strconv.FormatInt(r.MinRequests, 10), fmt.Sprintf("%.2f", float64(r.Bytes)/1024/float64(r.Waits)),
		r.LastDecisionToDone.Round(time.Millisecond).String(), r.P50.Round(time.Millisecond).String(),
		r.P99.Round(time.Millisecond).String(), strconv.Itoa(r.Leftover), strconv.Itoa(r.Failed), store})
}

func printCells(out io.Writer, cells []string) {
	var b strings.Builder
	for i, c := range cells {
		if i > 0 {
			b.WriteString("  ")
		}
		if pad := columns[i].width - utf8.RuneCountInString(c); pad > 0 {
			b.WriteString(strings.Repeat(" ", pad))
		}
		b.WriteString(c)
	}
	b.WriteString("\n")
	_, _ = io.WriteString(out, b.String())
}
