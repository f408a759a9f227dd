package main

import (
	"bytes"
	"os"
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
