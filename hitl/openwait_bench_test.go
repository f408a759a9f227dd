package hitl_test

import (
	"context"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/transport"
)

// BenchmarkOpenWait measures what one open wait holds between two polls, to decide whether a
// shared scheduler (one timer heap for many waits) is worth building: b.N waits on cases that
// stay pending (Retry-After: 1 h), served in memory (no sockets), and, once each has polled,
// the heap, goroutine stack and goroutines they added, per wait. Beside it: a goroutine parked
// on its own timer, and a timer alone — the least a shared scheduler would keep per wait.
// Run it with -benchtime 10000x.
func BenchmarkOpenWait(b *testing.B) {
	b.Run("wait", func(b *testing.B) {
		var polls atomic.Int64
		svc := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			polls.Add(1)
			w.Header().Set("Retry-After", "3600")
			_, _ = w.Write([]byte(`{"status":"pending","case_id":"` + r.PathValue("id") + `"}`))
		})
		mux := http.NewServeMux()
		mux.Handle("GET /reviews/{id}/status", svc)
		c, err := hitl.NewClient(transport.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: mux}}))
		if err != nil {
			b.Fatal(err)
		}
		its := make([]*hitl.Interrupt, b.N)
		for i := range its {
			its[i] = interrupt("review_"+strconv.Itoa(i), 24*time.Hour)
		}
		perWait(b, func(ctx context.Context, wg *sync.WaitGroup) {
			for _, it := range its {
				wg.Go(func() { _, _ = c.Wait(ctx, it, nil) })
			}
			for polls.Load() < int64(b.N) {
				runtime.Gosched()
			}
		})
	})
	b.Run("goroutine+timer", func(b *testing.B) {
		var parked atomic.Int64
		perWait(b, func(ctx context.Context, wg *sync.WaitGroup) {
			for range b.N {
				wg.Go(func() {
					t := time.NewTimer(time.Hour)
					defer t.Stop()
					parked.Add(1)
					select {
					case <-t.C:
					case <-ctx.Done():
					}
				})
			}
			for parked.Load() < int64(b.N) {
				runtime.Gosched()
			}
		})
	})
	b.Run("timer", func(b *testing.B) {
		perWait(b, func(ctx context.Context, _ *sync.WaitGroup) {
			timers := make([]*time.Timer, b.N)
			for i := range timers {
				timers[i] = time.AfterFunc(time.Hour, func() {})
			}
			context.AfterFunc(ctx, func() {
				for _, t := range timers {
					t.Stop()
				}
			})
		})
	})
}

// perWait runs start, which opens b.N waits under ctx (goroutines in wg), and reports the
// heap, stack and goroutines they hold, per wait; then it ends them and waits for them.
func perWait(b *testing.B, start func(ctx context.Context, wg *sync.WaitGroup)) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	before := memory()
	b.ResetTimer()
	start(ctx, &wg)
	b.StopTimer()
	after := memory()
	cancel()
	wg.Wait()
	n := float64(b.N)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/n, "heap-B/wait")
	b.ReportMetric(float64(int64(after.StackInuse)-int64(before.StackInuse))/n, "stack-B/wait")
	b.ReportMetric(float64(after.goroutines-before.goroutines)/n, "goroutines/wait")
}

type mem struct {
	runtime.MemStats
	goroutines int
}

func memory() mem {
	for range 4 {
		runtime.GC() // each collection may halve a parked goroutine's stack
	}
	var m mem
	runtime.ReadMemStats(&m.MemStats)
	m.goroutines = runtime.NumGoroutine()
	return m
}
