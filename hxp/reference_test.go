package hxp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
	"github.com/hitlkit/hitlkit/transport"
)

// onLocalhost returns clients for s addressed as http://localhost:PORT, the origin the
// reference server's ws_url names, so that the agent's key goes to its WebSocket too.
func onLocalhost(t *testing.T, s *hxptest.Server) (*hxp.Client, *hxp.Client) {
	t.Helper()
	base := strings.Replace(s.URL, "127.0.0.1", "localhost", 1)
	common := []transport.Option{transport.WithHTTPClient(s.Client()), transport.WithAllowPrivateAddresses(), transport.WithPollInterval(time.Second)}
	agent, err := hxp.NewClient(base, append(common, transport.WithAuthorization(key(hxptest.DefaultAgentKey)))...)
	if err != nil {
		t.Fatal(err)
	}
	human, err := hxp.NewClient(base, append(common, hxp.WithHumanAuthorization(key(hxptest.DefaultHumanToken)))...)
	if err != nil {
		t.Fatal(err)
	}
	return agent, human
}

// TestEveryHXPWaitEnds: whatever the WebSocket does — stays silent after the request ended
// (the reference server replays receipts only), never answers the handshake — the polls
// underneath end the wait; every request is bounded by the request timeout.
func TestEveryHXPWaitEnds(t *testing.T) {
	t.Run("cancelled before the subscription, silent WebSocket", func(t *testing.T) {
		s := hxptest.NewServer(t, hxptest.WithProfile(hxptest.ProfileReference))
		agent, _ := onLocalhost(t, s)
		cr, err := agent.Create(t.Context(), decide())
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Cancel(cr.RequestID); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		res, err := agent.Wait(ctx, cr, nil)
		if err != nil || res.Status != transport.StatusCancelled {
			t.Fatalf("Wait = %v, %v; want cancelled", res, err)
		}
		// The server counts a socket once its handler has it, which may be just after the
		// client's handshake returned.
		for i := 0; i < 200 && s.WebSockets() == 0; i++ {
			<-time.After(10 * time.Millisecond)
		}
		if s.WebSockets() != 1 {
			t.Errorf("%d WebSockets, want the silent one", s.WebSockets())
		}
	})
	t.Run("expired by a pause timeout, no receipt", func(t *testing.T) {
		s := hxptest.NewServer(t, hxptest.WithProfile(hxptest.ProfileReference))
		agent, _ := onLocalhost(t, s)
		r := decide()
		r.TimeoutSeconds = 1
		cr, err := agent.Create(t.Context(), r)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		res, err := agent.Wait(ctx, cr, nil)
		if err != nil || res.Status != transport.StatusExpired || res.Decision != "" {
			t.Fatalf("Wait = %v, %v; want expired", res, err)
		}
	})
	t.Run("handshake that never answers", func(t *testing.T) {
		s := hxptest.NewServer(t)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				defer c.Close() // held open, never answered, until the test ends
			}
		}()
		common := []transport.Option{transport.WithHTTPClient(s.Client()), transport.WithAllowPrivateAddresses(),
			transport.WithPollInterval(time.Second), transport.WithAuthorization(key(hxptest.DefaultAgentKey))}
		// The request is created under the default request timeout: the short one below
		// bounds the handshake, and a create that outlasts it on a loaded machine would fail.
		// A poll that outlasts it is retried.
		creator, err := hxp.NewClient(s.URL, common...)
		if err != nil {
			t.Fatal(err)
		}
		agent, err := hxp.NewClient(s.URL, append(common, transport.WithRequestTimeout(300*time.Millisecond))...)
		if err != nil {
			t.Fatal(err)
		}
		cr, err := creator.Create(t.Context(), decide())
		if err != nil {
			t.Fatal(err)
		}
		cr.WSURL = "ws://" + ln.Addr().String() + "/hxp/ws?request_id=" + cr.RequestID
		if _, err := s.Resolve(cr.RequestID, "Approve", "", "ana"); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		res, err := agent.Wait(ctx, cr, nil)
		if err != nil || res.Action != "Approve" {
			t.Fatalf("Wait = %v, %v", res, err)
		}
	})
	t.Run("a request that never answers", func(t *testing.T) {
		hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
		defer hang.Close()
		c, err := hxp.NewClient(hang.URL, transport.WithHTTPClient(hang.Client()), transport.WithAllowPrivateAddresses(), transport.WithRequestTimeout(200*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		if _, err := c.Get(ctx, "hxp_1"); !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			t.Errorf("Get = %v, want the request timeout", err)
		}
		if _, err := c.List(ctx, nil); !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			t.Errorf("List = %v, want the request timeout", err)
		}
	})
}

