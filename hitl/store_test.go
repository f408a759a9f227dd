package hitl_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/filestore"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/internal/kv"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/transport"
)

// TestStoreOutlivesTheProcess: against a file store and a memory one, an agent's waits are
// cut off (the process stops) with two cases open; the humans answer while it is down; a new
// client on the same store resumes both and delivers each Result once — a Result is deleted
// only after the handler returned nil, so a failing handler gets it again next time.
func TestStoreOutlivesTheProcess(t *testing.T) {
	file := func(t *testing.T) hitl.Store {
		s, err := filestore.Open(filepath.Join(t.TempDir(), "open.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	memory := func(*testing.T) hitl.Store { return &hitl.MemoryStore{} }
	for name, newStore := range map[string]func(*testing.T) hitl.Store{"file": file, "memory": memory} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := newStore(t)
				svc := hitltest.NewMemoryServer(t)
				client := func() *hitl.Client {
					c, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), hitl.WithStore(store),
						hitl.WithForwarder(hitl.WriteTo(io.Discard)))
					if err != nil {
						t.Fatal(err)
					}
					return c
				}
				first := client()
				ctx, stop := context.WithCancel(t.Context())
				for i := range 2 {
					go func() {
						req, _ := http.NewRequestWithContext(ctx, http.MethodPost, svc.URL+"/actions/approval", nil)
						labels := map[string]string{"ticket": fmt.Sprint("T-", i)} // the caller's own key, kept with the interrupt
						if resp, err := first.Do(ctx, req, &hitl.CallOptions{Labels: labels}); err == nil || resp == nil {
							t.Errorf("Do returned %v before the stop", err)
						}
					}()
				}
				ids := []string{svc.NextCase(nil), svc.NextCase(nil)}
				<-time.After(time.Minute)
				stop() // the process stops mid-wait
				synctest.Wait()
				open, err := store.List(t.Context())
				if err != nil || len(open) != 2 {
					t.Fatalf("store holds %d interrupts, %v; want the two open ones", len(open), err)
				}
				_ = svc.Respond(ids[0], "approve", nil, nil)
				_ = svc.Respond(ids[1], "reject", nil, nil)

				second := client()
				var calls atomic.Int32
				var tickets sync.Map
				failing := errors.New("downstream unavailable")
				err = second.Resume(t.Context(), func(_ context.Context, it *hitl.Interrupt, r *transport.Result) error {
					calls.Add(1)
					tickets.Store(it.Labels["ticket"], true)
					if r.Action == "reject" {
						return failing // kept for the next Resume
					}
					return nil
				}, nil)
				if !errors.Is(err, failing) || calls.Load() != 2 {
					t.Fatalf("Resume = %v after %d calls", err, calls.Load())
				}
				for _, ticket := range []string{"T-0", "T-1"} {
					if _, ok := tickets.Load(ticket); !ok {
						t.Errorf("no resumed interrupt carries label ticket=%s", ticket)
					}
				}
				left, _ := store.List(t.Context())
				if len(left) != 1 || left[0].ID() != ids[1] {
					t.Fatalf("store holds %v, want the case whose handler failed", left)
				}
				calls.Store(0)
				if err := second.Resume(t.Context(), func(_ context.Context, it *hitl.Interrupt, r *transport.Result) error {
					calls.Add(1)
					if r.Action != "reject" {
						t.Errorf("resumed %s with %s", it.ID(), r.Action)
					}
					return nil
				}, nil); err != nil || calls.Load() != 1 {
					t.Fatalf("second Resume = %v after %d calls", err, calls.Load())
				}
				if left, _ := store.List(t.Context()); len(left) != 0 {
					t.Errorf("store still holds %d", len(left))
				}
			})
		})
	}
	c, _ := hitl.NewClient()
	if err := c.Resume(t.Context(), func(context.Context, *hitl.Interrupt, *transport.Result) error { return nil }, nil); !errors.Is(err, hitl.ErrNoStore) {
		t.Errorf("Resume without a store = %v", err)
	}
}

