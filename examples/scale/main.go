// Command scale measures what hitlkit costs an agent that waits on many human decisions at
// once: memory, goroutines and sockets per wait, requests and bytes per decision, and the
// time from the last decision to the last Wait returning, for each way of waiting (polling,
// event stream, callback), beside a naive client written the way the HITL Protocol's SDK
// guide sketches one (poll, sleep 30 s, repeat; no ETag, no Retry-After; a goroutine and a
// connection of its own per case).
//
//	go run ./examples/scale                          # six ways × 100, 1,000 and 10,000 waits; about 20 minutes
//	go run ./examples/scale -waits 50 -window 2s     # a smoke run; 1 m 25 s on a busy machine
//
// The running times are those of the runs in this directory's README.md, on a 2-core
// machine, where the figures are, each with its command and the date it was measured; each
// run prints its own at the end. Each row of the table is printed as soon as it is measured, so a run
// stopped or failed late keeps the rows before.
//
// Every measurement runs in a fresh process (this program with -one), and the fake HITL
// service in another (-serve), so the figures are the agent's alone and start from the same
// baseline. Each case is decided by a scripted person at a random time within the window
// (fixed seed), through the review page, as a browser would. By default the service speaks
// HTTPS with HTTP/2, as production services do; -http1 measures plain HTTP/1.1.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
)

// config is one run's settings; the parent passes it to each measuring process.
type config struct {
	Window     time.Duration `json:"window"`
	RetryAfter time.Duration `json:"retry_after"`
	Seed       int64         `json:"seed"`
	HTTP1      bool          `json:"http1"`
	// H2Queue: the agent's HTTP/2 client queues requests beyond the server's stream limit
	// instead of opening more connections (http.HTTP2Config.StrictMaxConcurrentRequests).
	H2Queue bool `json:"h2_queue"`
	// MaxConnsPerHost bounds the agent's connections being dialled to the service at once
	// (http.Transport.MaxConnsPerHost; for HTTP/2 it bounds the dials in progress, not the
	// connections): 10,000 waits that open their streams together otherwise dial thousands
	// of connections before the first one says how many streams it carries. 0: no bound.
	// Not applied with HTTP1, where it would bound the connections and each stream holds one.
	MaxConnsPerHost int `json:"max_conns_per_host"`
}

func main() {
	serve := flag.Bool("serve", false, "run the fake service and print its URL (used by -one)")
	one := flag.String("one", "", "measure one way:waits and print the row as JSON (used by the parent run)")
	events := flag.Bool("events", true, "with -serve: offer event streams")
	agent := flag.Bool("agent", false, "with -serve: serve the fake A2A agent instead of the HITL service")
	hxpServer := flag.Bool("hxp", false, "with -serve: serve the fake HXP server instead of the HITL service")
	retryAfter := flag.Duration("retry-after", 10*time.Second, "Retry-After the fake service sends")
	waits := flag.String("waits", "100,1000,10000", "numbers of concurrent waits, comma-separated")
	ways := flag.String("ways", "poll,sse,callback,naive,a2a,hxp", "ways of waiting, comma-separated (a2a: polling A2A tasks; hxp: HXP requests over WebSocket; store: polling with a file store)")
	window := flag.Duration("window", 20*time.Second, "decisions fall at random times within this window")
	seed := flag.Int64("seed", 1, "seed of the decision times")
	http1 := flag.Bool("http1", false, "serve plain HTTP/1.1 instead of HTTPS with HTTP/2")
	h2Queue := flag.Bool("h2-queue", false, "the agent's HTTP/2 client queues requests past the server's stream limit instead of opening connections")
	maxConns := flag.Int("max-conns-per-host", 64, "the agent's http.Transport.MaxConnsPerHost over HTTP/2 (0: no bound; not applied with -http1)")
	flag.Parse()
	cfg := config{Window: *window, RetryAfter: *retryAfter, Seed: *seed, HTTP1: *http1, H2Queue: *h2Queue, MaxConnsPerHost: *maxConns}
	if *serve {
		// The fake's server logs what a loaded client does without harm: a connection whose
		// client sent no HTTP/2 SETTINGS frame within 2 s (at 10,000 waits on a busy machine
		// some do, and the agent dials again: a transient failure its waits retry; a wait that
		// failed is counted), and a connection closed or reset before its TLS handshake or
		// HTTP/2 preface was through (a pool dialling one more than it used, or a measuring
		// process ending while it dialled). Every other line of its log is kept.
		log.SetOutput(dropLines{w: os.Stderr})
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	switch {
	case *serve && *agent:
		runAgent(cfg)
	case *serve && *hxpServer:
		svc := hxptest.NewUnstartedServer()
		svc.Start()
		announce(svc.URL, nil)
		svc.Close()
	case *serve:
		runServer(*events, cfg)
	case *one != "":
		err = measureOne(ctx, cfg, *one)
	default:
		err = runAll(ctx, os.Stdout, cfg, *waits, *ways)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

// dropLines writes to w every log line but the harmless ones of a loaded server.
type dropLines struct{ w io.Writer }

func (d dropLines) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("timeout waiting for SETTINGS frames")) || abandonedHandshake(p) {
		return len(p), nil
	}
	return d.w.Write(p)
}

// abandonedHandshake reports whether line is the server's note of a client that closed or
// reset its connection before the TLS handshake or the HTTP/2 preface was through.
func abandonedHandshake(line []byte) bool {
	line = bytes.TrimSpace(line)
	return (bytes.Contains(line, []byte("http: TLS handshake error from")) ||
		bytes.Contains(line, []byte("http2: server: error reading preface from client"))) &&
		(bytes.HasSuffix(line, []byte(": EOF")) || bytes.HasSuffix(line, []byte(": connection reset by peer")))
}

// runAll measures every way at every size, each in a process of its own, and prints each row
// of the table as soon as it is measured, then the running time.
func runAll(ctx context.Context, out io.Writer, cfg config, waits, ways string) error {
	began := time.Now()
	printHeader(out, cfg)
	_, err := measureAll(ctx, cfg, waits, ways, func(r row) { printRow(out, r) })
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nall rows in %v\n", time.Since(began).Round(time.Second))
	return nil
}

// measureAll measures each way at each size and hands each row to each (nil: none) as it is
// measured.
func measureAll(ctx context.Context, cfg config, waits, ways string, each func(row)) ([]row, error) {
	// Both lists are checked before the first measurement: a misspelt way would otherwise be
	// measured as plain polling under its wrong name, or fail after minutes of other rows.
	var sizes []int
	for _, s := range strings.Split(waits, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad -waits %q", s)
		}
		sizes = append(sizes, n)
	}
	var wayList []string
	for _, way := range strings.Split(ways, ",") {
		way = strings.TrimSpace(way)
		if !slices.Contains(allWays, way) {
			return nil, fmt.Errorf("bad -ways %q: the ways are %s", way, strings.Join(allWays, ", "))
		}
		wayList = append(wayList, way)
	}
	var rows []row
	for _, n := range sizes {
		for _, way := range wayList {
			r, err := child(ctx, cfg, way, n)
			if err != nil {
				return nil, fmt.Errorf("%s × %d: %w", way, n, err)
			}
			rows = append(rows, r)
			if each != nil {
				each(r)
			}
		}
	}
	return rows, nil
}

