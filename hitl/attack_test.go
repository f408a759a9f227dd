package hitl_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/internal/flood"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/transport"
)

// TestRedirectedCallGetsNoCredentials: the agent calls A with its key; A redirects (307) to
// B, which answers the 202. The credential belongs to A: Do's polls on B carry none, though
// the call's own Authorization header is what Do would otherwise reuse.
func TestRedirectedCallGetsNoCredentials(t *testing.T) {
	body := with(func(h map[string]any) {
		h["poll_url"] = "https://b.example/reviews/abc123/status"
		h["created_at"], h["expires_at"] = "2000-01-01T00:00:00Z", "2000-01-02T00:00:00Z"
	})
	synctest.Test(t, func(t *testing.T) {
		a := &script{replies: []reply{{http.StatusTemporaryRedirect, map[string]string{"Location": "https://b.example/v1/search"}, ""}}}
		b := &script{replies: []reply{
			{http.StatusAccepted, map[string]string{"Content-Type": "application/json"}, body},
			ok(strings.ReplaceAll(completedApprove, "review_c1", "review_abc123")),
		}}
		c := newClient(t, hostRouter{"api.svc.example": a, "b.example": b}, hitl.WithForwarder(hitl.WriteTo(io.Discard)))
		resp, err := c.Do(t.Context(), post(t, "https://api.svc.example/v1/search", "Bearer agent-key"), nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.Result == nil || resp.Result.Action != "approve" {
			t.Fatalf("result %v", resp.Result)
		}
		if got := resp.Interrupt.Origin; got != "https://api.svc.example:443" {
			t.Errorf("Origin = %q, want the origin the caller called", got)
		}
		reqs, _ := b.requests()
		if len(reqs) < 2 {
			t.Fatalf("B saw %d requests, want the call and a poll", len(reqs))
		}
		for i, r := range reqs {
			if v := r.Header.Get("Authorization"); v != "" {
				t.Errorf("request %d to B (%s %s) carried Authorization %q", i, r.Method, r.URL.Path, v)
			}
		}
	})
}

// TestRedirectedA2ACallGetsNoCredentials: the same attack on an A2A agent: the call to A is
// redirected to the agent at B, whose task asks a question; the resume and tasks/get on B
// carry no credential.
func TestRedirectedA2ACallGetsNoCredentials(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewMemoryAgent(t)
		ep := agent.Endpoint(a2a.JSONRPC10)
		rec := &authRecorder{next: agent.Client().Transport}
		rt := roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if req.URL.Host == "a.example" {
				return &http.Response{StatusCode: http.StatusTemporaryRedirect, Header: http.Header{"Location": {ep.URL}},
					Body: http.NoBody, Request: req}, nil
			}
			return rec.RoundTrip(req)
		})
		c := newClient(t, rt, hitl.WithForwarder(hitl.WriteTo(io.Discard)))
		req, _ := http.NewRequest(http.MethodPost, "https://a.example/rpc",
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"clean up"}]}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		req.Header.Set("Authorization", "Bearer agent-key")
		resp, err := c.Do(t.Context(), req, &hitl.CallOptions{Wait: &hitl.WaitOptions{
			Ask: func(context.Context, *a2a.Pause) (a2a.Answer, error) { return a2a.HectorDecision(true), nil }}})
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.Result == nil || resp.Result.Status != transport.StatusCompleted {
			t.Fatalf("result %v", resp.Result)
		}
		if got := resp.Interrupt.Origin; got != "https://a.example:443" {
			t.Errorf("Origin = %q", got)
		}
		if n, leaked := rec.counts(); n < 2 || leaked != 0 {
			t.Errorf("agent saw %d requests, %d with Authorization", n, leaked)
		}
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// authRecorder counts the requests passed on to next, and those that carried Authorization.
type authRecorder struct {
	next        http.RoundTripper
	mu          sync.Mutex
	n, withAuth int
}

func (r *authRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.n++
	if req.Header.Get("Authorization") != "" {
		r.withAuth++
	}
	r.mu.Unlock()
	return r.next.RoundTrip(req)
}

func (r *authRecorder) counts() (int, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n, r.withAuth
}