// TestWaiters: a waiter added with WithWaiter wakes the wait, and a poll confirms its outcome
// (one that the service does not confirm does not end the wait); WaitOptions.Waiter replaces
// the built-in ways, its Result returned as is.
func TestWaiters(t *testing.T) {
	for _, tt := range []struct {
		name    string
		saysAt  time.Duration // when the waiter reports the decision
		decided time.Duration // when the service records it
		endAt   time.Duration
		polls   int32
	}{
		{"confirmed at once", 10 * time.Second, 5 * time.Second, 10 * time.Second, 1},
		{"too early: the poll says pending", 2 * time.Second, 5 * time.Second, 32 * time.Second, 2}, // the next poll: 30 s after that one
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				svc := &service{decideAt: time.Now().Add(tt.decided)}
				button := waitFunc(func(ctx context.Context, it *hitl.Interrupt) (*transport.Result, error) {
					select {
					case <-time.After(tt.saysAt):
						return &transport.Result{Status: transport.StatusCompleted, CaseID: it.ID(), Action: "approve"}, nil
					case <-ctx.Done():
						return nil, context.Cause(ctx)
					}
				})
				c, err := hitl.NewClient(transport.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: svc}}), hitl.WithWaiter(button))
				if err != nil {
					t.Fatal(err)
				}
				it := interrupt("review_c1", time.Hour)
				it.PollAfter = time.Now().Add(30 * time.Second)
				waitDecided(t, c, it, &hitl.WaitOptions{PollOnly: true}, svc, "approve", tt.polls, tt.endAt)
			})
		})
	}
	t.Run("replaced", func(t *testing.T) {
		c, _ := hitl.NewClient(transport.WithHTTPClient(failingClient(t)))
		own := waitFunc(func(_ context.Context, it *hitl.Interrupt) (*transport.Result, error) {
			return &transport.Result{Status: transport.StatusCompleted, CaseID: it.ID(), Action: "approve"}, nil
		})
		r, err := c.Wait(t.Context(), interrupt("review_c1", time.Hour), &hitl.WaitOptions{Waiter: own})
		if err != nil || r.Action != "approve" {
			t.Fatalf("Wait = %v, %v", r, err)
		}
	})
}

func failingClient(t *testing.T) *http.Client {
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
		return nil, errors.New("no request expected")
	})}
}

// BenchmarkStorePut measures keeping one open interrupt (a HITL case with its form) in each
// store: the time of a Put, committed to disk for the file store, and the file's bytes per
// interrupt kept; one Put at a time, and ("file-concurrent") 64 waits putting at once.
func BenchmarkStorePut(b *testing.B) {
	it := interrupt("review_c1", time.Hour)
	for _, name := range []string{"memory", "file", "file-concurrent"} {
		b.Run(name, func(b *testing.B) {
			var store hitl.Store = &hitl.MemoryStore{}
			path := filepath.Join(b.TempDir(), "open.db")
			if name != "memory" {
				fs, err := filestore.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				defer fs.Close()
				store = fs
			}
			var count atomic.Int64
			put := func() {
				cp := *it
				cs := *it.Case
				cs.CaseID = fmt.Sprintf("review_%d", count.Add(1))
				cp.Case = &cs
				if err := store.Put(context.Background(), &cp); err != nil {
					b.Error(err)
				}
			}
			if name == "file-concurrent" {
				b.SetParallelism(32) // 64 goroutines on 2 cores
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						put()
					}
				})
			} else {
				for b.Loop() {
					put()
				}
			}
			if n := count.Load(); name != "memory" {
				if st, err := os.Stat(path); err == nil && n > 0 {
					b.ReportMetric(float64(st.Size())/float64(n), "file-bytes/interrupt")
				}
			}
		})
	}
}

// fileStoreHolding opens a new file store whose records are raw, written as they are.
func fileStoreHolding(t *testing.T, raw map[hitl.StoreKey][]byte) (hitl.Store, func()) {
	path := filepath.Join(t.TempDir(), "open.db")
	db, err := kv.Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for k, b := range raw {
		if err := db.Put([]byte(k.Origin+"\n"+k.ID), b); err != nil {
			t.Fatal(err)
		}
	}
	_ = db.Close()
	s, err := filestore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return s, func() { _ = s.Close() }
}