// TestAnyJSONReason: the reference server stores whatever JSON the human sent as the reason;
// Get, List, Inbox and both wait paths read it, raw, with the text when it is a string.
func TestAnyJSONReason(t *testing.T) {
	for _, reason := range []string{`{"code":"budget","limit":100}`, `["a","b"]`, `42`, `"over budget"`, `null`} {
		t.Run(reason, func(t *testing.T) {
			s := hxptest.NewServer(t, hxptest.WithProfile(hxptest.ProfileReference))
			agent, human := onLocalhost(t, s)
			for _, pollOnly := range []bool{false, true} {
				cr, err := agent.Create(t.Context(), decide())
				if err != nil {
					t.Fatal(err)
				}
				go func() {
					<-time.After(100 * time.Millisecond)
					if _, err := s.ResolveWithReason(cr.RequestID, "Deny", json.RawMessage(reason), "ana"); err != nil {
						t.Error(err)
					}
				}()
				res, err := agent.Wait(t.Context(), cr, &hxp.WaitOptions{PollOnly: pollOnly})
				if err != nil || res.Action != "Deny" {
					t.Fatalf("pollOnly=%v: Wait = %v, %v", pollOnly, res, err)
				}
				rc, err := hxp.ReceiptOf(res)
				if err != nil {
					t.Fatal(err)
				}
				wantText := ""
				_ = json.Unmarshal([]byte(reason), &wantText)
				if rc.Reason != wantText || res.Reason != wantText || (reason != "null" && string(rc.ReasonRaw) != reason) {
					t.Errorf("pollOnly=%v: reason %q raw %s", pollOnly, rc.Reason, rc.ReasonRaw)
				}
				st, err := agent.Get(t.Context(), cr.RequestID)
				if err != nil || st.Receipt == nil || st.Receipt.Reason != wantText {
					t.Errorf("Get = %+v, %v", st, err)
				}
			}
			if list, err := agent.List(t.Context(), nil); err != nil || len(list) != 2 {
				t.Errorf("List = %d, %v", len(list), err)
			}
			if in, err := human.Inbox(t.Context(), nil); err != nil || len(in.Requests) != 2 {
				t.Errorf("Inbox = %+v, %v", in, err)
			}
		})
	}
	t.Run("a record that cannot be read is a permanent error", func(t *testing.T) {
		_, c := scripted(t, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`{"request_id":"req_a","status":7}`))
		})
		cr := &hxp.Created{RequestID: "req_a", PollURL: "/hxp/v1/requests/req_a"}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		if _, err := c.Wait(ctx, cr, &hxp.WaitOptions{PollOnly: true}); !errors.Is(err, hxp.ErrMalformed) || ctx.Err() != nil {
			t.Errorf("Wait = %v, want ErrMalformed at once", err)
		}
		if _, err := c.Get(ctx, "req_a"); !errors.Is(err, hxp.ErrMalformed) {
			t.Errorf("Get = %v, want ErrMalformed", err)
		}
	})
}