// TestCallbacksFlood: 1,000 connections reach the callback receiver at once. Each either
// declares 1 MiB and sends all but a byte, or declares 32 KiB, sends half and stalls. The
// receiver reads at most 64 KiB of each, a few at a time, cuts the stalled ones at its read
// deadline, and the extra heap stays under 64 MiB.
func TestCallbacksFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 loopback connections")
	}
	for _, a := range []flood.Attack{
		{Conns: 1000, Declared: 1 << 20, Sent: 1<<20 - 1},
		{Conns: 1000, Declared: 32 << 10, Sent: 16 << 10},
	} {
		t.Run(fmt.Sprintf("declared %d sent %d", a.Declared, a.Sent), func(t *testing.T) {
			cb, err := hitl.NewCallbacks([]byte("callback-secret"), &hitl.CallbacksOptions{ReadTimeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			r := flood.Run(t, cb, a, 10*time.Second)
			t.Logf("statuses %v, at most %d handlers at once, extra heap %.1f MiB, last handler freed %v after the last byte",
				r.Statuses, r.PeakHandlers, float64(r.ExtraHeap)/(1<<20), r.Freed.Round(time.Millisecond))
			if r.ExtraHeap >= 64<<20 {
				t.Errorf("extra heap %d bytes, want under 64 MiB", r.ExtraHeap)
			}
			if n := r.Statuses[http.StatusOK]; n != 0 {
				t.Errorf("%d unsigned bodies accepted", n)
			}
			// 0: the connection was reset after the refusal, before the answer was read (the
			// kernel resets a socket closed with unread data).
			refused := r.Statuses[http.StatusServiceUnavailable] + r.Statuses[http.StatusRequestEntityTooLarge] +
				r.Statuses[http.StatusBadRequest] + r.Statuses[0]
			if refused != a.Conns {
				t.Errorf("statuses %v: want every connection refused with 400, 413 or 503", r.Statuses)
			}
		})
	}
}

// TestDoTrickledAnswer: a service answers 202 and then trickles its body, a byte now and
// then, or stops mid-body. Do reads the body under its read deadline and fails with
// ErrBodyTimeout instead of hanging, whatever the caller's context, both in memory (virtual
// time, the 30 s default) and over a real loopback connection (a short deadline).
func TestDoTrickledAnswer(t *testing.T) {
	stall := func(trickle bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusAccepted)
			_, _ = io.WriteString(w, `{"status":"human_input_required","hitl":{`)
			w.(http.Flusher).Flush()
			tick := time.NewTicker(5 * time.Second)
			defer tick.Stop()
			for {
				select {
				case <-r.Context().Done():
					return
				case <-tick.C:
					if trickle {
						_, _ = io.WriteString(w, " ")
						w.(http.Flusher).Flush()
					}
				}
			}
		}
	}
	for _, trickle := range []bool{false, true} {
		t.Run(fmt.Sprintf("in memory, trickle %v", trickle), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := newClient(t, &memhttp.Transport{Handler: stall(trickle)}, hitl.WithForwarder(hitl.WriteTo(io.Discard)))
				began := time.Now()
				resp, err := c.Do(t.Context(), post(t, "https://api.svc.example/v1/search", ""), nil)
				if !errors.Is(err, hitl.ErrBodyTimeout) {
					t.Fatalf("Do = %v, want ErrBodyTimeout", err)
				}
				if d := time.Since(began); d != hitl.DefaultReadTimeout {
					t.Errorf("gave up after %v, want %v", d, hitl.DefaultReadTimeout)
				}
				if resp != nil {
					_ = resp.Body.Close()
				}
			})
		})
	}
	t.Run("loopback", func(t *testing.T) {
		srv := httptest.NewServer(stall(true))
		defer srv.Close()
		c, err := hitl.NewClient(transport.WithHTTPClient(srv.Client()), hitl.WithForwarder(hitl.WriteTo(io.Discard)),
			hitl.WithReadTimeout(200*time.Millisecond), transport.WithAllowPrivateAddresses())
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		resp, err := c.Do(ctx, post(t, srv.URL, ""), nil)
		if !errors.Is(err, hitl.ErrBodyTimeout) {
			t.Fatalf("Do = %v, want ErrBodyTimeout", err)
		}
		if resp != nil {
			_ = resp.Body.Close()
		}
	})
}

