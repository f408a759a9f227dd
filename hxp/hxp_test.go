package hxp_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
	"github.com/hitlkit/hitlkit/internal/hxphash"
	"github.com/hitlkit/hitlkit/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func key(k string) transport.Credential { return transport.StaticToken(k) }

// setup starts a fake and returns an agent client and a human client for it.
func setup(t *testing.T, opts ...hxptest.Option) (*hxptest.Server, *hxp.Client, *hxp.Client) {
	t.Helper()
	s := hxptest.NewServer(t, opts...)
	common := []transport.Option{transport.WithHTTPClient(s.Client()), transport.WithAllowPrivateAddresses(), transport.WithPollInterval(time.Second)}
	agent, err := hxp.NewClient(s.URL, append(common, transport.WithAuthorization(key(hxptest.DefaultAgentKey)))...)
	if err != nil {
		t.Fatal(err)
	}
	human, err := hxp.NewClient(s.URL, append(common, hxp.WithHumanAuthorization(key(hxptest.DefaultHumanToken)))...)
	if err != nil {
		t.Fatal(err)
	}
	return s, agent, human
}

func decide() *hxp.Request {
	return &hxp.Request{Role: hxp.RoleOwner, Priority: hxp.PriorityNormal, TimeoutSeconds: 3600, Fallback: hxp.FallbackPause,
		AgentID: "agent_alpha_01", ProjectID: "project_alpha", Metadata: &hxp.Metadata{AgentFramework: "langgraph", AgentTask: "billing"},
		Decide: &hxp.Decide{Question: "Approve $99/mo Stripe plan?", Options: []string{"Approve", "Deny"},
			Context: "Required for payment processing in Project Alpha."}}
}

func f(v float64) *float64 { return &v }