// TestResumeOneBadRecord: a store holding three good interrupts and one record another
// version could have written: List returns the three and a *RecordError naming the fourth;
// Resume waits on the three, delivers each, reports the fourth (its key and why) and leaves
// it in the store.
func TestResumeOneBadRecord(t *testing.T) {
	bad := hitl.StoreKey{Origin: "https://svc.example:443", ID: "review_from_elsewhere"}
	raw := []byte(`{"kind":2,"case":{"case_id":"review_from_elsewhere"}}`)
	stores := map[string]func(t *testing.T) (hitl.Store, func()){
		"memory": func(*testing.T) (hitl.Store, func()) {
			s := &hitl.MemoryStore{}
			s.PutRawForTest(bad, raw)
			return s, func() {}
		},
		"file": func(t *testing.T) (hitl.Store, func()) {
			return fileStoreHolding(t, map[hitl.StoreKey][]byte{bad: raw})
		},
	}
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store, done := newStore(t)
				defer done()
				svc := hitltest.NewMemoryServer(t)
				c, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), hitl.WithStore(store), hitl.WithForwarder(hitl.WriteTo(io.Discard)))
				if err != nil {
					t.Fatal(err)
				}
				for range 3 {
					req, _ := http.NewRequest(http.MethodPost, svc.URL+"/actions/approval", nil)
					it := detect(t, c, req)
					if err := store.Put(t.Context(), it); err != nil {
						t.Fatal(err)
					}
					_ = svc.Respond(it.ID(), "approve", nil, nil)
				}
				var rec *hitl.RecordError
				if open, err := store.List(t.Context()); len(open) != 3 || !errors.As(err, &rec) || rec.Key != bad {
					t.Fatalf("List = %d interrupts, %v; want 3 and the bad record's key", len(open), err)
				}
				var handled atomic.Int32
				err = c.Resume(t.Context(), func(_ context.Context, it *hitl.Interrupt, r *transport.Result) error {
					handled.Add(1)
					return nil
				}, nil)
				if handled.Load() != 3 || !errors.As(err, &rec) || rec.Key != bad {
					t.Fatalf("Resume handled %d, returned %v; want 3 and the bad record reported", handled.Load(), err)
				}
				if open, err := store.List(t.Context()); len(open) != 0 || !errors.As(err, &rec) {
					t.Errorf("after Resume the store lists %d, %v; want only the bad record, kept", len(open), err)
				}
			})
		})
	}
}

// recordKeys returns the key of every *RecordError err holds, joined errors included.
func recordKeys(err error) []hitl.StoreKey {
	var keys []hitl.StoreKey
	switch e := err.(type) {
	case *hitl.RecordError:
		keys = append(keys, e.Key)
	case interface{ Unwrap() []error }:
		for _, inner := range e.Unwrap() {
			keys = append(keys, recordKeys(inner)...)
		}
	case interface{ Unwrap() error }:
		keys = append(keys, recordKeys(e.Unwrap())...)
	}
	return keys
}

// TestResumeRecordsOfALaterVersion: records a later version could write that are JSON this
// version reads — a kind it does not know, with a case, and one with neither case nor task —
// stop no wait: Resume waits on the good interrupt, reports each of the others as a
// *RecordError under the key it is stored under, and leaves them in the store.
func TestResumeRecordsOfALaterVersion(t *testing.T) {
	later := map[hitl.StoreKey][]byte{
		{Origin: "https://svc.example:443", ID: "review_next"}: []byte(`{"kind":"hitl-next","origin":"https://svc.example:443","case":{"case_id":"review_next","poll_url":"https://svc.example/reviews/review_next/status"}}`),
		{Origin: "https://svc.example:443", ID: "hxp_1"}:       []byte(`{"kind":"hxp","origin":"https://svc.example:443","request":{"request_id":"hxp_1"}}`),
	}
	stores := map[string]func(t *testing.T) (hitl.Store, func()){
		"memory": func(*testing.T) (hitl.Store, func()) {
			s := &hitl.MemoryStore{}
			for k, b := range later {
				s.PutRawForTest(k, b)
			}
			return s, func() {}
		},
		"file": func(t *testing.T) (hitl.Store, func()) {
			return fileStoreHolding(t, later)
		},
	}
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store, done := newStore(t)
				defer done()
				svc := hitltest.NewMemoryServer(t)
				c, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), hitl.WithStore(store), hitl.WithForwarder(hitl.WriteTo(io.Discard)))
				if err != nil {
					t.Fatal(err)
				}
				req, _ := http.NewRequest(http.MethodPost, svc.URL+"/actions/approval", nil)
				it := detect(t, c, req)
				if err := store.Put(t.Context(), it); err != nil {
					t.Fatal(err)
				}
				_ = svc.Respond(it.ID(), "approve", nil, nil)
				var handled atomic.Int32
				err = c.Resume(t.Context(), func(_ context.Context, got *hitl.Interrupt, r *transport.Result) error {
					if got.ID() != it.ID() {
						t.Errorf("handled %s", got.ID())
					}
					handled.Add(1)
					return nil
				}, nil)
				reported := map[hitl.StoreKey]bool{}
				for _, k := range recordKeys(err) {
					reported[k] = true
				}
				for k := range later {
					if !reported[k] {
						t.Errorf("Resume = %v; the record under %v is not reported as a *RecordError with its key", err, k)
					}
				}
				if handled.Load() != 1 {
					t.Errorf("Resume handled %d interrupts, want the good one", handled.Load())
				}
				open, err := store.List(t.Context())
				left := len(open) + len(recordKeys(err))
				if left != len(later) {
					t.Errorf("after Resume the store holds %d records (%d listed, %v), want the %d it could not resume, kept", left, len(open), err, len(later))
				}
			})
		})
	}
}