func self(ctx context.Context, cfg config, args ...string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	args = append(args, "-window="+cfg.Window.String(), "-retry-after="+cfg.RetryAfter.String(),
		"-seed="+strconv.FormatInt(cfg.Seed, 10), "-http1="+strconv.FormatBool(cfg.HTTP1),
		"-h2-queue="+strconv.FormatBool(cfg.H2Queue), "-max-conns-per-host="+strconv.Itoa(cfg.MaxConnsPerHost))
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stderr = os.Stderr
	return cmd
}

// child runs one measurement in a fresh process and reads its row.
func child(ctx context.Context, cfg config, way string, n int) (row, error) {
	var r row
	out, err := self(ctx, cfg, "-one", fmt.Sprintf("%s:%d", way, n)).Output()
	if err != nil {
		return r, err
	}
	return r, json.Unmarshal(out, &r)
}

// allWays are the ways of waiting a run can measure.
var allWays = []string{"poll", "sse", "callback", "naive", "a2a", "hxp", "store"}

func measureOne(ctx context.Context, cfg config, spec string) error {
	way, ns, _ := strings.Cut(spec, ":")
	n, err := strconv.Atoi(ns)
	if err != nil || !slices.Contains(allWays, way) {
		return fmt.Errorf("bad -one %q", spec)
	}
	r, err := measure(ctx, cfg, way, n)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(r)
}

// runServer serves the fake until its standard input closes. It prints the URL and, over
// TLS, the certificate (base64 DER) on its first line.
func runServer(events bool, cfg config) {
	opts := []hitltest.Option{hitltest.WithRetryAfter(cfg.RetryAfter), hitltest.WithCaseLifetime(time.Hour)}
	if !events {
		opts = append(opts, hitltest.WithoutEvents())
	}
	svc := hitltest.NewUnstartedServer(opts...)
	if cfg.HTTP1 {
		svc.Start()
	} else {
		svc.StartTLS()
	}
	announce(svc.URL, svc.Certificate())
	svc.Close()
}

// runAgent serves the fake A2A agent until standard input closes.
func runAgent(cfg config) {
	a := a2atest.NewUnstartedAgent()
	if cfg.HTTP1 {
		a.Start()
	} else {
		a.StartTLS()
	}
	announce(a.URL, a.Certificate())
	a.Close()
}

// announce prints the URL and certificate on one line, then waits for standard input to
// close.
func announce(url string, cert *x509.Certificate) {
	c := ""
	if cert != nil {
		c = base64.StdEncoding.EncodeToString(cert.Raw)
	}
	fmt.Println(url, c)
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// startServer runs the fake in a child process and returns its URL, the certificate to
// trust (nil for plain HTTP) and a stop function.
func startServer(ctx context.Context, cfg config, events, agent, hxpServer bool) (string, *x509.CertPool, func(), error) {
	cmd := self(ctx, cfg, "-serve", "-events="+strconv.FormatBool(events), "-agent="+strconv.FormatBool(agent), "-hxp="+strconv.FormatBool(hxpServer))
	in, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, nil, err
	}
	stop := func() { _ = in.Close(); _ = cmd.Wait() }
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, nil, fmt.Errorf("fake service did not start: %w", err)
	}
	url, certB64, _ := strings.Cut(strings.TrimSpace(line), " ")
	if certB64 == "" {
		return url, nil, stop, nil
	}
	der, err := base64.StdEncoding.DecodeString(certB64)
	if err != nil {
		stop()
		return "", nil, nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	return url, pool, stop, nil
}