// TestValidate: every rule of §2–§3 is checked before sending; each problem names its field;
// nothing reaches the server.
func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(r *hxp.Request)
		fields []string
	}{
		{"valid", func(*hxp.Request) {}, nil},
		{"one option", func(r *hxp.Request) { r.Decide.Options = []string{"Yes"} }, []string{"payload.options"}},
		{"seven options", func(r *hxp.Request) { r.Decide.Options = strings.Split("a b c d e f g", " ") }, []string{"payload.options"}},
		{"duplicate option", func(r *hxp.Request) { r.Decide.Options = []string{"a", "a"} }, []string{"payload.options[1]"}},
		{"default not an option", func(r *hxp.Request) { r.Decide.DefaultOption = "Maybe" }, []string{"payload.default_option"}},
		{"fallback default without default", func(r *hxp.Request) { r.Fallback = hxp.FallbackDefault }, []string{"payload.default_option"}},
		{"context of 501 characters", func(r *hxp.Request) { r.Decide.Context = strings.Repeat("é", 501) }, []string{"payload.context"}},
		{"context of 500 characters", func(r *hxp.Request) { r.Decide.Context = strings.Repeat("é", 500) }, nil},
		{"empty question", func(r *hxp.Request) { r.Decide.Question = " " }, []string{"payload.question"}},
		{"bad enums", func(r *hxp.Request) { r.Role, r.Priority, r.Fallback = "boss", "urgent", "retry" }, []string{"role", "priority", "fallback"}},
		{"negative timeout", func(r *hxp.Request) { r.TimeoutSeconds = -1 }, []string{"timeout_seconds"}},
		{"no payload", func(r *hxp.Request) { r.Decide = nil }, []string{"payload"}},
		{"two payloads", func(r *hxp.Request) { r.Approve = &hxp.Approve{Item: "x", Details: json.RawMessage(`{}`)} }, []string{"payload"}},
		{"approve without details", func(r *hxp.Request) {
			r.Decide, r.Approve = nil, &hxp.Approve{Item: "Expense $120", Details: json.RawMessage(`[1]`)}
		}, []string{"payload.details"}},
		{"approve with default fallback", func(r *hxp.Request) {
			r.Decide, r.Fallback, r.Approve = nil, hxp.FallbackDefault, &hxp.Approve{Item: "x", Details: json.RawMessage(`{"a":1}`)}
		}, []string{"fallback"}},
		{"provide, bad type and pattern", func(r *hxp.Request) {
			r.Decide, r.Provide = nil, &hxp.Provide{Prompt: "Key?", InputType: "password", Validation: &hxp.Validation{Pattern: "(", Min: f(5), Max: f(1)}}
		}, []string{"payload.input_type", "payload.validation.pattern", "payload.validation"}},
		{"selection without values", func(r *hxp.Request) {
			r.Decide, r.Provide = nil, &hxp.Provide{Prompt: "Region?", InputType: hxp.InputSelection}
		}, []string{"payload.validation.allowed_values"}},
	}
	s, agent, _ := setup(t)
	for _, tt := range tests {
		r := decide()
		tt.edit(r)
		err := r.Validate()
		var fields []string
		var re *hxp.RequestError
		if errors.As(err, &re) {
			for _, p := range re.Problems {
				fields = append(fields, p.Field)
			}
		}
		if diff := cmp.Diff(tt.fields, fields); diff != "" {
			t.Errorf("%s: fields (-want +got):\n%s", tt.name, diff)
		}
		if tt.fields != nil {
			if _, err := agent.Create(t.Context(), r); !errors.Is(err, hxp.ErrInvalidRequest) {
				t.Errorf("%s: Create = %v", tt.name, err)
			}
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}

// TestEveryAction: each action through create, a human resolving it, and Wait, over each
// ws_url shape and over polling alone: the receipt becomes the typed Result, checks against
// the request, and its evidence hash verifies with the server's secret.
func TestEveryAction(t *testing.T) {
	type run struct {
		name   string
		req    *hxp.Request
		result any
		reason string
		action string
		data   string
	}
	runs := []run{
		{"DECIDE", decide(), "Approve", "", "Approve", `"Approve"`},
		{"APPROVE rejected", &hxp.Request{Approve: &hxp.Approve{Item: "Expense $1,240", Details: json.RawMessage(`{"amount":1240}`), RejectRequiresReason: true}},
			hxp.Rejected, "over budget", hxp.Rejected, `"rejected"`},
		{"PROVIDE number", &hxp.Request{Provide: &hxp.Provide{Prompt: "Monthly budget?", InputType: hxp.InputNumber, Validation: &hxp.Validation{Min: f(0), Max: f(10000)}}},
			4200, "", "provide", `4200`},
	}
	shapes := map[string][]hxptest.Option{"ws query": nil, "ws path": {hxptest.WithWSShape(hxptest.WSPath)}, "no ws": {hxptest.WithWSShape(hxptest.WSNone)},
		"reference": {hxptest.WithProfile(hxptest.ProfileReference)}}
	for shape, opts := range shapes {
		t.Run(shape, func(t *testing.T) {
			t.Parallel()
			s, agent, human := setup(t, opts...)
			for _, r := range runs {
				cr, err := agent.Create(t.Context(), r.req)
				if err != nil {
					t.Fatal(err)
				}
				if (cr.WSURL == "") != (shape == "no ws") {
					t.Fatalf("%s: ws_url %q", r.name, cr.WSURL)
				}
				go func() {
					<-time.After(200 * time.Millisecond)
					if _, err := human.Resolve(context.Background(), cr.RequestID, r.result, r.reason); err != nil {
						t.Errorf("%s: Resolve: %v", r.name, err)
					}
				}()
				var updates []string
				res, err := agent.Wait(t.Context(), cr, &hxp.WaitOptions{OnUpdate: func(u hxp.Update) { updates = append(updates, u.Status) }})
				if err != nil {
					t.Fatalf("%s: Wait: %v", r.name, err)
				}
				got := []any{res.Status, res.Action, string(res.Data), res.Reason, res.Decision != "", res.RespondedBy.Name}
				want := []any{transport.StatusCompleted, r.action, r.data, r.reason, true, hxptest.HumanID}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: result (-want +got):\n%s", r.name, diff)
				}
				st, err := agent.Get(t.Context(), cr.RequestID)
				if err != nil || st.Receipt == nil {
					t.Fatalf("%s: Get = %+v, %v", r.name, st, err)
				}
				if err := st.Receipt.Check(cr.Request); err != nil {
					t.Errorf("%s: Check: %v", r.name, err)
				}
				formula, other := hxp.HashSpec, hxp.HashReference // the default profile's formula
				if shape == "reference" {
					formula, other = other, formula
				}
				if !st.Receipt.VerifyEvidence(s.Secret(), formula) {
					t.Errorf("%s: evidence hash does not verify", r.name)
				}
				if st.Receipt.VerifyEvidence(s.Secret(), other) || st.Receipt.VerifyEvidence([]byte("guess"), formula) {
					t.Errorf("%s: evidence verifies with the wrong formula or secret", r.name)
				}
			}
			polls, sockets := 0, s.WebSockets()
			for _, e := range s.Requests() {
				if strings.HasPrefix(e.Path, "/hxp/v1/requests/") && e.Method == "GET" {
					polls++
				}
			}
			switch shape {
			case "no ws":
				if sockets != 0 || polls <= 2*len(runs) {
					t.Errorf("%d WebSockets and %d polls without a ws_url", sockets, polls)
				}
			case "reference":
				// ws_url names localhost, another origin: the key is not sent there; the
				// reference server's WebSocket asks for none and pushes the receipt, which,
				// from another origin, only makes the polls look at once: one poll under the
				// WebSocket, one it woke, and one Get by the test, per request (one fewer when the
				// person answered before the first poll went out, on a slow machine).
				if sockets != len(runs) || polls < 2*len(runs) || polls > 3*len(runs) {
					t.Errorf("%d WebSockets and %d polls against the reference profile", sockets, polls)
				}
			default:
				// The WebSocket decides before the second poll: one poll under it and one Get
				// by the test, per request.
				if sockets != len(runs) || polls != 2*len(runs) {
					t.Errorf("%d WebSockets and %d polls for %d requests", sockets, polls, len(runs))
				}
			}
		})
	}
}

