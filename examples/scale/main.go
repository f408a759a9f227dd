// Command scale measures what hitlkit costs an agent that waits on many human decisions at
// once: memory, goroutines and sockets per wait, requests and bytes per decision, and the
// time from the last decision to the last Wait returning, for each way of waiting (polling,
// event stream, callback), beside a naive client written the way the HITL Protocol's SDK
// guide sketches one (sleep 30 s, poll, repeat; no ETag, no Retry-After; a goroutine and a
// connection of its own per case).
//
//	go run ./examples/scale                               # 100, 1,000 and 10,000 waits; a few minutes
//	go run ./examples/scale -waits 50 -window 2s          # a smoke run
//
// The fake HITL service runs in a child process (this program started with -serve), so the
// figures are the agent's alone. Each case is decided by a scripted person at a random time
// within the window (fixed seed), through the review page, as a browser would.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/hitl/hitltest"
)

func main() {
	serve := flag.Bool("serve", false, "run the fake service and print its URL (used by the parent run)")
	events := flag.Bool("events", true, "with -serve: offer event streams")
	retryAfter := flag.Duration("retry-after", 10*time.Second, "Retry-After the fake service sends")
	waits := flag.String("waits", "100,1000,10000", "numbers of concurrent waits, comma-separated")
	ways := flag.String("ways", "poll,sse,callback,naive", "ways of waiting, comma-separated")
	window := flag.Duration("window", 20*time.Second, "decisions fall at random times within this window")
	seed := flag.Int64("seed", 1, "seed of the decision times")
	flag.Parse()
	if *serve {
		runServer(*events, *retryAfter)
		return
	}
	var sizes []int
	for _, s := range strings.Split(*waits, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "scale: bad -waits %q\n", s)
			os.Exit(2)
		}
		sizes = append(sizes, n)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg := config{window: *window, retryAfter: *retryAfter, seed: *seed}
	if err := run(ctx, os.Stdout, cfg, sizes, strings.Split(*ways, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

// runServer serves the fake until its standard input closes.
func runServer(events bool, retryAfter time.Duration) {
	opts := []hitltest.Option{hitltest.WithRetryAfter(retryAfter), hitltest.WithCaseLifetime(time.Hour)}
	if !events {
		opts = append(opts, hitltest.WithoutEvents())
	}
	svc := hitltest.Start(opts...)
	fmt.Println(svc.URL)
	_, _ = io.Copy(io.Discard, os.Stdin)
	svc.Close()
}

// startServer runs the fake in a child process and returns its URL and a stop function.
func startServer(ctx context.Context, events bool, retryAfter time.Duration) (string, func(), error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.CommandContext(ctx, self, "-serve", "-events="+strconv.FormatBool(events), "-retry-after="+retryAfter.String())
	in, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { _ = in.Close(); _ = cmd.Wait() }
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("fake service did not start: %w", err)
	}
	return strings.TrimSpace(line), stop, nil
}