// TestPrivateHostSpellings: every spelling of a loopback or private host a resolver accepts is
// refused by the early check, before anything is dialled.
func TestPrivateHostSpellings(t *testing.T) {
	for _, host := range []string{"2130706433", "0x7f.1", "127.1", "0177.0.0.1", "0x7f000001", "localhost.", "a.localhost.",
		"LOCALHOST", "[::ffff:127.0.0.1]", "[::ffff:a9fe:a9fe]", "0.0.0.0", "0", "100.64.0.1", "012.0.0.1",
		"[64:ff9b::a00:1]", "[64:ff9b::a9fe:a9fe]", "[64:ff9b:1:ffff::7f00:1]", "[::ffff:0:a00:1]"} {
		t.Run(host, func(t *testing.T) {
			body := with(func(h map[string]any) { h["poll_url"] = "https://" + host + "/reviews/abc123/status" })
			_, err := hitl.Detect(response202(t, "https://api.svc.example/v1/search", body), nil)
			var ie *hitl.InvalidError
			if !errors.As(err, &ie) || len(ie.Problems) != 1 || ie.Problems[0].Field != "poll_url" {
				t.Fatalf("Detect = %v, want poll_url refused", err)
			}
		})
	}
	for _, host := range []string{"1.2.3.4", "api.example.com", "8.8.8.8", "0x7f.example", "127.example", "[64:ff9b::808:808]"} {
		body := with(func(h map[string]any) { h["poll_url"] = "https://" + host + "/reviews/abc123/status" })
		if _, err := hitl.Detect(response202(t, "https://api.svc.example/v1/search", body), nil); err != nil {
			t.Errorf("%s: Detect = %v, want accepted", host, err)
		}
	}
}

// TestSubmitErrorEchoesNoSecret: a submit endpoint that echoes the submit token and the
// review token in its error code and message gets neither into the SubmitError.
func TestSubmitErrorEchoesNoSecret(t *testing.T) {
	it := flowInterrupt(t, loadSteps(t, "09-inline-confirmation.json"))
	review, _ := url.Parse(it.ReviewURL())
	reviewToken := review.Query().Get("token")
	submitToken := it.Case.SubmitToken
	if reviewToken == "" || submitToken == "" {
		t.Fatal("the flow has no tokens to echo")
	}
	body := `{"error":"bad ` + submitToken + `","message":"token ` + reviewToken + ` or ` + submitToken + strings.Repeat(" pad", 5000) + `"}`
	c := newClient(t, &script{replies: []reply{{status: 403, body: body}}})
	_, err := c.SubmitInline(t.Context(), it, hitl.InlineAnswer{Action: "confirm", Via: hitl.ViaSlack,
		By: hitl.Submitter{Platform: "slack", PlatformUserID: "U1"}})
	var se *hitl.SubmitError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v", err)
	}
	all := err.Error() + se.Code + se.Message
	for _, secret := range []string{submitToken, reviewToken} {
		if strings.Contains(all, secret) {
			t.Errorf("secret %.6s… is in the error", secret)
		}
	}
	if len(se.Message) > 210 || len(se.Code) > 70 {
		t.Errorf("code of %d and message of %d bytes", len(se.Code), len(se.Message))
	}
}

// TestButtonsOfTwoServices: two services that use the same case_id get different button
// handles, and each button resolves to its own service's interrupt.
func TestButtonsOfTwoServices(t *testing.T) {
	a := flowInterrupt(t, loadSteps(t, "09-inline-confirmation.json"))
	b := *a
	bc := *a.Case
	bc.SubmitURL = strings.Replace(bc.SubmitURL, "https://", "https://other.", 1)
	b.Case, b.Origin = &bc, "https://other.example:443"
	var table hitl.ButtonTable
	ba, bb := table.Buttons(a), table.Buttons(&b)
	if len(ba) == 0 || len(bb) == 0 || ba[0].Data == bb[0].Data {
		t.Fatalf("buttons %v and %v", ba, bb)
	}
	if got, _, ok := table.Lookup(ba[0].Data); !ok || got != a {
		t.Errorf("first service's button resolves to %v", got)
	}
	if got, _, ok := table.Lookup(bb[0].Data); !ok || got != &b {
		t.Errorf("second service's button resolves to %v", got)
	}
}

