package hitl_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

var (
	soakWaits  = flag.Int("soak.waits", 60, "concurrent waits per transport in TestSoak")
	soakWindow = flag.Duration("soak.window", 2*time.Hour, "virtual time over which TestSoak's cases are decided")
	soakSeed   = flag.Uint64("soak.seed", 1, "seed of TestSoak's faults and decision times")
)

// TestSoak runs many waits at once over every transport — polling, event streams, callbacks
// — against one fake service that injects faults at random (a fixed seed): 5xx bursts, 429s
// with both Retry-After forms, malformed and stalled polls, streams dropped mid-event or
// never closing or refused, duplicated and forged callbacks. Each case is decided at a random
// time within the window (some expire, some are cancelled). At the end every wait has
// returned exactly once with what the service recorded, no goroutine is left (synctest), and
// the heap is back near where it began.
//
//	go test -run TestSoak -soak.waits 2000 -soak.window 24h ./hitl/   # a long run
func TestSoak(t *testing.T) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	synctest.Test(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(*soakSeed, 0x5eed))
		cb := newCallbacks(t)
		s := hitltest.NewMemoryServer(t, hitltest.WithRetryAfter(20*time.Second), hitltest.WithCallbackHandler(cb),
			hitltest.WithCaseLifetime(*soakWindow*3/4))
		c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()), hitl.WithCallbacks(cb))

		type wait struct {
			it     *hitl.Interrupt
			way    string
			result *transport.Result
			err    error
			calls  int
		}
		pollFaults := []hitltest.Fault{hitltest.Fault503, hitltest.Fault500, hitltest.Fault429, hitltest.Fault429Date, hitltest.FaultTruncated, hitltest.FaultStall}
		streamFaults := []hitltest.StreamFault{hitltest.StreamDropMidEvent, hitltest.StreamNeverClose, hitltest.Stream503, hitltest.StreamHeartbeatsOnly}
		types := []string{"approval", "selection", "input", "confirmation", "escalation"}
		var waits []*wait
		for _, way := range []string{"poll", "sse", "callback"} {
			for i := range *soakWaits {
				o := &hitl.CallOptions{}
				if way == "callback" {
					o.CallbackURL = agentCallbackURL
				}
				it := open(t, s, c, types[i%len(types)], o)
				if rng.IntN(3) > 0 {
					s.FailNext(it.ID(), pollFaults[rng.IntN(len(pollFaults))], 1+rng.IntN(4))
				}
				switch {
				case way == "sse" && rng.IntN(2) == 0:
					s.FailStream(it.ID(), streamFaults[rng.IntN(len(streamFaults))], 1+rng.IntN(2))
				case way == "callback" && rng.IntN(2) == 0:
					s.FailCallback(it.ID(), hitltest.CallbackFault(1+rng.IntN(2)), 1)
				}
				waits = append(waits, &wait{it: it, way: way})
			}
		}

		// The people: most answer, some cancel; a tenth never do and their cases expire.
		var people sync.WaitGroup
		for _, w := range waits {
			at := time.Duration(rng.Int64N(int64(*soakWindow / 2)))
			roll := rng.IntN(10)
			people.Go(func() {
				<-time.After(at)
				id := w.it.ID()
				switch {
				case roll == 0: // expires
				case roll == 1:
					_ = s.Cancel(id, "no longer needed")
				default:
					action := map[hitl.ReviewType]string{hitl.TypeApproval: "approve", hitl.TypeSelection: "select", hitl.TypeInput: "submit",
						hitl.TypeConfirmation: "confirm", hitl.TypeEscalation: "retry"}[w.it.Case.Type]
					_ = s.Respond(id, action, map[string]any{"by": id}, nil)
				}
			})
		}

		var agents sync.WaitGroup
		for _, w := range waits {
			agents.Go(func() {
				w.calls++
				w.result, w.err = c.Wait(t.Context(), w.it, &hitl.WaitOptions{PollOnly: w.way == "poll", NoReminders: true})
			})
		}
		agents.Wait()
		people.Wait()

		counts := map[string]int{}
		for _, w := range waits {
			st, _ := s.Case(w.it.ID())
			if w.err != nil || w.calls != 1 {
				t.Errorf("%s %s: %v after %d calls", w.way, w.it.ID(), w.err, w.calls)
				continue
			}
			r := w.result
			if string(r.Status) != st.State || r.Action != st.Action || r.CaseID != w.it.ID() {
				t.Errorf("%s %s: got %s/%s, the service recorded %s/%s", w.way, w.it.ID(), r.Status, r.Action, st.State, st.Action)
			}
			if r.Status == transport.StatusCompleted && (string(r.Data) != fmt.Sprintf(`{"by":%q}`, w.it.ID()) || string(r.Data) != string(st.Data)) {
				t.Errorf("%s %s: data %s", w.way, w.it.ID(), r.Data)
			}
			counts[w.way+" "+string(r.Status)]++
		}
		t.Logf("outcomes: %v", counts)
	})

	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 4<<20 {
		t.Errorf("heap grew by %d KiB over the soak", grown>>10)
	}
}
