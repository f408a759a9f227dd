package hitltest_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func create(t *testing.T, s *hitltest.Server, typ string) *hitl.Interrupt {
	t.Helper()
	resp, err := s.Client().Post(s.URL+"/actions/"+typ, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	it, err := hitl.Detect(resp, &hitl.DetectOptions{AllowPrivateAddresses: true})
	if err != nil || it == nil {
		t.Fatalf("Detect = %v, %v", it, err)
	}
	return it
}

// TestEveryTypeIsAValidCase: the fake's 202s pass the SDK's own detection, for every type.
func TestEveryTypeIsAValidCase(t *testing.T) {
	s := hitltest.NewServer(t)
	for _, typ := range []string{"approval", "selection", "input", "confirmation", "escalation", "x-acme"} {
		it := create(t, s, typ)
		if string(it.Case.Type) != typ || len(it.Warnings) != 0 || len(it.Case.Context) == 0 {
			t.Errorf("%s: %v, warnings %q", typ, it, it.Warnings)
		}
	}
	resp, err := s.Client().Post(s.URL+"/actions/comparison", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("unknown type: %d, want 400", resp.StatusCode)
	}
}

// TestReviewPage: the token authenticates, the first visit marks the case opened, a
// submission completes it, and a second submission is refused and the page shows the first.
func TestReviewPage(t *testing.T) {
	s := hitltest.NewServer(t)
	it := create(t, s, "approval")
	hc := s.Client()
	noToken := strings.Split(it.ReviewURL(), "?")[0] + "?token=wrong"
	for _, u := range []string{noToken, strings.Split(it.ReviewURL(), "?")[0]} {
		resp, err := hc.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("bad token: %d, want 401", resp.StatusCode)
		}
	}
	if st, _ := s.Case(it.ID()); st.State != "pending" {
		t.Fatalf("state %q before a visit", st.State)
	}
	page, err := hc.Get(it.ReviewURL())
	if err != nil {
		t.Fatal(err)
	}
	page.Body.Close()
	if st, _ := s.Case(it.ID()); st.State != "opened" {
		t.Errorf("state %q after a visit, want opened", st.State)
	}
	resp, err := hc.PostForm(it.ReviewURL(), url.Values{"action": {"reject"}, "feedback": {"no"}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "Answered: reject") || !strings.Contains(string(body), `&#34;feedback&#34;: &#34;no&#34;`) {
		t.Errorf("page after submit does not show the answer: %s", body)
	}
	resp, err = hc.PostForm(it.ReviewURL(), url.Values{"action": {"approve"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict {
		t.Errorf("second submission: %d, want 409", resp.StatusCode)
	}
	if err := s.Respond(it.ID(), "approve", nil, nil); !errors.Is(err, hitltest.ErrEnded) {
		t.Errorf("Respond after the end: %v", err)
	}
	if err := s.Open("review_missing"); !errors.Is(err, hitltest.ErrNotFound) {
		t.Errorf("unknown case: %v", err)
	}
}

// TestPollProtocol: ETag/304, Retry-After on waiting states only, 429 past the rate limit,
// expiry by the clock with the default action.
func TestPollProtocol(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t, hitltest.WithRetryAfter(7*time.Second), hitltest.WithRateLimit(3))
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/actions/approval", strings.NewReader(`{"timeout":"10m","default_action":"reject"}`))
		resp, err := s.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		it, err := hitl.Detect(resp, nil)
		resp.Body.Close()
		if err != nil || it == nil {
			t.Fatal(it, err)
		}
		get := func(etag string) (*http.Response, map[string]any) {
			req, _ := http.NewRequest(http.MethodGet, it.Case.PollURL, nil)
			if etag != "" {
				req.Header.Set("If-None-Match", etag)
			}
			resp, err := s.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&body)
			return resp, body
		}
		r1, b1 := get("")
		r2, _ := get(r1.Header.Get("ETag"))
		r3, _ := get("")
		r4, _ := get("")
		got := []any{r1.StatusCode, b1["status"], r1.Header.Get("Retry-After"), r2.StatusCode, r3.StatusCode, r4.StatusCode, r4.Header.Get("Retry-After")}
		want := []any{200, "pending", "7", 304, 200, 429, "60"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		<-time.After(10 * time.Minute) // virtual time: the case's lifetime passes
		r5, b5 := get(r1.Header.Get("ETag"))
		if r5.StatusCode != 200 || b5["status"] != "expired" || b5["default_action"] != "reject" || r5.Header.Get("Retry-After") != "" {
			t.Errorf("after expiry: %d %v Retry-After %q", r5.StatusCode, b5, r5.Header.Get("Retry-After"))
		}
	})
}

// TestEventStream: the stream replays the events after Last-Event-ID, sends new ones as they
// happen (the expiry by the clock included), and closes after the terminal one.
func TestEventStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t)
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/actions/approval", strings.NewReader(`{"timeout":"1m","default_action":"approve"}`))
		resp, err := s.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		it, err := hitl.Detect(resp, nil)
		resp.Body.Close()
		if err != nil || it.Case.EventsURL == "" {
			t.Fatalf("Detect = %v, %v", it, err)
		}
		_ = s.Open(it.ID())
		_ = s.Remind(it.ID(), "nudge")
		stream := func(lastID string) string {
			req, _ := http.NewRequest(http.MethodGet, it.Case.EventsURL, nil)
			if lastID != "" {
				req.Header.Set("Last-Event-ID", lastID)
			}
			resp, err := s.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Fatalf("Content-Type %q", ct)
			}
			b, _ := io.ReadAll(resp.Body) // ends when the server closes after the terminal event
			return string(b)
		}
		all := stream("") // blocks until the case expires at 1 min
		for _, want := range []string{"id: evt_1\nevent: review.opened\n", "id: evt_2\nevent: review.reminder\n",
			`"message":"nudge"`, "id: evt_3\nevent: review.expired\n", `"default_action":"approve"`} {
			if !strings.Contains(all, want) {
				t.Errorf("stream lacks %q:\n%s", want, all)
			}
		}
		if rest := stream("evt_2"); strings.Contains(rest, "evt_1") || strings.Contains(rest, "evt_2") || !strings.Contains(rest, "evt_3") {
			t.Errorf("resumed after evt_2:\n%s", rest)
		}
	})
}