// bigForm returns a form of n multiselect fields of k options each, the field i shown when
// field i-1 is set ("chain" of conditions) when chained is true.
func bigForm(n, k int, chained bool) []byte {
	var fields []map[string]any
	for i := range n {
		var opts []map[string]any
		for j := range k {
			opts = append(opts, map[string]any{"value": fmt.Sprintf("o%d", j), "label": "x"})
		}
		fd := map[string]any{"key": fmt.Sprintf("f%d", i), "label": "x", "type": "multiselect", "options": opts}
		if chained && i > 0 {
			fd["conditional"] = map[string]any{"field": fmt.Sprintf("f%d", i-1), "operator": "neq", "value": nil}
		}
		fields = append(fields, fd)
	}
	b, _ := json.Marshal(map[string]any{"fields": fields})
	return b
}

// TestFormLimits: a form over a size limit, or whose conditions chain too deep or in a
// cycle, is refused at parse time with an error matching ErrFormTooLarge and ErrInvalid.
func TestFormLimits(t *testing.T) {
	cycle := []byte(`{"fields":[
		{"key":"a","label":"A","type":"text","conditional":{"field":"b","operator":"eq","value":"x"}},
		{"key":"b","label":"B","type":"text","conditional":{"field":"a","operator":"eq","value":"x"}}]}`)
	longPattern := []byte(`{"fields":[{"key":"a","label":"A","type":"text","validation":{"pattern":"` + strings.Repeat("a", hitl.MaxPatternLength+1) + `"}}]}`)
	for name, form := range map[string][]byte{
		"too many fields":      bigForm(hitl.MaxFormFields+1, 1, false),
		"too many options":     bigForm(1, hitl.MaxFieldOptions+1, false),
		"conditions too deep":  bigForm(hitl.MaxConditionDepth+2, 1, true),
		"conditions in a loop": cycle,
		"pattern too long":     longPattern,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := hitl.ParseForm(form)
			var ie *hitl.InvalidError
			if !errors.Is(err, hitl.ErrFormTooLarge) || !errors.Is(err, hitl.ErrInvalid) || !errors.As(err, &ie) {
				t.Fatalf("ParseForm = %v, want ErrFormTooLarge", err)
			}
		})
	}
	for name, form := range map[string][]byte{
		"fields at the limit":     bigForm(hitl.MaxFormFields, 1, false),
		"options at the limit":    bigForm(1, hitl.MaxFieldOptions, false),
		"conditions at the limit": bigForm(hitl.MaxConditionDepth+1, 1, true),
	} {
		if _, err := hitl.ParseForm(form); err != nil {
			t.Errorf("%s: ParseForm = %v", name, err)
		}
	}
}

