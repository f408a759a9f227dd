package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// expires is where a review page states the case's expiry.
var expires = regexp.MustCompile(` · expires ([^<]+)</p>`)

// TestScripted runs the quickstart as `go run ./examples/quickstart` does and checks each
// typed Result it prints.
func TestScripted(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), &out, false); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		`approval      completed: approve by Ana {"feedback":"Looks good; watch the error rate."}`,
		`selection     completed: select by Ana {"note":"remote only","selected":["job_2","job_3"]}`,
		`input         completed: submit by Ana {"remote":true,"salary_expectation":95000,"start_date":"2027-01-04"}`,
		`confirmation  cancelled: the emails are no longer needed`,
		`escalation    expired: no human decided; default_action "abort" applies`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if !strings.HasPrefix(text, "A fake HITL service on http://127.0.0.1:") || !strings.Contains(text, "a scripted reviewer, Ana, answers") {
		t.Errorf("the first lines do not say who plays the other side:\n%s", text)
	}
	// The questions print in the order of the calls, every run.
	var prompts []string
	for _, line := range strings.Split(text, "\n") {
		if p, ok := strings.CutPrefix(line, "→ to the human: "); ok {
			prompts = append(prompts, strings.Fields(p)[0])
		}
	}
	if diff := cmp.Diff([]string{"Approve", "Select", "Provide", "Confirm", "Deployment"}, prompts); diff != "" {
		t.Errorf("forwarded questions (-want +got):\n%s", diff)
	}
	if strings.Count(text, "?token=…") != 5 || strings.Count(text, "token=") != 5 {
		t.Errorf("review links not redacted:\n%s", text)
	}
}

// TestInteractive plays the person at the browser: it reads the printed review links, opens
// each page and submits an answer through the page's form, and the run finishes.
func TestInteractive(t *testing.T) {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var runErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		runErr = run(ctx, pw, true)
		pw.Close()
	}()
	answers := map[string]string{"Approve": "approve", "Select": "select", "Provide": "submit", "Confirm": "confirm", "Deployment": "retry"}
	var prompt string
	var results []string
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "→ to the human: "):
			prompt = strings.TrimPrefix(line, "→ to the human: ")
		case strings.HasPrefix(line, "  review: "):
			link := strings.TrimPrefix(line, "  review: ")
			action := answers[strings.Fields(prompt)[0]]
			page, err := http.Get(link)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(page.Body)
			page.Body.Close()
			if page.StatusCode != 200 || !strings.Contains(string(body), `value="`+action+`"`) {
				t.Fatalf("review page %d lacks a %s button", page.StatusCode, action)
			}
			// Every case waits for the person: none expires within the hour.
			m := expires.FindSubmatch(body)
			if m == nil {
				t.Fatalf("review page of %q states no expiry", prompt)
			}
			if at, err := time.Parse("2 Jan 2006, 15:04 MST", string(m[1])); err != nil || at.Before(time.Now().Add(time.Hour)) {
				t.Errorf("%q expires at %s (%v); want no expiry within the hour in an interactive run", prompt, m[1], err)
			}
			form := url.Values{"action": {action}}
			switch action { // what a person fills in before submitting
			case "select":
				form.Set("selected", "job_2")
			case "submit":
				form.Set("salary_expectation", "95000")
				form.Set("start_date", "2027-01-04")
				form.Set("shown.remote", "1")
			}
			resp, err := http.PostForm(link, form)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK { // the page again, after the 303
				t.Fatalf("submitting %s: %d", action, resp.StatusCode)
			}
		case strings.HasPrefix(line, "  ") && strings.Contains(line, "completed: "):
			results = append(results, strings.Fields(line)[2])
		}
	}
	wg.Wait()
	if runErr != nil {
		t.Fatal(runErr)
	}
	if len(results) != 5 {
		t.Errorf("got %d completed results, want 5: %v", len(results), results)
	}
	http.DefaultClient.CloseIdleConnections()
}