// TestCallbackRetries: a callback answered 5xx is retried after 1 s, 5 s and 30 s (§9), and
// a 2xx or 4xx ends the retries.
func TestCallbackRetries(t *testing.T) {
	tests := []struct {
		name    string
		answers []int
		want    []time.Duration
	}{
		{"accepted", []int{200}, []time.Duration{0}},
		{"5xx then accepted", []int{503, 500, 200}, []time.Duration{0, time.Second, 6 * time.Second}},
		{"always 5xx", []int{500, 500, 500, 500, 500}, []time.Duration{0, time.Second, 6 * time.Second, 36 * time.Second}},
		{"refused", []int{401}, []time.Duration{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n := 0
				var sigs []string
				agent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					sigs = append(sigs, r.Header.Get("X-HITL-Signature"))
					w.WriteHeader(tt.answers[min(n, len(tt.answers)-1)])
					n++
				})
				s := hitltest.NewMemoryServer(t, hitltest.WithCallbackHandler(agent))
				req, _ := http.NewRequest(http.MethodPost, s.URL+"/actions/approval", strings.NewReader(`{"hitl_callback_url":"https://agent.test/cb"}`))
				resp, err := s.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				it, _ := hitl.Detect(resp, nil)
				resp.Body.Close()
				start := time.Now()
				if err := s.Respond(it.ID(), "approve", nil, nil); err != nil {
					t.Fatal(err)
				}
				<-time.After(time.Minute)
				var got []time.Duration
				for _, d := range s.Callbacks() {
					got = append(got, d.Time.Sub(start))
					if d.Event != "review.completed" || d.CaseID != it.ID() {
						t.Errorf("callback %+v", d)
					}
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("delivery times (-want +got):\n%s", diff)
				}
				if len(sigs) == 0 || !strings.HasPrefix(sigs[0], "sha256=") || len(sigs[0]) != len("sha256=")+64 {
					t.Errorf("signature header %q", sigs)
				}
			})
		})
	}
}

// TestCloseWhileCallbacksStart: responses racing with Close start their callback
// deliveries before Close began or not at all (the race detector checks the count Close
// waits on), and a response after Close starts none.
func TestCloseWhileCallbacksStart(t *testing.T) {
	for range 20 {
		synctest.Test(t, func(t *testing.T) {
			var delivered atomic.Int32
			agent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { delivered.Add(1) })
			s := hitltest.NewMemoryServer(t, hitltest.WithCallbackHandler(agent))
			ids := make([]string, 9)
			for i := range ids {
				resp, err := s.Client().Post(s.URL+"/actions/approval", "application/json", strings.NewReader(`{"hitl_callback_url":"https://agent.test/cb"}`))
				if err != nil {
					t.Fatal(err)
				}
				it, _ := hitl.Detect(resp, nil)
				resp.Body.Close()
				if it == nil {
					t.Fatal("no case created")
				}
				ids[i] = it.ID()
			}
			var responded sync.WaitGroup
			for _, id := range ids[1:] {
				responded.Go(func() { _ = s.Respond(id, "approve", nil, nil) })
			}
			s.Close()
			responded.Wait()
			synctest.Wait()
			n, recorded := delivered.Load(), len(s.Callbacks())
			if err := s.Respond(ids[0], "approve", nil, nil); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			if delivered.Load() != n || len(s.Callbacks()) != recorded {
				t.Errorf("a response after Close started a callback delivery")
			}
		})
	}
}

// TestHugeTimeoutRefusedUnread: a create request whose timeout is spelled in 300,000 digits
// is invalid_timeout (400) for about the work of a plain one: the duration is refused by its
// length before any parser reads it, where the ISO 8601 parser used before copied the number
// at each digit (300,000 allocations). Counted in allocations, not timed.
func TestHugeTimeoutRefusedUnread(t *testing.T) {
	s := hitltest.NewMemoryServer(t)
	post := func(timeout string) int {
		resp, err := s.Client().Post(s.URL+"/actions/approval", "application/json", strings.NewReader(`{"timeout":"`+timeout+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	huge := "P" + strings.Repeat("0", 300_000) + "D"
	if code := post(huge); code != http.StatusBadRequest {
		t.Fatalf("a 300,000-digit timeout: %d, want 400", code)
	}
	extra := testing.AllocsPerRun(1, func() { post(huge) }) - testing.AllocsPerRun(1, func() { post("P1D") })
	if extra > 1000 {
		t.Fatalf("a 300,000-digit timeout cost %v more allocations than P1D; want about the same work", extra)
	}
}
