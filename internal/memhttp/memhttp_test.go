package memhttp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"
)

// TestStreaming: the response arrives before the handler returns, lines are read as they are
// written, and closing the body ends the handler.
func TestStreaming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ended := make(chan struct{})
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer close(ended)
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			for i := 0; ; i++ {
				if _, err := io.WriteString(w, "data: tick\n"); err != nil {
					return
				}
				select {
				case <-r.Context().Done():
					return
				case <-time.After(time.Second):
				}
			}
		})
		c := &http.Client{Transport: &Transport{Handler: h}}
		resp, err := c.Get("https://mem.test/events")
		if err != nil {
			t.Fatal(err)
		}
		if resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Errorf("header %v", resp.Header)
		}
		sc := bufio.NewScanner(resp.Body)
		for range 3 {
			if !sc.Scan() || sc.Text() != "data: tick" {
				t.Fatalf("line %q, %v", sc.Text(), sc.Err())
			}
		}
		resp.Body.Close()
		<-ended
	})
}

// TestCancelBeforeHeaders: a handler that never answers is abandoned when the caller's
// context ends.
func TestCancelBeforeHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://mem.test/stall", nil)
		if _, err := (&http.Client{Transport: &Transport{Handler: h}}).Do(req); err == nil {
			t.Fatal("want a timeout")
		}
		synctest.Wait()
	})
}

// TestAbortResetsTheBody: a handler that aborts mid-body (http.ErrAbortHandler) makes the
// body read fail with ErrConnectionReset after the bytes already written.
func TestAbortResetsTheBody(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"status":"pend`)
		panic(http.ErrAbortHandler)
	})
	resp, err := (&http.Client{Transport: &Transport{Handler: h}}).Get("https://x.test/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if !errors.Is(err, ErrConnectionReset) || string(b) != `{"status":"pend` {
		t.Errorf("ReadAll = %q, %v", b, err)
	}
}