// TestFormCheckBounded: a submission of a million values for a multiselect of a thousand
// options is refused without comparing each value with each option; a thousand valid values
// pass; a cancelled context stops Check.
func TestFormCheckBounded(t *testing.T) {
	f, err := hitl.ParseForm(bigForm(1, hitl.MaxFieldOptions, false))
	if err != nil {
		t.Fatal(err)
	}
	values := make([]string, 1_000_000)
	for i := range values {
		values[i] = "o1"
	}
	data, _ := json.Marshal(map[string]any{"f0": values})
	var ie *hitl.InvalidError
	if err := f.Check(t.Context(), data); !errors.As(err, &ie) || ie.Problems[0].Problem != "has more values than there are options" {
		t.Errorf("Check of a million values = %v", err)
	}
	data, _ = json.Marshal(map[string]any{"f0": values[:hitl.MaxFieldOptions]})
	if err := f.Check(t.Context(), data); err != nil {
		t.Errorf("Check of %d values = %v", hitl.MaxFieldOptions, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := f.Check(ctx, data); !errors.Is(err, context.Canceled) {
		t.Errorf("Check on a cancelled context = %v", err)
	}
}

// conditionalForm is a form of n text fields: f0, and n-1 fields each shown while f0 is not
// "hide"; and an answer of about size bytes, nearly all of it f0's value (with escapes, as a
// person's pasted text has), every other field answered.
func conditionalForm(t testing.TB, n, size int) (*hitl.Form, []byte) {
	fields := []map[string]any{{"key": "f0", "label": "x", "type": "textarea"}}
	data := map[string]any{}
	for i := 1; i < n; i++ {
		fields = append(fields, map[string]any{"key": fmt.Sprintf("f%d", i), "label": "x", "type": "text", "required": true,
			"conditional": map[string]any{"field": "f0", "operator": "neq", "value": "hide"}})
		data[fmt.Sprintf("f%d", i)] = "ok"
	}
	form, _ := json.Marshal(map[string]any{"fields": fields})
	f, err := hitl.ParseForm(form)
	if err != nil {
		t.Fatal(err)
	}
	data["f0"] = strings.Repeat("line \"quoted\" é\n", size/20)
	b, _ := json.Marshal(data)
	return f, b
}

// TestFormCheckConditionsLinear: 499 fields conditioned on one field whose value is 1 MiB:
// Check decodes that value once, not once per condition — it allocates a few times the
// answer's size, not 499 times.
func TestFormCheckConditionsLinear(t *testing.T) {
	f, data := conditionalForm(t, hitl.MaxFormFields, 1<<20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := f.Check(t.Context(), data)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*uint64(len(data)) {
		t.Errorf("Check of a %d-byte answer allocated %d bytes: a value decoded once per condition", len(data), alloc)
	}
	hidden := bytes.Replace(data, []byte(`"f0":"line`), []byte(`"f0":"hide","x":"line`), 1)
	var ie *hitl.InvalidError
	if err := f.Check(t.Context(), hidden); !errors.As(err, &ie) || len(ie.Problems) != hitl.MaxFormFields-1 {
		t.Errorf("Check with every conditional field hidden but answered = %v", err)
	}
}

// BenchmarkFormCheckConditions: 500 fields, 499 conditioned on one, and a 1 MiB answer.
func BenchmarkFormCheckConditions(b *testing.B) {
	f, data := conditionalForm(b, hitl.MaxFormFields, 1<<20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := f.Check(b.Context(), data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFormCheck: the cost of Check per value grows linearly with the form.
func BenchmarkFormCheck(b *testing.B) {
	for _, k := range []int{10, 100, 1000} {
		b.Run(fmt.Sprint(k), func(b *testing.B) {
			f, err := hitl.ParseForm(bigForm(1, k, false))
			if err != nil {
				b.Fatal(err)
			}
			values := make([]string, k)
			for i := range values {
				values[i] = fmt.Sprintf("o%d", i)
			}
			data, _ := json.Marshal(map[string]any{"f0": values})
			for b.Loop() {
				if err := f.Check(b.Context(), data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(k), "ns/value")
		})
	}
}

// TestNilInputs: a nil *Client, a nil request and a nil context are errors that say what to
// do, from every method that takes them, never a panic.
func TestNilInputs(t *testing.T) {
	var nc *hitl.Client
	req, _ := http.NewRequest(http.MethodGet, "https://svc.example/", nil)
	it := &hitl.Interrupt{}
	checks := map[string]func() error{
		"Do":           func() error { _, err := nc.Do(t.Context(), req, nil); return err },
		"Wait":         func() error { _, err := nc.Wait(t.Context(), it, nil); return err },
		"Detect":       func() error { _, err := nc.Detect(&http.Response{}); return err },
		"Resume":       func() error { return nc.Resume(t.Context(), nil, nil) },
		"Pending":      func() error { _, err := nc.Pending(t.Context()); return err },
		"Chain":        func() error { _, err := nc.Chain(t.Context(), it, nil, nil); return err },
		"Discover":     func() error { _, err := nc.Discover(t.Context(), "https://svc.example"); return err },
		"Final":        func() error { _, err := nc.Final(t.Context(), it, &transport.Result{}, nil); return err },
		"SubmitInline": func() error { _, err := nc.SubmitInline(t.Context(), it, hitl.InlineAnswer{}); return err },
		"Transport":    func() error { _, err := nc.Transport(nil, nil).RoundTrip(req); return err },
		"PollWaiter":   func() error { _, err := nc.PollWaiter().Wait(t.Context(), it); return err },
	}
	for name, call := range checks {
		if err := call(); err == nil || !strings.Contains(err.Error(), "hitl.NewClient") {
			t.Errorf("nil *Client's %s = %v; want an error naming hitl.NewClient", name, err)
		}
	}
	c := newClient(t, http.DefaultTransport)
	if _, err := c.Do(t.Context(), nil, nil); err == nil || !strings.Contains(err.Error(), "needs a request") {
		t.Errorf("Do(nil request) = %v", err)
	}
	if _, err := c.Do(nil, req, nil); err == nil || !strings.Contains(err.Error(), "needs a context") { // a nil context is the input under test
		t.Errorf("Do(nil context) = %v", err)
	}
}