// TestTimeouts: each fallback, as the spec says and as the reference server does.
func TestTimeouts(t *testing.T) {
	tests := []struct {
		name      string
		opts      []hxptest.Option
		fallback  hxp.Fallback
		status    transport.Status
		defaulted string
		stays     bool
	}{
		{"default option", nil, hxp.FallbackDefault, transport.StatusExpired, "Deny", false},
		{"fail (spec)", nil, hxp.FallbackFail, transport.StatusFailed, "", false},
		{"fail (reference)", []hxptest.Option{hxptest.WithReferenceTimeouts()}, hxp.FallbackFail, transport.StatusExpired, "", false},
		{"pause (reference)", []hxptest.Option{hxptest.WithReferenceTimeouts()}, hxp.FallbackPause, transport.StatusExpired, "", false},
		{"pause (spec)", nil, hxp.FallbackPause, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, agent, _ := setup(t, tt.opts...)
			r := decide()
			r.TimeoutSeconds, r.Fallback, r.Decide.DefaultOption = 1, tt.fallback, "Deny"
			cr, err := agent.Create(t.Context(), r)
			if err != nil {
				t.Fatal(err)
			}
			errStill := errors.New("still open")
			ctx, cancel := context.WithTimeoutCause(t.Context(), 3*time.Second, errStill)
			defer cancel()
			res, err := agent.Wait(ctx, cr, nil)
			if tt.stays {
				if !errors.Is(err, errStill) {
					t.Fatalf("Wait = %+v, %v; want it still waiting", res, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tt.status || res.DefaultAction != tt.defaulted || res.DefaultApplied != (tt.defaulted != "") || res.Decision != "" {
				t.Errorf("Result = %+v", res)
			}
		})
	}
}

// TestWebSocketDrop: a WebSocket dropped mid-wait falls back to polling, and the decision
// made after the drop arrives.
func TestWebSocketDrop(t *testing.T) {
	s, agent, human := setup(t)
	cr, err := agent.Create(t.Context(), decide())
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range 100 { // until the wait is on the WebSocket
			if hasWS(s) {
				break
			}
			<-time.After(20 * time.Millisecond)
		}
		_ = s.Assign(cr.RequestID, "user_456")
		<-time.After(100 * time.Millisecond)
		s.DropWebSockets()
		<-time.After(100 * time.Millisecond)
		if _, err := human.Resolve(context.Background(), cr.RequestID, "Deny", ""); err != nil {
			t.Error(err)
		}
	}()
	var updates []hxp.Update
	res, err := agent.Wait(t.Context(), cr, &hxp.WaitOptions{OnUpdate: func(u hxp.Update) { updates = append(updates, u) }})
	if err != nil || res.Action != "Deny" {
		t.Fatalf("Wait = %+v, %v", res, err)
	}
	if len(updates) < 2 || updates[len(updates)-1].AssignedTo != "user_456" {
		t.Errorf("updates %+v", updates)
	}
	polls := 0
	for _, e := range s.Requests() {
		if e.Path == "/hxp/v1/requests/"+cr.RequestID {
			polls++
		}
	}
	if polls < 2 {
		t.Errorf("%d polls: the wait did not fall back to polling", polls)
	}
}

func hasWS(s *hxptest.Server) bool { return s.WebSockets() > 0 }

// TestErrors: every status of §5.3 is a typed error; credentials never appear in them.
func TestErrors(t *testing.T) {
	s, agent, human := setup(t)
	cr, err := agent.Create(t.Context(), &hxp.Request{Approve: &hxp.Approve{Item: "Deploy", Details: json.RawMessage(`{}`), RejectRequiresReason: true}})
	if err != nil {
		t.Fatal(err)
	}
	wrong, _ := hxp.NewClient(s.URL, transport.WithHTTPClient(s.Client()), transport.WithAllowPrivateAddresses(), transport.WithAuthorization(key("sk-live-wrong")))
	_, errWrongKey := wrong.Create(t.Context(), decide())
	_, errUnknown := agent.Get(t.Context(), "hxp_missing")
	_, errNotOption := human.Resolve(t.Context(), cr.RequestID, "maybe", "")
	_, errNoReason := human.Resolve(t.Context(), cr.RequestID, hxp.Rejected, "")
	_, errNull := human.Resolve(t.Context(), cr.RequestID, nil, "")
	if _, err := human.Resolve(t.Context(), cr.RequestID, hxp.Approved, ""); err != nil {
		t.Fatal(err)
	}
	_, errAgain := human.Resolve(t.Context(), cr.RequestID, hxp.Approved, "")
	errCancel := agent.Cancel(t.Context(), cr.RequestID)
	_, errHumanAsAgent := agent.Inbox(t.Context(), nil)
	tests := []struct {
		name string
		err  error
		want error
		code string
	}{
		{"wrong key", errWrongKey, transport.ErrUnauthorized, "unauthorized"},
		{"unknown request", errUnknown, transport.ErrNotFound, "not_found"},
		{"not an option", errNotOption, hxp.ErrInvalidResolution, "invalid_result"},
		{"reject without reason", errNoReason, hxp.ErrInvalidResolution, "reason_required"},
		{"null result", errNull, hxp.ErrBadRequest, "invalid_request"},
		{"second resolve", errAgain, hxp.ErrAlreadyResolved, "already_resolved"},
		{"cancel resolved", errCancel, hxp.ErrAlreadyResolved, "already_resolved"},
		{"inbox without a human token", errHumanAsAgent, transport.ErrUnauthorized, "unauthorized"},
		{"408", &hxp.APIError{StatusCode: 408}, hxp.ErrTimedOut, ""},
	}
	for _, tt := range tests {
		var ae *hxp.APIError
		if !errors.Is(tt.err, tt.want) || !errors.As(tt.err, &ae) || ae.Code != tt.code {
			t.Errorf("%s: %v, want %v with code %q", tt.name, tt.err, tt.want, tt.code)
		}
		if tt.err != nil && (strings.Contains(tt.err.Error(), "sk-live") || strings.Contains(tt.err.Error(), hxptest.DefaultAgentKey)) {
			t.Errorf("%s: a credential in the error: %v", tt.name, tt.err)
		}
	}
	for _, e := range s.Requests() {
		if strings.HasPrefix(e.Path, "/hxp/v1/inbox") && e.Header.Get("Authorization") != "" {
			t.Errorf("the agent client sent %q to the human endpoint", e.Header.Get("Authorization"))
		}
	}
}

// TestCancelListInbox: the agent cancels and lists its requests; the human's inbox filters.
func TestCancelListInbox(t *testing.T) {
	_, agent, human := setup(t)
	high := decide()
	high.Priority = hxp.PriorityHigh
	a, _ := agent.Create(t.Context(), high)
	b, _ := agent.Create(t.Context(), &hxp.Request{AgentID: "agent_beta", Provide: &hxp.Provide{Prompt: "Staging URL?", InputType: hxp.InputURL}})
	if a == nil || b == nil {
		t.Fatal("create failed")
	}
	if err := agent.Cancel(t.Context(), b.RequestID); err != nil {
		t.Fatal(err)
	}
	res, err := agent.Wait(t.Context(), b, nil)
	if err != nil || res.Status != transport.StatusCancelled {
		t.Errorf("Wait on a cancelled request = %+v, %v", res, err)
	}
	mine, err := agent.List(t.Context(), &hxp.ListOptions{AgentID: "agent_alpha_01"})
	if err != nil || len(mine) != 1 || mine[0].RequestID != a.RequestID || mine[0].Request == nil || mine[0].Request.Decide == nil {
		t.Errorf("List = %+v, %v", mine, err)
	}
	inbox, err := human.Inbox(t.Context(), &hxp.InboxFilter{Status: "pending", Priority: hxp.PriorityHigh, Action: hxp.ActionDecide})
	if err != nil || len(inbox.Requests) != 1 || inbox.Requests[0].RequestID != a.RequestID || inbox.Total != 2 || inbox.Unresolved != 1 {
		t.Errorf("Inbox = %+v, %v", inbox, err)
	}
}

// TestCheck: a receipt's result against its request; a completed receipt without a result
// (none, or JSON null) fits no request.
func TestCheck(t *testing.T) {
	num := &hxp.Request{Provide: &hxp.Provide{Prompt: "n", InputType: hxp.InputNumber, Validation: &hxp.Validation{Min: f(1), Max: f(10)}}}
	email := &hxp.Request{Provide: &hxp.Provide{Prompt: "e", InputType: hxp.InputEmail}}
	text := &hxp.Request{Provide: &hxp.Provide{Prompt: "k", InputType: hxp.InputText, Validation: &hxp.Validation{Pattern: `^sk-[a-z]+$`}}}
	sel := &hxp.Request{Provide: &hxp.Provide{Prompt: "r", InputType: hxp.InputSelection, Validation: &hxp.Validation{AllowedValues: []string{"eu", "us"}}}}
	free := &hxp.Request{Provide: &hxp.Provide{Prompt: "t", InputType: hxp.InputText}}
	tests := []struct {
		name   string
		req    *hxp.Request
		result string
		reason string
		ok     bool
	}{
		{"option", decide(), `"Approve"`, "", true},
		{"not an option", decide(), `"approve"`, "", false},
		{"number in range", num, `7`, "", true},
		{"number as text", num, `"7"`, "", true},
		{"number out of range", num, `11`, "", false},
		{"not a number", num, `"seven"`, "", false},
		{"email", email, `"ana@example.com"`, "", true},
		{"not an email", email, `"ana at example"`, "", false},
		{"pattern", text, `"sk-abc"`, "", true},
		{"pattern broken", text, `"pk-abc"`, "", false},
		{"allowed value", sel, `"eu"`, "", true},
		{"not allowed", sel, `"apac"`, "", false},
		{"approved", &hxp.Request{Approve: &hxp.Approve{Item: "x", Details: json.RawMessage(`{}`)}}, `"approved"`, "", true},
		{"yes is not approved", &hxp.Request{Approve: &hxp.Approve{Item: "x", Details: json.RawMessage(`{}`)}}, `"yes"`, "", false},
		{"null text", free, `null`, "", false},
		{"no result", free, ``, "", false},
		{"null file", &hxp.Request{Provide: &hxp.Provide{Prompt: "f", InputType: hxp.InputFile}}, ` null `, "", false},
		{"empty text", free, `""`, "", true},
	}
	for _, tt := range tests {
		rc := &hxp.Receipt{Status: "completed", Result: json.RawMessage(tt.result), Reason: tt.reason}
		if err := rc.Check(tt.req); (err == nil) != tt.ok || (err != nil && !errors.Is(err, hxp.ErrReceiptMismatch)) {
			t.Errorf("%s: Check = %v", tt.name, err)
		}
	}
}

// TestEvidenceFormulas: both formulas against hashes computed by hand from their definitions.
func TestEvidenceFormulas(t *testing.T) {
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	at, secret := "2026-02-06T10:30:00.000Z", []byte("hxp-dev-secret-change-me")
	tests := []struct {
		name    string
		result  string
		formula hxp.HashFormula
		want    string
	}{
		{"spec, string", `"Approve"`, hxp.HashSpec, sum("hxp_abc123Approve" + at + string(secret))},
		{"reference, string", `"Approve"`, hxp.HashReference, sum(`hxp_abc123:"Approve":` + at + ":" + string(secret))},
		{"reference, object", `{"a": 1, "b": [2]}`, hxp.HashReference, sum(`hxp_abc123:{"a":1,"b":[2]}:` + at + ":" + string(secret))},
	}
	for _, tt := range tests {
		got := hex.EncodeToString(hxphash.Sum("hxp_abc123", json.RawMessage(tt.result), at, secret, tt.formula == hxp.HashReference))
		if got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
		rc := &hxp.Receipt{RequestID: "hxp_abc123", Result: json.RawMessage(tt.result), CompletedAt: at, EvidenceHash: "sha256:" + strings.ToUpper(got)}
		if !rc.VerifyEvidence(secret, tt.formula) {
			t.Errorf("%s: prefixed upper-case hash does not verify", tt.name)
		}
		rc.CompletedAt = "2026-02-06T10:30:00Z"
		if rc.VerifyEvidence(secret, tt.formula) {
			t.Errorf("%s: verifies with another completed_at spelling", tt.name)
		}
	}
}

func TestNewClient(t *testing.T) {
	for _, base := range []string{"", "hxp.example", "ftp://hxp.example", "http://hxp.example"} {
		if _, err := hxp.NewClient(base); err == nil {
			t.Errorf("NewClient(%q) accepted", base)
		}
	}
	if _, err := hxp.NewClient("http://127.0.0.1:3402", transport.WithAllowPrivateAddresses()); err != nil {
		t.Error(err)
	}
	if _, err := hxp.NewClient("https://hxp.example", transport.WithPollInterval(10*time.Millisecond)); err == nil {
		t.Error("poll interval under 1 s accepted")
	}
}

func TestValue(t *testing.T) {
	tests := []struct {
		data string
		typ  hxp.InputType
		want any
		ok   bool
	}{
		{`42.5`, hxp.InputNumber, 42.5, true},
		{`"17"`, hxp.InputNumber, 17.0, true},
		{`"many"`, hxp.InputNumber, nil, false},
		{`"https://staging.example"`, hxp.InputURL, "https://staging.example", true},
		{`3`, hxp.InputText, nil, false},
	}
	for _, tt := range tests {
		got, err := hxp.Value(&transport.Result{Data: json.RawMessage(tt.data)}, tt.typ)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("Value(%s, %s) = %v, %v", tt.data, tt.typ, got, err)
		}
	}
}