// TestReceiptInTheResult: the Result carries the receipt as the server sent it: its evidence
// verifies without another request, completed_at is the server's exact string; CheckReceipt
// checks it against the request (the reference server does not validate PROVIDE answers).
func TestReceiptInTheResult(t *testing.T) {
	for _, profile := range hxptest.Profiles() {
		t.Run(profile.String(), func(t *testing.T) {
			s := hxptest.NewServer(t, hxptest.WithProfile(profile))
			agent, _ := onLocalhost(t, s)
			cr, err := agent.Create(t.Context(), decide())
			if err != nil {
				t.Fatal(err)
			}
			sent, err := s.Resolve(cr.RequestID, "Approve", "", "ana")
			if err != nil {
				t.Fatal(err)
			}
			res, err := agent.Wait(t.Context(), cr, &hxp.WaitOptions{CheckReceipt: true})
			if err != nil {
				t.Fatal(err)
			}
			rc, err := hxp.ReceiptOf(res)
			formula := hxp.HashSpec
			if profile == hxptest.ProfileReference {
				formula = hxp.HashReference
			}
			if err != nil || rc.CompletedAt != sent.CompletedAt || !rc.VerifyEvidence(s.Secret(), formula) {
				t.Errorf("receipt %+v, %v; server sent completed_at %q", rc, err, sent.CompletedAt)
			}
		})
	}
	t.Run("a PROVIDE answer outside its validation", func(t *testing.T) {
		s := hxptest.NewServer(t, hxptest.WithProfile(hxptest.ProfileReference))
		agent, _ := onLocalhost(t, s)
		cr, err := agent.Create(t.Context(), &hxp.Request{Provide: &hxp.Provide{Prompt: "Budget?", InputType: hxp.InputNumber,
			Validation: &hxp.Validation{Min: f(0), Max: f(100)}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Resolve(cr.RequestID, 5000, "", "ana"); err != nil {
			t.Fatal(err) // not validated by the reference server
		}
		if _, err := agent.Wait(t.Context(), cr, &hxp.WaitOptions{CheckReceipt: true}); !errors.Is(err, hxp.ErrReceiptMismatch) {
			t.Errorf("Wait with CheckReceipt = %v, want ErrReceiptMismatch", err)
		}
		if res, err := agent.Wait(t.Context(), cr, nil); err != nil || string(res.Data) != "5000" {
			t.Errorf("Wait = %v, %v", res, err)
		}
	})
}

// TestProvidedValueIsData: a PROVIDE's value — here text that reads like an action — is the
// Result's Data only: never its Action, its String or LogValue, on both paths, and also for a
// request rebuilt from its id and URLs, with or without the server echoing the request.
func TestProvidedValueIsData(t *testing.T) {
	const value = "Approve everything"
	provide := &hxp.Request{Provide: &hxp.Provide{Prompt: "What should I do?", InputType: hxp.InputText}}
	check := func(t *testing.T, res *transport.Result) {
		t.Helper()
		var logs strings.Builder
		slog.New(slog.NewTextHandler(&logs, nil)).Info("result", "r", res)
		for where, s := range map[string]string{"Action": res.Action, "String": fmt.Sprint(res), "GoString": fmt.Sprintf("%#v", res), "log": logs.String()} {
			if strings.Contains(s, value) {
				t.Errorf("the value is in %s: %q", where, s)
			}
		}
		if string(res.Data) != `"`+value+`"` {
			t.Errorf("Data = %s", res.Data)
		}
	}
	for _, pollOnly := range []bool{false, true} {
		s := hxptest.NewServer(t, hxptest.WithProfile(hxptest.ProfileReference))
		agent, _ := onLocalhost(t, s)
		cr, err := agent.Create(t.Context(), provide)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			<-time.After(100 * time.Millisecond)
			_, _ = s.Resolve(cr.RequestID, value, "", "ana")
		}()
		res, err := agent.Wait(t.Context(), cr, &hxp.WaitOptions{PollOnly: pollOnly})
		if err != nil {
			t.Fatal(err)
		}
		check(t, res)
		rebuilt := &hxp.Created{RequestID: cr.RequestID, PollURL: cr.PollURL, WSURL: cr.WSURL}
		res, err = agent.Wait(t.Context(), rebuilt, &hxp.WaitOptions{PollOnly: pollOnly})
		if err != nil || res.Action != "provide" {
			t.Fatalf("rebuilt: Wait = %v, %v", res, err)
		}
		check(t, res)
	}
	// A server that does not echo the request: the value is still not an action.
	_, c := scripted(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"request_id":"req_a","status":"completed","receipt":{"request_id":"req_a","status":"completed","result":"` + value + `","completed_by":"ana","completed_at":"2026-01-01T00:00:00Z"}}`))
	})
	res, err := c.Wait(t.Context(), &hxp.Created{RequestID: "req_a", PollURL: "/hxp/v1/requests/req_a"}, nil)
	if err != nil || res.Action != "" {
		t.Fatalf("Wait = %v, %v; want no action", res, err)
	}
	check(t, res)
}

// TestNoRedundantPoll: a polling wait sends at most ⌈T/R⌉+1 polls for a decision at T with
// interval R; a 404 is the same typed error on the first poll and on a later one.
func TestNoRedundantPoll(t *testing.T) {
	s, agent, human := setup(t, hxptest.WithWSShape(hxptest.WSNone))
	cr, err := agent.Create(t.Context(), decide())
	if err != nil {
		t.Fatal(err)
	}
	const decideAt = 2500 * time.Millisecond
	go func() {
		<-time.After(decideAt)
		_, _ = human.Resolve(context.Background(), cr.RequestID, "Deny", "")
	}()
	if res, err := agent.Wait(t.Context(), cr, nil); err != nil || res.Action != "Deny" {
		t.Fatalf("Wait = %v, %v", res, err)
	}
	polls := 0
	for _, e := range s.Requests() {
		if e.Path == "/hxp/v1/requests/"+cr.RequestID {
			polls++
		}
	}
	if limit := 4; polls > limit { // ⌈2.5 s / 1 s⌉ + 1
		t.Errorf("%d polls, want at most %d", polls, limit)
	}

	var n atomic.Int32
	_, c := scripted(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 3 {
			http.Error(w, `{"error":"not_found"}`, http.StatusNotFound)
			return
		}
		w.Header().Set("HXP-Status", "pending")
		_, _ = w.Write([]byte(`{"request_id":"req_a","status":"pending"}`))
	})
	_, third := c.Wait(t.Context(), &hxp.Created{RequestID: "req_a", PollURL: "/hxp/v1/requests/req_a"}, nil)
	s.FailNext("", hxptest.FaultNotFound, 1)
	_, first := agent.Wait(t.Context(), cr, nil)
	for name, err := range map[string]error{"first poll": first, "third poll": third} {
		var ae *hxp.APIError
		if !errors.As(err, &ae) || !errors.Is(err, transport.ErrNotFound) || ae.Op != "poll" {
			t.Errorf("%s: %v, want an *APIError matching ErrNotFound", name, err)
		}
	}
}
