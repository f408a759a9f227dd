package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain lets the test binary stand in for the command when a measurement starts it as a
// child process (-serve, -one); otherwise it runs the tests.
func TestMain(m *testing.M) {
	for _, a := range os.Args[1:] {
		if a == "-serve" || strings.HasPrefix(a, "-one") {
			main()
			os.Exit(0)
		}
	}
	goleak.VerifyTestMain(m)
}

// TestSmoke runs a tiny configuration end to end: every wait returns, none fails, no
// goroutine is left, and requests stay within the pacing minimum plus one per wait.
func TestSmoke(t *testing.T) {
	var out bytes.Buffer
	cfg := config{Window: time.Second, RetryAfter: time.Second, Seed: 1}
	rows, err := measureAll(t.Context(), cfg, "20", "poll,sse,callback,a2a,hxp,store", nil)
	if err != nil {
		t.Fatal(err)
	}
	printTable(&out, cfg, rows)
	t.Log("\n" + out.String())
	for _, r := range rows {
		if r.Failed != 0 || r.Leftover > 0 || r.Waits != 20 {
			t.Errorf("%s: %d failed, %d goroutines left", r.Way, r.Failed, r.Leftover)
		}
		if (r.Way == "store") != (r.StorePerWait > 0) {
			t.Errorf("%s: %.0f bytes of store per wait", r.Way, r.StorePerWait)
		}
		if (r.Way == "poll" || r.Way == "a2a" || r.Way == "store") && r.Requests > r.MinRequests+int64(r.Waits) {
			t.Errorf("poll: %d requests, minimum %d", r.Requests, r.MinRequests)
		}
	}
}

// TestRowsPrintedAsMeasured: each row is printed as soon as it is measured, so a run that
// ends late (here: stopped once the first row is out) keeps the rows before; no row shows a
// negative count. A way that does not exist is refused before anything is measured.
func TestRowsPrintedAsMeasured(t *testing.T) {
	cfg := config{Window: time.Second, RetryAfter: time.Second, Seed: 1}
	if err := runAll(t.Context(), io.Discard, cfg, "5", "poll,callbacks"); err == nil || !strings.Contains(err.Error(), `"callbacks"`) {
		t.Fatalf("runAll with a misspelt way = %v; want it refused", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out := &stopAfterRow{stop: cancel}
	if err := runAll(ctx, out, cfg, "5", "callback,poll"); err == nil {
		t.Fatal("runAll stopped after its first row returned no error")
	}
	text := out.String()
	if !regexp.MustCompile(`(?m)^ +callback +5 `).MatchString(text) {
		t.Errorf("the row measured before the run stopped is not printed:\n%s", text)
	}
	if strings.Contains(text, " -1 ") {
		t.Errorf("a row shows -1:\n%s", text)
	}
}

// stopAfterRow records what the run prints and calls stop once a row of waits is out.
type stopAfterRow struct {
	buf  bytes.Buffer
	stop func()
}

func (w *stopAfterRow) Write(p []byte) (int, error) {
	if regexp.MustCompile(`^ +[a-z0-9]+ +[0-9]+ `).Match(p) && !bytes.Contains(p, []byte("waits")) {
		w.stop()
	}
	return w.buf.Write(p)
}

func (w *stopAfterRow) String() string { return w.buf.String() }

// TestDropLines: the loaded server's harmless notes are dropped, every other line kept.
func TestDropLines(t *testing.T) {
	for _, tt := range []struct {
		line string
		kept bool
	}{
		{"2026/11/24 09:55:52 http2: timeout waiting for SETTINGS frames from 127.0.0.1:4242\n", false},
		{"2026/11/24 09:55:52 http: TLS handshake error from 127.0.0.1:42460: EOF\n", false},
		{"2026/11/24 09:55:52 http: TLS handshake error from 127.0.0.1:42460: read tcp 127.0.0.1:42425->127.0.0.1:42460: read: connection reset by peer\n", false},
		{"2026/11/24 09:58:25 http2: server: error reading preface from client 127.0.0.1:38756: read tcp 127.0.0.1:44785->127.0.0.1:38756: read: connection reset by peer\n", false},
		{"2026/11/24 09:55:52 http: TLS handshake error from 127.0.0.1:42460: tls: first record does not look like a TLS handshake\n", true},
		{"2026/11/24 09:55:52 http: panic serving 127.0.0.1:42460: boom\n", true},
	} {
		var w bytes.Buffer
		if n, err := (dropLines{w: &w}).Write([]byte(tt.line)); n != len(tt.line) || err != nil {
			t.Errorf("Write(%q) = %d, %v", tt.line, n, err)
		}
		if kept := w.Len() > 0; kept != tt.kept {
			t.Errorf("Write(%q) kept %v; want %v", tt.line, kept, tt.kept)
		}
	}
}
