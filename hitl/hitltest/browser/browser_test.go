package browser

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// chromiums are the names Chromium goes by on PATH: Debian's and Ubuntu's packages, and
// the headless-only build.
var chromiums = []string{"chromium", "chromium-browser", "headless_shell"}

// findChromium returns the path of the first Chromium on PATH, or "".
func findChromium() string {
	for _, name := range chromiums {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser starts a headless Chromium with a phone-sized window, for one test. Without a
// Chromium on PATH the test is skipped, or fails under CI (HITLKIT_CI set), which installs
// one.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := findChromium()
	if path == "" {
		msg := "no Chromium on PATH (looked for " + strings.Join(chromiums, ", ") + "); install Debian's chromium package: apt-get install chromium"
		if os.Getenv("HITLKIT_CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc(); cancel() })
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return bctx
}

// shot saves a full-page PNG screenshot as name.png in the test's temporary directory, and in
// $HITLKIT_SCREENSHOTS when that is set.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	dirs := []string{t.TempDir()}
	if d := os.Getenv("HITLKIT_SCREENSHOTS"); d != "" {
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		if err := os.WriteFile(filepath.Join(d, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// agent is an agent on the fake service whose forwarder hands each review link to the test.
type agent struct {
	svc    *hitltest.Server
	client *hitl.Client
	links  chan *hitl.Interrupt
}

func newAgent(t *testing.T) *agent {
	t.Helper()
	a := &agent{svc: hitltest.NewServer(t), links: make(chan *hitl.Interrupt, 8)}
	c, err := hitl.NewClient(transport.WithHTTPClient(a.svc.Client()), transport.WithAllowPrivateAddresses(),
		hitl.WithForwarder(func(_ context.Context, it *hitl.Interrupt) error { a.links <- it; return nil }))
	if err != nil {
		t.Fatal(err)
	}
	a.client = c
	return a
}

// call makes the agent's call for typ with body in the background; the Result arrives on
// the returned channel.
type outcome struct {
	result  *transport.Result
	updates []hitl.Update
	err     error
}

func (a *agent) call(t *testing.T, typ, body string) (*hitl.Interrupt, <-chan outcome) {
	t.Helper()
	out := make(chan outcome, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	t.Cleanup(wg.Wait)
	go func() {
		defer wg.Done()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, a.svc.URL+"/actions/"+typ, strings.NewReader(body))
		var (
			mu      sync.Mutex
			updates []hitl.Update
		)
		// The agent reads every decision from the Result: a "no" is no error here.
		resp, err := a.client.Do(t.Context(), req, &hitl.CallOptions{EveryDecisionOK: true, Wait: &hitl.WaitOptions{OnUpdate: func(u hitl.Update) {
			mu.Lock()
			defer mu.Unlock()
			updates = append(updates, u)
		}}})
		o := outcome{err: err}
		if err == nil {
			_ = resp.Body.Close()
			o.result = resp.Result
		}
		mu.Lock()
		o.updates = updates
		mu.Unlock()
		out <- o
	}()
	select {
	case it := <-a.links:
		return it, out
	case o := <-out:
		t.Fatalf("the call ended without a review link: %v", o.err)
	case <-time.After(30 * time.Second):
		t.Fatal("no review link forwarded")
	}
	return nil, nil
}

func result(t *testing.T, out <-chan outcome) outcome {
	t.Helper()
	select {
	case o := <-out:
		if o.err != nil || o.result == nil {
			t.Fatalf("Wait = %v, %v", o.result, o.err)
		}
		return o
	case <-time.After(30 * time.Second):
		t.Fatal("the agent's Wait did not return")
	}
	return outcome{}
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

func text(t *testing.T, ctx context.Context, css string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(css)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// answered waits for the page that follows a submission and returns its notice.
func answered(t *testing.T, ctx context.Context) string {
	t.Helper()
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(".notice.good")))
	return text(t, ctx, ".notice.good")
}

// TestEveryTypeInABrowser: for each review type, the agent forwards the link; a person
// opens it in Chromium, fills the page in and submits; the agent's Wait returns the Result
// the person chose, typed.
func TestEveryTypeInABrowser(t *testing.T) {
	ctx := browser(t)
	a := newAgent(t)

	t.Run("approval", func(t *testing.T) {
		it, out := a.call(t, "approval", "")
		do(t, ctx, chromedp.Navigate(it.ReviewURL()), chromedp.WaitVisible(chromedp.ID("feedback")))
		shot(t, ctx, "approval")
		do(t, ctx, chromedp.SendKeys(chromedp.ID("feedback"), "Roll out to one region first."),
			chromedp.Click(chromedp.CSS(`button[value="edit"]`)))
		if n := answered(t, ctx); !strings.Contains(n, "Answered: edit") {
			t.Errorf("notice %q", n)
		}
		shot(t, ctx, "approval-answered")
		r := result(t, out).result
		ap, err := hitl.ApprovalOf(r)
		if r.Action != "edit" || err != nil || ap.Feedback != "Roll out to one region first." {
			t.Errorf("Result %v, %+v", r, ap)
		}
	})

	t.Run("selection", func(t *testing.T) {
		it, out := a.call(t, "selection", "")
		do(t, ctx, chromedp.Navigate(it.ReviewURL()), chromedp.WaitVisible(chromedp.CSS(`input[value="job_2"]`)),
			chromedp.Click(chromedp.CSS(`input[value="job_2"]`)), chromedp.Click(chromedp.CSS(`input[value="job_3"]`)),
			chromedp.SendKeys(chromedp.ID("note"), "Remote roles only."))
		shot(t, ctx, "selection")
		do(t, ctx, chromedp.Click(chromedp.CSS(`button[value="select"]`)))
		answered(t, ctx)
		r := result(t, out).result
		sel, err := hitl.SelectionOf(r)
		if err != nil || strings.Join(sel.Selected, ",") != "job_2,job_3" || sel.Note != "Remote roles only." {
			t.Errorf("Selection %+v, %v", sel, err)
		}
	})

	t.Run("input with a validation error, then fixed", func(t *testing.T) {
		it, out := a.call(t, "input", "")
		do(t, ctx, chromedp.Navigate(it.ReviewURL()), chromedp.WaitVisible(chromedp.ID("salary_expectation")),
			chromedp.SendKeys(chromedp.ID("salary_expectation"), "1000"),
			chromedp.Click(chromedp.CSS(`button[value="submit"]`)),
			chromedp.WaitVisible(chromedp.CSS(".error")))
		errs := text(t, ctx, "#field-salary_expectation .error") + " | " + text(t, ctx, "#field-start_date .error")
		if !strings.Contains(errs, "30000") || !strings.Contains(errs, "required") {
			t.Errorf("messages %q", errs)
		}
		shot(t, ctx, "input-refused")
		if st, _ := a.svc.Case(it.ID()); st.State == "completed" {
			t.Fatal("a refused form completed the case")
		}
		do(t, ctx, chromedp.SetValue(chromedp.ID("salary_expectation"), ""),
			chromedp.SendKeys(chromedp.ID("salary_expectation"), "95000"),
			chromedp.SetValue(chromedp.ID("start_date"), "2027-01-04"),
			chromedp.Click(chromedp.ID("remote")))
		shot(t, ctx, "input-fixed")
		do(t, ctx, chromedp.Click(chromedp.CSS(`button[value="submit"]`)))
		answered(t, ctx)
		r := result(t, out).result
		in, err := hitl.InputOf(r)
		if err != nil || in["salary_expectation"] != json.Number("95000") || in["start_date"] != "2027-01-04" || in["remote"] != true {
			t.Errorf("Input %v, %v", in, err)
		}
	})

	t.Run("confirmation", func(t *testing.T) {
		it, out := a.call(t, "confirmation", "")
		do(t, ctx, chromedp.Navigate(it.ReviewURL()), chromedp.WaitVisible(chromedp.CSS(`input[value="email_002"]`)),
			chromedp.Click(chromedp.CSS(`input[value="email_002"]`)))
		shot(t, ctx, "confirmation")
		do(t, ctx, chromedp.Click(chromedp.CSS(`button[value="confirm"]`)))
		answered(t, ctx)
		r := result(t, out).result
		c, err := hitl.ConfirmationOf(r)
		if r.Action != "confirm" || err != nil || strings.Join(c.ConfirmedItems, ",") != "email_001" {
			t.Errorf("Confirmation %+v, %v", c, err)
		}
	})

	t.Run("escalation", func(t *testing.T) {
		it, out := a.call(t, "escalation", "")
		do(t, ctx, chromedp.Navigate(it.ReviewURL()), chromedp.WaitVisible(chromedp.ID("param-readiness_timeout_seconds")),
			chromedp.Evaluate[chromedp.Void](`document.getElementById('param-readiness_timeout_seconds').value=''`),
			chromedp.SendKeys(chromedp.ID("param-readiness_timeout_seconds"), "300"),
			chromedp.SendKeys(chromedp.ID("reason"), "Migrations are slow on production data."))
		shot(t, ctx, "escalation")
		do(t, ctx, chromedp.Click(chromedp.CSS(`button[value="retry"]`)))
		answered(t, ctx)
		r := result(t, out).result
		e, err := hitl.EscalationOf(r)
		if r.Action != "retry" || err != nil || string(e.ModifiedParams) != `{"readiness_timeout_seconds":300}` {
			t.Errorf("Escalation %+v %s, %v", e, e.ModifiedParams, err)
		}
	})
}

// multiStepForm is the call that asks example flow 08's three-step form (contractor
// onboarding).
func multiStepForm(t *testing.T) string {
	raw, err := os.ReadFile("../../testdata/hitl-protocol/08-multi-step-input.json")
	if err != nil {
		t.Fatal(err)
	}
	body, err := hitltest.FlowCall(raw)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// TestMultiStepFormInABrowser: one step at a time, each step reported to the agent as
// progress; a conditional field appears when its condition holds and only then reaches the
// answer.
func TestMultiStepFormInABrowser(t *testing.T) {
	ctx := browser(t)
	a := newAgent(t)
	it, out := a.call(t, "input", multiStepForm(t))
	do(t, ctx, chromedp.Navigate(it.ReviewURL()), chromedp.WaitVisible(chromedp.ID("tax_id")),
		chromedp.SendKeys(chromedp.ID("tax_id"), "DE123456789"))
	shot(t, ctx, "multistep-1")
	do(t, ctx, chromedp.Click(chromedp.CSS(`.step[data-step="1"] button[data-go="1"]`)),
		chromedp.WaitVisible(chromedp.ID("employment_type")))
	hidden, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById('field-hourly_rate').hidden`))
	if err != nil || !hidden {
		t.Errorf("hourly rate shown before its condition holds: %v", err)
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`(function(){var s=document.getElementById('employment_type');s.value='contract';s.dispatchEvent(new Event('change',{bubbles:true}))})()`),
		chromedp.WaitVisible(chromedp.ID("hourly_rate")),
		chromedp.SendKeys(chromedp.ID("hourly_rate"), "95"),
		chromedp.SetValue(chromedp.ID("available_from"), "2027-03-01"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('remote_preference').value='hybrid'`),
		chromedp.Click(chromedp.CSS(`input[name="skills"][value="frontend"]`)),
		chromedp.Click(chromedp.CSS(`input[name="skills"][value="devops"]`)))
	shot(t, ctx, "multistep-2")
	do(t, ctx, chromedp.Click(chromedp.CSS(`.step[data-step="2"] button[data-go="1"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[value="submit"]`)))
	shot(t, ctx, "multistep-3")
	do(t, ctx, chromedp.Click(chromedp.CSS(`button[value="submit"]`)))
	answered(t, ctx)
	o := result(t, out)
	in, _ := hitl.InputOf(o.result)
	if _, has := in["annual_salary"]; has || in["hourly_rate"] != json.Number("95") || in["employment_type"] != "contract" || in["tax_id"] != "DE123456789" {
		t.Errorf("Input %v", in)
	}
	steps := map[int]bool{}
	for _, u := range o.updates {
		if u.State == "in_progress" && u.Progress != nil && u.Progress.TotalSteps == 3 {
			steps[u.Progress.CurrentStep] = true
		}
	}
	if !steps[2] || !steps[3] {
		t.Errorf("progress updates %+v", o.updates)
	}
}

// TestExpiredAndAnsweredPages: an expired case's page says so and names the default
// action; a stale page whose case someone else answered refuses the second answer and shows
// the first.
func TestExpiredAndAnsweredPages(t *testing.T) {
	ctx := browser(t)
	a := newAgent(t)

	it, out := a.call(t, "escalation", `{"timeout":"2s","default_action":"abort"}`)
	if o := result(t, out); o.result.Status != transport.StatusExpired {
		t.Fatalf("Result %v", o.result)
	}
	do(t, ctx, chromedp.Navigate(it.ReviewURL()), chromedp.WaitVisible(chromedp.CSS(".notice.bad")))
	if n := text(t, ctx, ".notice.bad"); !strings.Contains(n, "expired") || !strings.Contains(n, "abort") {
		t.Errorf("expired page: %q", n)
	}
	shot(t, ctx, "expired")

	it, out = a.call(t, "approval", "")
	do(t, ctx, chromedp.Navigate(it.ReviewURL()), chromedp.WaitVisible(chromedp.ID("feedback")))
	if err := a.svc.Respond(it.ID(), "reject", map[string]string{"feedback": "Not this week."}, nil); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(`button[value="approve"]`)), chromedp.WaitVisible(chromedp.CSS(`[role="alert"]`)))
	if n := text(t, ctx, "main"); !strings.Contains(n, "already answered") || !strings.Contains(n, "Answered: reject") {
		t.Errorf("second answer page: %q", n)
	}
	shot(t, ctx, "already-answered")
	if r := result(t, out).result; r.Action != "reject" {
		t.Errorf("Result %v", r)
	}
}