// TestPollFaults: transient poll failures are retried; a 401 ends the wait with the sentinel.
func TestPollFaults(t *testing.T) {
	s, agent, human := setup(t, hxptest.WithWSShape(hxptest.WSNone))
	cr, err := agent.Create(t.Context(), decide())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := human.Resolve(t.Context(), cr.RequestID, "Deny", ""); err != nil {
		t.Fatal(err)
	}
	s.FailNext("", hxptest.Fault503, 2)
	if res, err := agent.Wait(t.Context(), cr, nil); err != nil || res.Action != "Deny" {
		t.Errorf("after two 503s: %+v, %v", res, err)
	}
	s.FailNext("", hxptest.FaultUnauthorized, 1)
	if _, err := agent.Wait(t.Context(), cr, nil); !errors.Is(err, transport.ErrUnauthorized) {
		t.Errorf("after a 401: %v", err)
	}
}

// TestAPIPrefix: the reference OpenAPI file mounts the endpoints at /v1, not /hxp/v1; relative
// poll URLs resolve against the server.
func TestAPIPrefix(t *testing.T) {
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.Method+" "+r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, `{"request_id":"hxp_1","status":"pending","poll_url":"/v1/requests/hxp_1"}`)
			return
		}
		_, _ = io.WriteString(w, `{"request_id":"hxp_1","status":"cancelled"}`)
	}))
	defer srv.Close()
	c, err := hxp.NewClient(srv.URL, hxp.WithAPIPrefix("/v1"), transport.WithAllowPrivateAddresses())
	if err != nil {
		t.Fatal(err)
	}
	cr, err := c.Create(t.Context(), decide())
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Wait(t.Context(), cr, nil)
	if err != nil || res.Status != transport.StatusCancelled {
		t.Fatalf("Wait = %+v, %v", res, err)
	}
	if diff := cmp.Diff([]string{"POST /v1/requests", "GET /v1/requests/hxp_1"}, paths); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}
