package hitlslack_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/hitl/hitlslack/hitlslacktest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// secret is the app's signing secret in these tests: the fake's.
const secret = hitlslacktest.DefaultSigningSecret

// await waits up to 10 s for n calls of method to the fake and returns them.
func await(t *testing.T, fake *hitlslacktest.Server, method string, n int) []hitlslacktest.Request {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	got, err := fake.Await(ctx, method, n)
	if err != nil {
		t.Fatalf("%v; calls: %v", err, fake.Requests())
	}
	return got
}

// of returns the calls of method the fake answered 200.
func of(fake *hitlslacktest.Server, method string) []hitlslacktest.Request {
	var out []hitlslacktest.Request
	for _, r := range fake.Requests() {
		if r.Method == method && r.Status == http.StatusOK {
			out = append(out, r)
		}
	}
	return out
}

// labels are the labels of a message's buttons, in order.
func labels(m hitlslacktest.Request) []string {
	var out []string
	for _, b := range m.Buttons() {
		out = append(out, b.Label)
	}
	return out
}

// value is the value of the button labelled label on m (a link button's URL).
func value(t *testing.T, m hitlslacktest.Request, label string) string {
	t.Helper()
	b, ok := m.Button(label)
	if !ok {
		t.Fatalf("no button %q on %v", label, m)
	}
	if b.URL != "" {
		return b.URL
	}
	return b.Value
}

// click is user's signed click on the button labelled label of m.
func click(t *testing.T, fake *hitlslacktest.Server, m hitlslacktest.Request, label, user string) *http.Request {
	t.Helper()
	req, err := fake.Click(m, label, user)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// clickValue is user's signed click on a button of value v on the message at channel and
// ts, whatever the message shows: a forged or stale button.
func clickValue(user, channel, ts, v string) *http.Request {
	return hitlslacktest.Sign(hitlslacktest.ClickBody(user, channel, ts, hitlslacktest.Button{ActionID: "a", BlockID: "decide", Value: v}), secret, time.Now())
}

// submit is user's signed submission of the modal view opened, with text entered.
func submit(t *testing.T, fake *hitlslacktest.Server, view hitlslacktest.Request, user, text string) *http.Request {
	t.Helper()
	req, err := fake.Submit(view, user, text)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// deliver sends a signed request to h as Slack would and returns the status, checking it
// was answered within Slack's 3 seconds.
func deliver(t *testing.T, h http.Handler, req *http.Request) int {
	t.Helper()
	w := httptest.NewRecorder()
	began := time.Now()
	h.ServeHTTP(w, req)
	if d := time.Since(began); d > 3*time.Second {
		t.Errorf("answered after %v, past Slack's 3 s", d)
	}
	return w.Code
}

// buttons are m's buttons: label → value (a link button's URL).
func buttons(t *testing.T, m hitlslacktest.Request) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, b := range m.Buttons() {
		out[b.Label] = b.Value
		if b.URL != "" {
			out[b.Label] = b.URL
		}
	}
	return out
}
