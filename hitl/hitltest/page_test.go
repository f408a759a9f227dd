package hitltest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// createWith makes a case of typ whose call carried body.
func createWith(t *testing.T, s *hitltest.Server, typ, body string) *hitl.Interrupt {
	t.Helper()
	resp, err := s.Client().Post(s.URL+"/actions/"+typ, "application/json", strings.NewReader(body))
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

// submit posts the page's form and returns the status and the page shown after it.
func submit(t *testing.T, s *hitltest.Server, it *hitl.Interrupt, form url.Values) (int, string) {
	t.Helper()
	resp, err := s.Client().PostForm(it.ReviewURL(), form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func getPage(t *testing.T, s *hitltest.Server, it *hitl.Interrupt) (int, string) {
	t.Helper()
	resp, err := s.Client().Get(it.ReviewURL())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func waitResult(t *testing.T, s *hitltest.Server, it *hitl.Interrupt) *transport.Result {
	t.Helper()
	c, err := hitl.NewClient(transport.WithHTTPClient(s.Client()), transport.WithAllowPrivateAddresses())
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Wait(t.Context(), it, &hitl.WaitOptions{PollOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReviewPageEveryType: for each review type the page shows what the person decides on,
// and what the person submits comes back to the agent as the type's typed result data.
func TestReviewPageEveryType(t *testing.T) {
	tests := []struct {
		typ     string
		shows   []string
		form    url.Values
		action  string
		checkFn func(t *testing.T, r *transport.Result)
	}{
		{"approval", []string{"acme-web v2.1.0", "Request edits", `value="reject"`},
			url.Values{"action": {"edit"}, "feedback": {"Use a canary first."}}, "edit",
			func(t *testing.T, r *transport.Result) {
				a, err := hitl.ApprovalOf(r)
				if err != nil || a.Feedback != "Use a canary first." {
					t.Errorf("Approval = %+v, %v", a, err)
				}
			}},
		{"selection", []string{"Staff Frontend Developer, Klarna", `type="checkbox" name="selected" value="job_2"`},
			url.Values{"action": {"select"}, "selected": {"job_2", "job_3"}, "note": {"remote only"}}, "select",
			func(t *testing.T, r *transport.Result) {
				sel, err := hitl.SelectionOf(r)
				if err != nil || !cmp.Equal(sel.Selected, []string{"job_2", "job_3"}) || sel.Note != "remote only" {
					t.Errorf("Selection = %+v, %v", sel, err)
				}
			}},
		{"input", []string{"Expected annual salary (EUR)", `type="date"`, `type="number"`, `autocomplete="off"`},
			url.Values{"action": {"submit"}, "salary_expectation": {"95000"}, "start_date": {"2027-01-04"}, "shown.remote": {"1"}, "remote": {"true"}}, "submit",
			func(t *testing.T, r *transport.Result) {
				in, err := hitl.InputOf(r)
				if err != nil || in["salary_expectation"] != json.Number("95000") || in["start_date"] != "2027-01-04" || in["remote"] != true {
					t.Errorf("Input = %v, %v", in, err)
				}
			}},
		{"confirmation", []string{"Application to Klarna", "This cannot be undone", `value="cancel"`},
			url.Values{"action": {"confirm"}, "item": {"email_001"}}, "confirm",
			func(t *testing.T, r *transport.Result) {
				c, err := hitl.ConfirmationOf(r)
				if err != nil || !cmp.Equal(c.ConfirmedItems, []string{"email_001"}) {
					t.Errorf("Confirmation = %+v, %v", c, err)
				}
			}},
		{"escalation", []string{"3 of 5 pods failed readiness checks", `name="param.readiness_timeout_seconds"`, `value="abort"`},
			url.Values{"action": {"retry"}, "param.readiness_timeout_seconds": {"300"}, "param.strategy": {"rolling"}, "reason": {"longer probe"}}, "retry",
			func(t *testing.T, r *transport.Result) {
				e, err := hitl.EscalationOf(r)
				if err != nil || e.Reason != "longer probe" || string(e.ModifiedParams) != `{"readiness_timeout_seconds":300}` {
					t.Errorf("Escalation = %+v %s, %v", e, e.ModifiedParams, err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			s := hitltest.NewServer(t)
			it := create(t, s, tt.typ)
			code, page := getPage(t, s, it)
			for _, want := range tt.shows {
				if code != 200 || !strings.Contains(page, want) {
					t.Errorf("page (%d) lacks %q", code, want)
				}
			}
			if st, _ := s.Case(it.ID()); st.State != "opened" {
				t.Errorf("state %q after the visit", st.State)
			}
			code, page = submit(t, s, it, tt.form)
			if code != 200 || !strings.Contains(page, "Answered: "+tt.action) {
				t.Fatalf("after submitting: %d", code)
			}
			r := waitResult(t, s, it)
			if r.Action != tt.action || r.Decision == "" {
				t.Fatalf("Result = %v", r)
			}
			tt.checkFn(t, r)
		})
	}
}

// TestReviewPageRefusals: what a person gets wrong is refused in the page, with a message
// where the problem is and the values kept, and nothing reaches the agent until it is fixed.
func TestReviewPageRefusals(t *testing.T) {
	s := hitltest.NewServer(t)
	t.Run("input out of range and missing", func(t *testing.T) {
		it := create(t, s, "input")
		code, page := submit(t, s, it, url.Values{"action": {"submit"}, "salary_expectation": {"1000"}, "shown.remote": {"1"}})
		if code != http.StatusUnprocessableEntity || !strings.Contains(page, "Above the minimum") && !strings.Contains(page, "minimum") || !strings.Contains(page, "This field is required.") {
			t.Errorf("refusal %d lacks its messages", code)
		}
		if st, _ := s.Case(it.ID()); st.State != "opened" {
			t.Errorf("state %q after a refused submission", st.State)
		}
		if strings.Contains(page, `value="1000"`) {
			t.Error("a sensitive value was sent back to the browser")
		}
		code, _ = submit(t, s, it, url.Values{"action": {"submit"}, "salary_expectation": {"95000"}, "start_date": {"2027-01-04"}, "shown.remote": {"1"}})
		if code != 200 {
			t.Errorf("fixed submission: %d", code)
		}
	})
	t.Run("selection without a choice", func(t *testing.T) {
		it := create(t, s, "selection")
		if code, page := submit(t, s, it, url.Values{"action": {"select"}}); code != 422 || !strings.Contains(page, "Choose at least one option.") {
			t.Errorf("refusal %d", code)
		}
	})
	t.Run("edit without feedback", func(t *testing.T) {
		it := create(t, s, "approval")
		if code, page := submit(t, s, it, url.Values{"action": {"edit"}}); code != 422 || !strings.Contains(page, "Describe the edits you want.") {
			t.Errorf("refusal %d", code)
		}
	})
	t.Run("action the type does not offer", func(t *testing.T) {
		it := create(t, s, "confirmation")
		if code, page := submit(t, s, it, url.Values{"action": {"approve"}}); code != 422 || !strings.Contains(page, "Choose one of: confirm, cancel.") {
			t.Errorf("refusal %d", code)
		}
	})
	t.Run("second submission shows the first answer", func(t *testing.T) {
		it := create(t, s, "confirmation")
		if code, _ := submit(t, s, it, url.Values{"action": {"cancel"}, "note": {"not now"}}); code != 200 {
			t.Fatalf("first: %d", code)
		}
		code, page := submit(t, s, it, url.Values{"action": {"confirm"}, "item": {"email_001"}})
		if code != http.StatusConflict || !strings.Contains(page, "already answered") || !strings.Contains(page, "Answered: cancel") {
			t.Errorf("second: %d", code)
		}
		if r := waitResult(t, s, it); r.Action != "cancel" {
			t.Errorf("Result = %v", r)
		}
	})
	t.Run("wrong token", func(t *testing.T) {
		it := create(t, s, "approval")
		u := strings.Split(it.ReviewURL(), "?")[0] + "?token=guess"
		resp, err := s.Client().PostForm(u, url.Values{"action": {"approve"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if st, _ := s.Case(it.ID()); resp.StatusCode != 401 || st.State != "pending" {
			t.Errorf("%d, state %q", resp.StatusCode, st.State)
		}
	})
}

// TestReviewPageMultiStep: example flow 08's three-step form; each step reached is reported
// as in_progress with its step; a hidden conditional field is left out; sensitive values are
// not echoed.
func TestReviewPageMultiStep(t *testing.T) {
	raw, err := os.ReadFile("../testdata/hitl-protocol/08-multi-step-input.json")
	if err != nil {
		t.Fatal(err)
	}
	body, err := hitltest.FlowCall(raw)
	if err != nil {
		t.Fatal(err)
	}
	s := hitltest.NewServer(t)
	it := createWith(t, s, "input", string(body))
	_, page := getPage(t, s, it)
	for _, want := range []string{"Step 1 of 3", "Step 3 of 3", "Personal Information", `data-cond-field="employment_type"`, `data-go="1"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	resp, err := s.Client().PostForm(strings.Replace(it.ReviewURL(), "?", "/progress?", 1), url.Values{"step": {"2"}, "total": {"3"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()), transport.WithAllowPrivateAddresses())
	var seen []hitl.Update
	posted := make(chan struct{})
	defer func() { <-posted }()
	go func() {
		defer close(posted)
		<-time.After(200 * time.Millisecond)
		form := url.Values{"action": {"submit"}, "full_name": {"Sarah Chen"}, "email": {"sarah.chen@example.com"}, "tax_id": {"DE123456789"},
			"employment_type": {"contract"}, "annual_salary": {"120000"}, "hourly_rate": {"95"}, "available_from": {"2027-03-01"},
			"remote_preference": {"hybrid"}, "skills": {"frontend", "devops"}}
		if resp, err := s.Client().PostForm(it.ReviewURL(), form); err == nil {
			_ = resp.Body.Close()
		}
	}()
	r, err := c.Wait(t.Context(), it, &hitl.WaitOptions{OnUpdate: func(u hitl.Update) { seen = append(seen, u) }})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := hitl.InputOf(r)
	if _, has := in["annual_salary"]; has || in["hourly_rate"] != json.Number("95") || !cmp.Equal(in["skills"], []any{"frontend", "devops"}) {
		t.Errorf("Input = %v", in)
	}
	progressed := false
	for _, u := range seen {
		progressed = progressed || (u.State == "in_progress" && u.Progress != nil && u.Progress.CurrentStep == 2 && u.Progress.TotalSteps == 3)
	}
	if !progressed {
		t.Errorf("no in_progress 2/3 update among %+v", seen)
	}
}

// TestReviewPageExpired: an expired case's page says so and names the default action; a
// late submission changes nothing.
func TestReviewPageExpired(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t)
		it := createWith(t, s, "escalation", `{"timeout":"2s","default_action":"abort"}`)
		<-time.After(3 * time.Second)
		code, page := getPage(t, s, it)
		if code != 200 || !strings.Contains(page, "This review has expired") || !strings.Contains(page, "<strong>abort</strong>") {
			t.Errorf("expired page (%d)", code)
		}
		if code, _ := submit(t, s, it, url.Values{"action": {"retry"}}); code != http.StatusConflict {
			t.Errorf("late submission: %d", code)
		}
		if st, _ := s.Case(it.ID()); st.State != "expired" {
			t.Errorf("state %q", st.State)
		}
	})
}
